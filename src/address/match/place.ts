// Place resolution: from the postcode, city and CEDEX département of a parsed address, the communes to search the
// street in, tier by tier, and what finding it in each tier (or in none) says about the input (docs/decisions.md,
// "Street search order"). Reads the nationwide reference only: which communes are indexed is plan_cache.ts's affair.
import { departementOfInsee } from "../index/departement.ts";
import type { ParsedAddress } from "../parse/parse_address.ts";
import type { Reference } from "../reference/reference.ts";
import type { AddressReason } from "../types.ts";

/** One step of the street search: where to look, and what finding the street there says about the input. */
export interface SearchTier {
  communes: string[];
  onFound: AddressReason[];
}

/** Where to look for the street, in order, and the reasons the place alone already gives. */
export interface SearchPlan {
  reasons: AddressReason[];
  tiers: SearchTier[];
  /** Reasons when the street is found in no tier. */
  notFound: AddressReason[];
  /** The input postcode, when it is a real one that the answer should keep if it fits. */
  postcode: string | null;
  /** No postcode or city at all: look the street up in every indexed département, exact names only. */
  anywhere: boolean;
  /** Reasons the place gives when the street cannot be looked for (none given, or its commune is not indexed): a
   *  one-digit slip of the city's postcode is still postcode_corrected there. */
  unsearched?: AddressReason[];
}

/** The search plan of a parsed address; depends on its postcode, city and CEDEX département only. */
export function resolvePlace(p: ParsedAddress, ref: Reference): SearchPlan {
  const reasons: AddressReason[] = [];
  const byPostcode = p.postcode !== null ? ref.communesOfPostcode(p.postcode) : null;
  const postcode = byPostcode !== null && byPostcode.length > 0 ? p.postcode : null;
  const cityMatches = p.city !== null ? ref.citiesNamed(p.city) : null;
  const siblingsOf = (communes: string[]) => siblingsIn(ref, communes);
  const fromCedex = (communes: string[]) => inDepartement(communes, p.cedexDepartement);
  const missingPostcode: AddressReason[] = p.cedexDepartement !== null ? [] : ["missing_postcode"];
  // The city written is these communes of the postcode under another name (a slip, a delivery name): their streets
  // first, then the other arrondissements of their city.
  const cityCorrectedTo = (communes: string[]): SearchPlan => ({
    reasons: [...reasons, "city_corrected"],
    tiers: [
      { communes, onFound: [] },
      { communes: minus(siblingsOf(communes), communes), onFound: ["postcode_corrected"] },
    ],
    notFound: [],
    postcode,
    anywhere: false,
  });

  // Postcode and city both given.
  if (byPostcode !== null && cityMatches !== null) {
    if (byPostcode.length > 0 && cityMatches.length > 0) {
      for (const m of cityMatches) {
        const domain = byPostcode.filter((c) => m.communes.includes(c));
        if (domain.length === 0) continue;
        if (m.kind === "former") reasons.push("city_corrected");
        const group = unique([...m.communes, ...siblingsOf(domain)]);
        // Last, the postcode's other communes: "5 Rue de l'Église, 90140 Froidefontaine" is Bourogne's (90140 too),
        // whose exact name comes before any slip in Froidefontaine (it was Rue de l'Égalité there, which lacks the 5).
        const otherCommunes = minus(byPostcode, group);
        return {
          reasons,
          tiers: [
            { communes: domain, onFound: [] },
            { communes: minus(group, domain), onFound: ["postcode_corrected"] },
            ...(otherCommunes.length > 0 ? [{ communes: otherCommunes, onFound: ["city_corrected" as const] }] : []),
          ],
          notFound: [],
          postcode,
          anywhere: false,
        };
      }
      // The pair does not go together: the street decides which one is wrong.
      // The best kind of match only: "Paris" is the 20 arrondissements, not every commune delivered as PARIS.
      const citySide = cityMatches[0]!.communes;
      const slip = postcodeSlip(ref, p.postcode!, citySide);
      if (slip !== null) {
        // "15110 Roffiac" for 15100: the city's commune first, the communes of the postcode written second.
        return {
          reasons,
          tiers: [
            { communes: slip.communes, onFound: ["postcode_corrected"] },
            { communes: minus(byPostcode, slip.communes), onFound: ["city_corrected"] },
          ],
          notFound: ["postcode_corrected"],
          postcode: slip.postcode,
          anywhere: false,
          unsearched: ["postcode_corrected"],
        };
      }
      // "15200 Sains" for Salins (15200): a slip that happens to name a commune elsewhere. One letter from a commune
      // of the postcode is likelier a slip than a postcode of another département (the city's side of postcodeSlip).
      // Not a number: "75001 Paris 16" names the 16th arrondissement, no slip of the 1st.
      // A commune of the postcode's own département is written as meant: "16 Rue des Champs Fourchins, 90150 Roppe"
      // is Roppe's (90380), not a slip of Reppe (90150); the postcode is the likelier slip, and the written commune is
      // searched first.
      const cityInPostcodeDepartement = citySide.some(
        (c) => postcodeDepartementOfInsee(c) === departementOfPostcode(p.postcode!),
      );
      if (cityInPostcodeDepartement) {
        return {
          reasons,
          tiers: [
            { communes: citySide, onFound: ["postcode_corrected"] },
            { communes: byPostcode, onFound: ["city_corrected"] },
          ],
          notFound: ["postcode_city_mismatch"],
          postcode,
          anywhere: false,
        };
      }
      const slipOfCity = /\d/.test(p.city!) ? null : ref.closestCity(p.city!, byPostcode, { maxEdits: 1 });
      if (slipOfCity !== null && slipOfCity.communes.length > 0) return cityCorrectedTo(slipOfCity.communes);
      // "13100 Aix" for Aix-en-Provence: a commune of the postcode cut to its first word, which happens to name a
      // commune elsewhere (Aix, Corrèze).
      const cut = /\d/.test(p.city!) ? null : ref.communeByNameEnd(p.city!, byPostcode, { cutOnly: true });
      if (cut !== null) return cityCorrectedTo([cut]);
      return {
        reasons,
        tiers: [
          { communes: byPostcode, onFound: ["city_corrected"] },
          { communes: citySide, onFound: ["postcode_corrected"] },
        ],
        notFound: ["postcode_city_mismatch"],
        postcode,
        anywhere: false,
      };
    }
    if (byPostcode.length > 0) {
      // A delivery name longer or cut short ("COLMARS LES ALPES", "ESCUEILLENS ET ST JUST"): the postcode's commune,
      // whose own name the answer gives.
      const delivered = ref.communeByNameEnd(p.city!, byPostcode);
      if (delivered !== null) return cityCorrectedTo([delivered]);
      const close = ref.closestCity(p.city!, byPostcode);
      if (close && close.communes.length > 0) return cityCorrectedTo(close.communes);
      // A name that is no commune of France, even with a slip (a hamlet, a locality of La Poste's line 5, a district of
      // French Polynesia that La Poste delivers by name): the postcode may serve it, so only the street can tell.
      const namesNoCommune = ref.closestCity(p.city!) === null;
      return {
        reasons,
        tiers: [{ communes: byPostcode, onFound: ["city_corrected"] }],
        notFound: namesNoCommune ? [] : ["postcode_city_mismatch"],
        postcode,
        anywhere: false,
      };
    }
    if (cityMatches.length > 0) {
      // The best kind of match only: "Paris" is the 20 arrondissements, not every commune delivered as PARIS.
      const citySide = cityMatches[0]!.communes;
      const slip = postcodeSlip(ref, p.postcode!, citySide);
      if (slip !== null) {
        return {
          reasons,
          tiers: [{ communes: slip.communes, onFound: ["postcode_corrected"] }],
          notFound: ["postcode_corrected"],
          postcode: slip.postcode,
          anywhere: false,
          unsearched: ["postcode_corrected"],
        };
      }
      return {
        reasons,
        tiers: [{ communes: citySide, onFound: ["postcode_corrected"] }],
        notFound: ["postcode_city_mismatch"],
        postcode,
        anywhere: false,
      };
    }
    return {
      reasons: ["postcode_city_mismatch"],
      tiers: [],
      notFound: ["postcode_city_mismatch"],
      postcode,
      anywhere: false,
    };
  }

  // Postcode only.
  if (byPostcode !== null) {
    reasons.push("missing_city");
    if (byPostcode.length === 0)
      return { reasons: [...reasons, "postcode_city_mismatch"], tiers: [], notFound: [], postcode, anywhere: false };
    return {
      reasons,
      tiers: [
        { communes: byPostcode, onFound: [] },
        { communes: minus(siblingsOf(byPostcode), byPostcode), onFound: ["postcode_corrected"] },
      ],
      notFound: [],
      postcode,
      anywhere: false,
    };
  }

  // City only (or a CEDEX département with the city).
  if (cityMatches !== null) {
    reasons.push(...missingPostcode);
    let matches = cityMatches;
    if (matches.length === 0) {
      const close = ref.closestCity(p.city!);
      if (!close)
        return { reasons: [...reasons, "postcode_city_mismatch"], tiers: [], notFound: [], postcode, anywhere: false };
      reasons.push("city_corrected");
      matches = [close];
    }
    const first = matches.find((m) => fromCedex(m.communes).length > 0) ?? matches[0]!;
    if (first.kind === "former") reasons.push("city_corrected");
    const communes = fromCedex(first.communes);
    // "Paris 13e" with a street of the 4th: an arrondissement named wrong, as a postcode of the 13th would be.
    const otherArrondissements = minus(siblingsOf(communes), communes);
    return {
      reasons,
      tiers: [
        { communes, onFound: [] },
        ...(otherArrondissements.length > 0
          ? [{ communes: otherArrondissements, onFound: ["city_corrected" as const] }]
          : []),
      ],
      notFound: [],
      postcode,
      anywhere: false,
    };
  }

  reasons.push(...missingPostcode, "missing_city");
  return { reasons, tiers: [], notFound: [], postcode, anywhere: true };
}

/** The postcode of the named city one digit away from the one written, in the same département ("15110" for
 *  Roffiac's only 15100), with the communes it serves among the city's; null when none is, or when two are (never a
 *  guess: "15140 Leucamp" is as near 15120 as 15130, so neither is chosen). */
export function postcodeSlip(
  ref: Reference,
  written: string,
  communes: readonly string[],
): { postcode: string; communes: string[] } | null {
  if (!/^\d{5}$/.test(written)) return null;
  let found: string | null = null;
  const served: string[] = [];
  for (const c of communes) {
    for (const pc of ref.postcodesOf(c)) {
      if (!oneDigitApart(pc, written)) continue;
      if (found !== null && found !== pc) return null;
      found = pc;
      served.push(c);
    }
  }
  return found === null ? null : { postcode: found, communes: unique(served) };
}

/** Same département digits, exactly one other digit different: the département is the part of a postcode people
 *  know best, and a postcode of another département is a mismatch ("50590 Fonteny" is not Fonteny's 57590). */
function oneDigitApart(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  const departement = a.startsWith("97") ? 3 : 2;
  if (a.slice(0, departement) !== b.slice(0, departement)) return false;
  let diff = 0;
  for (let i = departement; i < a.length; i++) if (a[i] !== b[i] && ++diff > 1) return false;
  return diff === 1;
}

function unique<T>(values: Iterable<T>): T[] {
  return [...new Set(values)];
}

function minus(a: readonly string[], b: readonly string[]): string[] {
  return a.filter((c) => !b.includes(c));
}

/** Every arrondissement of the same cities (the communes themselves when they have none). */
function siblingsIn(ref: Reference, communes: readonly string[]): string[] {
  const out = new Set<string>();
  for (const c of communes) for (const s of ref.siblings(c)) out.add(s);
  return [...out];
}

function inDepartement(communes: string[], departement: string | null): string[] {
  return departement === null ? communes : communes.filter((c) => departementOfInsee(c) === departement);
}

/** A commune's département as its postcodes begin: Corsica's 2A and 2B are delivered under 20. */
function postcodeDepartementOfInsee(insee: string): string {
  const departement = departementOfInsee(insee);
  return departement === "2A" || departement === "2B" ? "20" : departement;
}

/** The département a postcode belongs to by its first figures ("90150" → "90", "97110" → "971"). */
function departementOfPostcode(postcode: string): string {
  return postcode.startsWith("97") ? postcode.slice(0, 3) : postcode.slice(0, 2);
}
