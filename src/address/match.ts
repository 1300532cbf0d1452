// The address matcher: parse, resolve postcode and city nationwide, find the street in the indexed BAN communes,
// check the house number, then derive the verdict from the reasons (DECISIONS §4). Pure and synchronous: the worker
// threads run it (workers/match_address.ts), tests and benches call it directly.
import type { BanIndex } from "./index/ban_index.ts";
import { departementOfInsee } from "./index/departement.ts";
import { checkHouseNumber, type NumberCheck } from "./match/house_number_check.ts";
import {
  clearWinner, exactStreets, fuzzyStreets, prepareQuery, type CommuneScope, type StreetHit, type StreetQuery,
} from "./match/street_search.ts";
import { cityKey, streetKey } from "./normalize/match_key.ts";
import { guessStreetType } from "./normalize/street_types.ts";
import { isFrance } from "./parse/country.ts";
import { parseAddress, type ParsedAddress } from "./parse/parse_address.ts";
import type { Reference } from "./reference/reference.ts";
import type { AddressInput, AddressReason, AddressVerification, NormalizedAddress } from "./types.ts";
import { addressVerdict, sortReasons } from "./verdict.ts";

/** One step of the street search: where to look, and what finding the street there says about the input. */
interface Tier {
  communes: string[];
  onFound: AddressReason[];
}

interface Plan {
  reasons: AddressReason[];
  tiers: Tier[];
  /** Reasons when the street is found in no tier. */
  notFound: AddressReason[];
  /** The input postcode, when it is a real one that the answer should keep if it fits. */
  postcode: string | null;
  /** No postcode or city at all: look the street up in every indexed département, exact names only. */
  anywhere: boolean;
  /** Tiers with their commune scopes, filled in by #cachedPlan(). */
  scoped?: ScopedTier[];
}

interface ScopedTier {
  tier: Tier;
  scopes: CommuneScope[];
}

export interface MatcherOptions {
  indexes: readonly BanIndex[];
  reference: Reference;
}

function unique<T>(values: Iterable<T>): T[] {
  return [...new Set(values)];
}

export class AddressMatcher {
  readonly #indexes: ReadonlyMap<string, BanIndex>;
  readonly #ref: Reference;
  readonly #plans = new Map<string, Plan>();
  readonly #deliveryNames = new Map<string, string>();

  constructor(options: MatcherOptions) {
    this.#indexes = new Map(options.indexes.map((i) => [i.departement, i]));
    this.#ref = options.reference;
  }

  /** Départements this matcher can check streets in. */
  get departements(): string[] {
    return [...this.#indexes.keys()];
  }

  match(input: AddressInput): AddressVerification {
    const started = performance.now();
    const result = this.#match(input);
    return { ...result, duration_ms: Math.round(performance.now() - started) };
  }

  #answer(reasons: Iterable<AddressReason>, normalized: NormalizedAddress | null): Omit<AddressVerification, "duration_ms"> {
    const sorted = sortReasons(reasons);
    return { verdict: addressVerdict(sorted), reasons: sorted, normalized };
  }

  #match(input: AddressInput): Omit<AddressVerification, "duration_ms"> {
    const p = parseAddress(input);
    if (p.country !== null && p.countryFrom !== null && !isFrance(p.country)) this.#keepFrenchCity(p);
    if (p.country !== null && !isFrance(p.country)) return this.#answer(["country_not_covered"], null);
    this.#cityFromStreet(p);
    const plan = this.#cachedPlan(p);
    const reasons = new Set<AddressReason>(plan.reasons);

    // Coverage: which candidate communes lie in indexed départements.
    let allCommunes = 0;
    let uncovered = false;
    let covered = false;
    for (const tier of plan.tiers) {
      for (const c of tier.communes) {
        allCommunes++;
        if (this.#indexes.has(departementOfInsee(c))) covered = true;
        else uncovered = true;
      }
    }

    if (p.street === null) {
      reasons.add("missing_street");
      if (allCommunes > 0 && !covered) reasons.add("postcode_not_covered");
      for (const r of plan.notFound) if (r === "postcode_city_mismatch") reasons.add(r);
      return this.#answer(reasons, this.#placeOnly(p, plan));
    }
    if (allCommunes > 0 && !covered) return this.#answer([...reasons, "postcode_not_covered"], null);

    const query = streetQuery(p.street);
    const num = p.houseNumber === null ? null : Number(p.houseNumber);
    const hasNumber = num === null ? hasNoNumber : numberPredicate(num);
    const found = plan.anywhere ? this.#searchAnywhere(query, hasNumber) : this.#searchTiers(query, plan.scoped!, hasNumber);
    if (!found) {
      if (uncovered || (plan.anywhere && this.#indexes.size === 0)) return this.#answer([...reasons, "postcode_not_covered"], null);
      if (plan.anywhere) return this.#answer(reasons, null);
      for (const r of plan.notFound) reasons.add(r);
      reasons.add("street_not_found");
      return this.#answer(reasons, null);
    }
    for (const r of found.tier.onFound) reasons.add(r);
    if (found.fuzzy || found.hit.cost > 0) reasons.add("street_corrected");

    const { index, street } = found.hit;
    let check: NumberCheck | null = null;
    if (num === null) reasons.add("missing_house_number");
    else {
      check = checkHouseNumber(index, { street, number: num, suffix: p.suffix });
      if (check.status === "out_of_range") reasons.add("house_number_out_of_range");
    }
    const insee = index.communeCode(street);
    let postcode: string;
    if (check?.row != null) postcode = index.header.postcodes[index.ad.adPostcode[check.row]!]!;
    else if (plan.postcode !== null && index.streetPostcodes(street).has(plan.postcode)) postcode = plan.postcode;
    else postcode = index.streetPostcode(street);
    if (p.postcode !== null && p.postcode !== postcode && !reasons.has("missing_postcode")) reasons.add("postcode_corrected");
    if (p.cedexDepartement !== null) reasons.add("postcode_corrected");

    const streetName = index.streetName(street);
    const city = this.#deliveryName(postcode, insee);
    const numberText = num === null || check?.status === "out_of_range" ? null : String(num);
    const suffix = numberText === null ? null : check?.suffix ?? null;
    const head = numberText === null ? "" : `${numberText}${suffix ? ` ${suffix}` : ""} `;
    return this.#answer(reasons, {
      house_number: numberText,
      house_number_suffix: suffix,
      street: streetName,
      postcode,
      city,
      country: "FR",
      line: `${head}${streetName}, ${postcode} ${city}`,
      latitude: numberText === null ? null : check?.latitude ?? null,
      longitude: numberText === null ? null : check?.longitude ?? null,
    });
  }

  #deliveryName(postcode: string, insee: string): string {
    const key = postcode + insee;
    let name = this.#deliveryNames.get(key);
    if (name === undefined) {
      name = this.#ref.deliveryName(postcode, insee);
      this.#deliveryNames.set(key, name);
    }
    return name;
  }

  /** A country read off the end of a line may be part of a French city: "10220 Bouy-Luxembourg", "Saint-Martin". */
  #keepFrenchCity(p: ParsedAddress): void {
    const country = p.country!;
    if (p.countryFrom === "words" && p.city !== null && this.#ref.citiesNamed(`${p.city} ${country}`).length > 0) {
      p.city = `${p.city} ${country}`;
    } else if (p.countryFrom === "segment" && p.city === null && this.#ref.citiesNamed(country).length > 0) {
      p.city = country;
    } else if (p.countryFrom === "segment" && p.postcode !== null && p.city !== null && this.#ref.citiesNamed(p.city).length === 0 && this.#ref.citiesNamed(country).length > 0) {
      p.city = country;
    } else return;
    p.country = null;
    p.countryFrom = null;
  }

  /** "12 rue de Rivoli Paris" with neither postcode nor comma: the last words may be the city. */
  #cityFromStreet(p: ParsedAddress): void {
    if (p.city !== null || p.postcode !== null || p.cedexDepartement !== null || p.street === null) return;
    const words = p.street.split(/\s+/);
    for (let n = Math.min(4, words.length - 2); n >= 1; n--) {
      const tail = words.slice(-n).join(" ");
      if (this.#ref.citiesNamed(tail).length > 0) {
        p.city = tail;
        p.street = words.slice(0, -n).join(" ");
        return;
      }
    }
  }

  /** Plans depend on postcode, city and CEDEX only, and a few thousand such triples make up the traffic: they are
   *  memoized (bounded), with the commune scopes of their tiers. */
  #cachedPlan(p: ParsedAddress): Plan {
    const key = `${p.postcode}|${p.city === null ? "" : cityKey(p.city)}|${p.city === null ? 0 : 1}|${p.cedexDepartement}`;
    let plan = this.#plans.get(key);
    if (plan === undefined) {
      plan = this.#plan(p);
      plan.scoped = plan.tiers.map((tier) => ({ tier, scopes: this.#scopes(tier.communes) }));
      if (this.#plans.size >= 20_000) this.#plans.clear();
      this.#plans.set(key, plan);
    }
    return plan;
  }

  #plan(p: ParsedAddress): Plan {
    const ref = this.#ref;
    const reasons: AddressReason[] = [];
    const byPostcode = p.postcode !== null ? ref.communesOfPostcode(p.postcode) : null;
    const postcode = byPostcode !== null && byPostcode.length > 0 ? p.postcode : null;
    const cityMatches = p.city !== null ? ref.citiesNamed(p.city) : null;
    const siblingsOf = (communes: string[]) => siblingsIn(ref, communes);
    const fromCedex = (communes: string[]) => inDepartement(communes, p.cedexDepartement);
    const missingPostcode: AddressReason[] = p.cedexDepartement !== null ? [] : ["missing_postcode"];

    // Postcode and city both given.
    if (byPostcode !== null && cityMatches !== null) {
      if (byPostcode.length > 0 && cityMatches.length > 0) {
        for (const m of cityMatches) {
          const domain = byPostcode.filter((c) => m.communes.includes(c));
          if (domain.length === 0) continue;
          if (m.kind === "former") reasons.push("city_corrected");
          const group = unique([...m.communes, ...siblingsOf(domain)]);
          return { reasons, tiers: [{ communes: domain, onFound: [] }, { communes: minus(group, domain), onFound: ["postcode_corrected"] }], notFound: [], postcode, anywhere: false };
        }
        // The pair does not go together: the street decides which one is wrong.
        // The best kind of match only: "Paris" is the 20 arrondissements, not every commune delivered as PARIS.
        const citySide = cityMatches[0]!.communes;
        return {
          reasons,
          tiers: [{ communes: byPostcode, onFound: ["city_corrected"] }, { communes: citySide, onFound: ["postcode_corrected"] }],
          notFound: ["postcode_city_mismatch"],
          postcode,
          anywhere: false,
        };
      }
      if (byPostcode.length > 0) {
        const close = ref.closestCity(p.city!, byPostcode);
        if (close && close.communes.length > 0) {
          return { reasons: ["city_corrected"], tiers: [{ communes: close.communes, onFound: [] }, { communes: minus(siblingsOf(close.communes), close.communes), onFound: ["postcode_corrected"] }], notFound: [], postcode, anywhere: false };
        }
        return { reasons, tiers: [{ communes: byPostcode, onFound: ["city_corrected"] }], notFound: ["postcode_city_mismatch"], postcode, anywhere: false };
      }
      if (cityMatches.length > 0) {
        // The best kind of match only: "Paris" is the 20 arrondissements, not every commune delivered as PARIS.
        const citySide = cityMatches[0]!.communes;
        return { reasons, tiers: [{ communes: citySide, onFound: ["postcode_corrected"] }], notFound: ["postcode_city_mismatch"], postcode, anywhere: false };
      }
      return { reasons: ["postcode_city_mismatch"], tiers: [], notFound: ["postcode_city_mismatch"], postcode, anywhere: false };
    }

    // Postcode only.
    if (byPostcode !== null) {
      reasons.push("missing_city");
      if (byPostcode.length === 0) return { reasons: [...reasons, "postcode_city_mismatch"], tiers: [], notFound: [], postcode, anywhere: false };
      return { reasons, tiers: [{ communes: byPostcode, onFound: [] }, { communes: minus(siblingsOf(byPostcode), byPostcode), onFound: ["postcode_corrected"] }], notFound: [], postcode, anywhere: false };
    }

    // City only (or a CEDEX département with the city).
    if (cityMatches !== null) {
      reasons.push(...missingPostcode);
      let matches = cityMatches;
      if (matches.length === 0) {
        const close = ref.closestCity(p.city!);
        if (!close) return { reasons: [...reasons, "postcode_city_mismatch"], tiers: [], notFound: [], postcode, anywhere: false };
        reasons.push("city_corrected");
        matches = [close];
      }
      const first = matches.find((m) => fromCedex(m.communes).length > 0) ?? matches[0]!;
      if (first.kind === "former") reasons.push("city_corrected");
      return { reasons, tiers: [{ communes: fromCedex(first.communes), onFound: [] }], notFound: [], postcode, anywhere: false };
    }

    reasons.push(...missingPostcode, "missing_city");
    return { reasons, tiers: [], notFound: [], postcode, anywhere: true };
  }

  #scopes(communes: readonly string[]): CommuneScope[] {
    const byDept = new Map<string, number[]>();
    for (const c of communes) {
      const index = this.#indexes.get(departementOfInsee(c));
      const n = index?.communeByCode.get(c);
      if (index === undefined || n === undefined) continue;
      const list = byDept.get(index.departement) ?? [];
      list.push(n);
      byDept.set(index.departement, list);
    }
    return [...byDept].map(([d, list]) => ({ index: this.#indexes.get(d)!, communes: list }));
  }

  #searchTiers(q: StreetQuery, scoped: readonly ScopedTier[], hasNumber: (h: StreetHit) => boolean): { hit: StreetHit; tier: Tier; fuzzy: boolean } | null {
    // Exact names in every tier before any fuzzy match: a wrong arrondissement is likelier than a typo.
    let fallback: { hit: StreetHit; tier: Tier; fuzzy: boolean } | null = null;
    for (const { tier, scopes } of scoped) {
      const hits = exactStreets(q, scopes);
      const winners = clearWinner(hits, hasNumber);
      if (!winners) continue;
      const hit = pickByNumber(winners, hasNumber);
      // "12 Rue de Rivoli, 75001": Rivoli exists in the 1st but number 12 is in the 4th: the postcode is wrong.
      if (hasNumber(hit) || fallback !== null) return fallback ?? { hit, tier, fuzzy: false };
      fallback = { hit, tier, fuzzy: false };
      const later = scoped.slice(scoped.findIndex((s) => s.tier === tier) + 1);
      for (const other of later) {
        const more = exactStreets(q, other.scopes).filter((h) => h.cost === hit.cost && hasNumber(h));
        if (more.length > 0) return { hit: more[0]!, tier: other.tier, fuzzy: false };
      }
      return fallback;
    }
    // Then, tier by tier, the same name under another (or no) street type and typos, ranked by cost.
    for (const [i, { tier, scopes }] of scoped.entries()) {
      // Past the first tier the postcode or city is already wrong: one slip more at most, not a handful.
      const hits = fuzzyStreets(q, scopes, { maxEdits: i === 0 ? q.maxEdits : 1 });
      const winners = clearWinner(hits, hasNumber);
      if (winners) {
        const hit = pickByNumber(winners, hasNumber);
        return { hit, tier, fuzzy: hit.scores.name > 0 };
      }
    }
    return null;
  }

  #searchAnywhere(q: StreetQuery, hasNumber: (h: StreetHit) => boolean): { hit: StreetHit; tier: Tier; fuzzy: boolean } | null {
    const scopes = [...this.#indexes.values()].map((index) => ({ index, communes: index.header.communes.map((_, i) => i) }));
    const hits = exactStreets(q, scopes).filter((h) => h.cost === 0);
    if (hits.length === 0) return null;
    const withNumber = hits.filter(hasNumber);
    const pool = withNumber.length > 0 ? withNumber : hits;
    // Only a street name that designates one place fills in the postcode and city.
    if (pool.length !== 1) return null;
    return { hit: pool[0]!, tier: { communes: [], onFound: [] }, fuzzy: false };
  }

  /** Normalized fields from the place alone (no street given): known only when one commune remains. */
  #placeOnly(p: ParsedAddress, plan: Plan): NormalizedAddress | null {
    const first = plan.tiers[0]?.communes ?? [];
    if (first.length !== 1) return null;
    const insee = first[0]!;
    const postcode = plan.postcode ?? (this.#ref.postcodesOf(insee).length === 1 ? this.#ref.postcodesOf(insee)[0]! : null);
    if (postcode === null) return null;
    const city = this.#ref.deliveryName(postcode, insee);
    return {
      house_number: p.houseNumber,
      house_number_suffix: null,
      street: "",
      postcode,
      city,
      country: "FR",
      line: `${postcode} ${city}`,
      latitude: null,
      longitude: null,
    };
  }
}

/** The query for a street; a misspelt type word ("Aveue de Clichy") is guessed when it is one slip from a type. */
function streetQuery(street: string): StreetQuery {
  const key = streetKey(street);
  if (key.type === null) {
    const words = key.key.split(" ");
    const guess = words.length > 1 ? guessStreetType(words[0]!) : null;
    if (guess !== null) return prepareQuery(streetKey([guess, ...words.slice(1)].join(" ")), { typeGuessed: true });
  }
  return prepareQuery(key);
}

function hasNoNumber(): boolean {
  return false;
}

function numberPredicate(num: number): (h: StreetHit) => boolean {
  return (h) => {
    const r = h.index.numberRange(h.street, num);
    return r[1] > r[0];
  };
}

function minus(a: readonly string[], b: readonly string[]): string[] {
  return a.filter((c) => !b.includes(c));
}

function siblingsIn(ref: Reference, communes: readonly string[]): string[] {
  const out = new Set<string>();
  for (const c of communes) for (const s of ref.siblings(c)) out.add(s);
  return [...out];
}

function inDepartement(communes: string[], departement: string | null): string[] {
  return departement === null ? communes : communes.filter((c) => departementOfInsee(c) === departement);
}

function pickByNumber(hits: readonly StreetHit[], hasNumber: (h: StreetHit) => boolean): StreetHit {
  return hits.find(hasNumber) ?? hits[0]!;
}

export interface SharedMatcherData {
  /** One SharedArrayBuffer per département index file (index/ban_index.ts). */
  indexBuffers: SharedArrayBuffer[];
  /** Packed nationwide reference (reference/pack_reference.ts), read in place by every thread. */
  referenceBuffer: SharedArrayBuffer;
}

/** A matcher over shared buffers: what each worker thread builds once, without copying the index or the reference. */
export async function matcherFromShared(data: SharedMatcherData): Promise<AddressMatcher> {
  const [{ BanIndex }, { Reference }] = await Promise.all([
    import("./index/ban_index.ts"),
    import("./reference/reference.ts"),
  ]);
  return new AddressMatcher({
    indexes: data.indexBuffers.map((b) => new BanIndex(b)),
    reference: new Reference(data.referenceBuffer),
  });
}
