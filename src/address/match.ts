// The address matcher: parse, resolve postcode and city nationwide, find the street in the indexed BAN communes,
// check the house number, then derive the verdict from the reasons (docs/contract.md §4). Pure and synchronous: the worker
// threads run it (workers/match_address.ts), tests and benches call it directly. This file is the orchestrator, read
// top to bottom; each stage lives in match/: parser_fixups.ts and city_written_first.ts (what the parser cannot settle
// alone), place.ts and plan_cache.ts (where to look), search_order.ts and street_search.ts (the street, within
// fuzzy_budget.ts), house_number_check.ts, output.ts.
import type { BanIndex } from "./index/ban_index.ts";
import { cityWrittenFirst } from "./match/city_written_first.ts";
import { checkHouseNumber, type NumberCheck } from "./match/house_number_check.ts";
import {
  answer,
  choosePostcode,
  type DeliveryName,
  DeliveryNames,
  normalizedAddress,
  placeOnly,
  streetAlone,
} from "./match/output.ts";
import {
  cityAlone,
  cityFromStreet,
  cityRepeatedInStreet,
  cityWithoutAdditions,
  keepFrenchCity,
  numberInName,
  postcodeWrittenAmiss,
  type StreetLookups,
} from "./match/parser_fixups.ts";
import { PlanCache, type ScopedTier } from "./match/plan_cache.ts";
import { NEAR_CITY_EDITS } from "./match/fuzzy_budget.ts";
import {
  everyCommune,
  namedWithArticleGlued,
  type Found,
  type HasNumber,
  anyStreetNamed,
  numberPredicate,
  searchAnywhere,
  searchTiers,
  streetQuery,
} from "./match/search_order.ts";
import { exactStreets, nameWordsOf, type StreetHit, type StreetQuery, streetsNamedAs } from "./match/street_search.ts";
import { countryOfPostcode, isFrance } from "./parse/country.ts";
import { type ParsedAddress, parseAddress } from "./parse/parse_address.ts";
import type { Reference } from "./reference/reference.ts";
import type { AddressInput, AddressReason, AddressVerification, NormalizedAddress } from "./types.ts";

export interface MatcherOptions {
  indexes: readonly BanIndex[];
  reference: Reference;
}

export class AddressMatcher {
  readonly #indexes: ReadonlyMap<string, BanIndex>;
  readonly #ref: Reference;
  readonly #plans: PlanCache;
  readonly #deliveryNames: DeliveryNames;

  constructor(options: MatcherOptions) {
    this.#indexes = new Map(options.indexes.map((i) => [i.departement, i]));
    this.#ref = options.reference;
    this.#plans = new PlanCache({ indexes: this.#indexes, reference: this.#ref });
    this.#deliveryNames = new DeliveryNames(this.#ref);
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

  #wholeStreetKnown(p: ParsedAddress): boolean {
    if (p.city !== null || p.postcode !== null || p.cedexDepartement !== null || p.street === null) return false;
    const num = p.houseNumber === null ? null : Number(p.houseNumber);
    return searchAnywhere(streetQuery(p.street), this.#indexes.values(), numberPredicate(num)) !== null;
  }

  /** A city and no postcode, and the city names no commune, even one slip away: "Pairs" is one slip from Paris and
   *  from Paars alike (place.ts). */
  #cityNamesNothing(p: ParsedAddress, plan: { tiers: readonly unknown[]; reasons: readonly AddressReason[] }): boolean {
    return (
      p.postcode === null &&
      p.city !== null &&
      plan.tiers.length === 0 &&
      plan.reasons.includes("postcode_city_mismatch")
    );
  }

  /**
   * "10 rue de Rivoli, Pairs": the street, by its exact name, in the one place of the indexes that has it (as for a line
   * with no locality), when that commune's name is at most two slips from the city written. The street settles what
   * the city alone could not; the answer says the city was corrected.
   */
  #streetOfNearCity(p: ParsedAddress, query: StreetQuery, hasNumber: HasNumber): Found | null {
    const found = searchAnywhere(query, this.#indexes.values(), hasNumber);
    if (found === null) return null;
    const insee = found.hit.index.communeCode(found.hit.street);
    return this.#ref.namesNearly(p.city!, insee, NEAR_CITY_EDITS) ? found : null;
  }

  /**
   * "12 rue de Rivoli pari", no comma and no postcode: the last word, a city misspelt, was read into the street. The
   * words before it, by their exact name, in the one place of the indexes that has them (as for a line with no
   * locality), when that commune's name is at most two slips from the last word; `city_corrected`.
   */
  #streetBeforeNearCity(street: string, hasNumber: HasNumber): Found | null {
    const words = street.split(/\s+/);
    if (words.length < 3) return null;
    const city = words.at(-1)!;
    const found = searchAnywhere(streetQuery(words.slice(0, -1).join(" ")), this.#indexes.values(), hasNumber);
    if (found === null) return null;
    const insee = found.hit.index.communeCode(found.hit.street);
    return this.#ref.namesNearly(city, insee, NEAR_CITY_EDITS) ? found : null;
  }

  /** True when some indexed commune (of the département, when one is given) has a street of exactly this name (the
   *  parser fix-ups ask it). */
  readonly #streetKnown = (street: string, departement?: string): boolean => {
    const indexes = departement === undefined ? [...this.#indexes.values()] : [this.#indexes.get(departement)];
    const scopes = everyCommune(indexes.filter((i) => i !== undefined));
    return exactStreets(streetQuery(street), scopes).some((h) => h.cost === 0);
  };

  /** True when some indexed street has this name once an article is glued to the word after it. */
  readonly #namedOnceGlued = (street: string): boolean =>
    namedWithArticleGlued(streetQuery(street), everyCommune(this.#indexes.values()));

  /** True when some indexed street has this name, under any type or none (the parser fix-ups ask it). */
  readonly #streetNamed = (text: string): boolean =>
    anyStreetNamed(streetQuery(text), everyCommune(this.#indexes.values()));

  /** The three, for the fix-ups that split a city off a street. */
  readonly #lookups: StreetLookups = {
    known: this.#streetKnown,
    namedOnceGlued: this.#namedOnceGlued,
    named: this.#streetNamed,
  };

  /**
   * "Avenue du Maine, Paris": the street is in the 14th and the 15th, the postcode is missing and no number tells
   * which. The street is named, with the city they share and without a postcode (`postcode` empty, the street's
   * postcodes in `postcode_candidates`); the reasons already say what is missing (docs/decisions.md, "A street of
   * several postcodes"). Null when its parts are delivered under different names: the city is not known either.
   */
  #streetOfSeveralPostcodes(
    found: Found,
    scoped: readonly ScopedTier[],
    number: { text: string; suffix: string | null } | null = null,
    hasNumber?: HasNumber,
  ): NormalizedAddress | null {
    const scopes = scoped.find((s) => s.tier === found.tier)?.scopes ?? [];
    const postcodes = new Set<string>();
    let delivery: DeliveryName | null = null;
    for (const hit of streetsNamedAs(found.hit, scopes)) {
      // With a number, the parts that list it.
      if (number !== null && hasNumber !== undefined && !hasNumber(hit)) continue;
      const insee = hit.index.communeCode(hit.street);
      for (const postcode of hit.index.streetPostcodes(hit.street)) {
        const name = this.#deliveryNames.get(postcode, insee);
        if (delivery !== null && delivery.city !== name.city) return null;
        delivery ??= name;
        postcodes.add(postcode);
      }
    }
    if (delivery === null) return null;
    const candidates = [...postcodes].sort();
    const postcode = candidates.length === 1 ? candidates[0]! : "";
    return streetAlone(found.hit.index.streetName(found.hit.street), postcode, delivery, candidates, number);
  }

  #match(input: AddressInput): Omit<AddressVerification, "duration_ms"> {
    // 1. Parse; what the parser cannot settle alone is settled against the reference.
    const p = parseAddress(input);
    if (p.country !== null && p.countryFrom !== null) keepFrenchCity(p, this.#ref);
    if (p.country !== null && !isFrance(p.country)) return answer(["country_not_covered"], null);
    if (p.postcode !== null && countryOfPostcode(p.postcode) !== null) return answer(["country_not_covered"], null);
    cityWithoutAdditions(p, this.#ref);
    postcodeWrittenAmiss(p, this.#ref, this.#streetKnown);
    cityWrittenFirst(p, this.#plans, this.#ref, this.#streetKnown);
    cityAlone(p, this.#ref, this.#streetNamed);
    // "43 rue de Lille" with no locality: a street the index knows whole keeps its last word ("Lille" is a commune
    // too); otherwise trailing words that name a commune are read as the city.
    if (!this.#wholeStreetKnown(p)) cityFromStreet(p, this.#ref, this.#lookups);
    cityRepeatedInStreet(p, this.#ref, this.#streetKnown);

    // 2. The place: where to look for the street, and whether those communes are indexed.
    const plan = this.#plans.get(p);
    const reasons = new Set<AddressReason>(plan.reasons);
    const { coverage } = plan;
    // A real postcode that does not serve the named commune is known without street data (every commune of France ships with the service).
    const mismatch = plan.postcode !== null && plan.notFound.includes("postcode_city_mismatch");
    // A CEDEX code, or a postcode La Poste's table does not list (delivery codes), says only its département:
    // outside the indexed ones that is unknown, never a guess.
    const deliveryOnly = !coverage.covered && !this.#indexes.has(cedexOrUnlistedDepartement(p, plan) ?? "");
    const notCovered =
      (coverage.communes > 0 && !coverage.covered) || (cedexOrUnlistedDepartement(p, plan) !== null && deliveryOnly);
    const unsearched = plan.unsearched ?? [];
    // "99999": a postcode of no département, neither a commune's nor a delivery code: with a street, whatever the city,
    // the address names no place (it was `postcode_not_covered` beside a commune outside the indexes).
    const nowhere = postcodeOfNowhere(p, plan);
    if (p.street === null) {
      reasons.add("missing_street");
      for (const r of unsearched) reasons.add(r);
      if (notCovered && !mismatch) {
        reasons.delete("postcode_city_mismatch");
        reasons.add("postcode_not_covered");
      }
      for (const r of plan.notFound) if (r === "postcode_city_mismatch" && (mismatch || !notCovered)) reasons.add(r);
      // "99999 Belfort": the place is the city's, under its own postcode; the answer says the postcode changed.
      const place = placeOnly(p, plan, this.#ref);
      if (place !== null && p.postcode !== null && place.postcode !== p.postcode && !reasons.has("missing_postcode"))
        reasons.add("postcode_corrected");
      return answer(reasons, place);
    }
    if (notCovered) {
      if (mismatch || nowhere) return answer([...reasons, "postcode_city_mismatch"], null);
      reasons.delete("postcode_city_mismatch");
      return answer([...reasons, ...unsearched, "postcode_not_covered"], null);
    }

    // 3. The street, in the plan's order.
    if (!plan.anywhere) numberInName(p, plan.scoped);
    const query = streetQuery(p.street);
    const num = p.houseNumber === null ? null : Number(p.houseNumber);
    const hasNumber = numberPredicate(num);
    let found = plan.anywhere
      ? searchAnywhere(query, this.#indexes.values(), hasNumber)
      : searchTiers(query, plan.scoped, hasNumber);
    if (!found && this.#cityNamesNothing(p, plan)) {
      found = this.#streetOfNearCity(p, query, hasNumber);
      if (found) {
        reasons.delete("postcode_city_mismatch");
        reasons.add("city_corrected");
      }
    }
    if (!found && plan.anywhere) {
      const split = this.#streetBeforeNearCity(p.street, hasNumber);
      if (split) {
        found = split;
        reasons.delete("missing_city");
        reasons.add("city_corrected");
      }
    }
    if (!found) {
      if (mismatch)
        return answer(
          [...reasons, "postcode_city_mismatch", ...(coverage.covered ? ["street_not_found" as const] : [])],
          null,
        );
      if ((coverage.uncovered && !coverage.firstCovered) || (plan.anywhere && this.#indexes.size === 0))
        return answer([...reasons, ...unsearched, "postcode_not_covered"], null);
      if (plan.anywhere) {
        // "rue de Rivoli", in two arrondissements, with no number to choose: the street is real, the number missing.
        if (num === null && this.#streetKnown(p.street)) reasons.add("missing_house_number");
        return answer(reasons, null);
      }
      for (const r of plan.notFound) reasons.add(r);
      reasons.add("street_not_found");
      return answer(reasons, null);
    }
    for (const r of found.tier.onFound) reasons.add(r);
    if (found.fuzzy || found.hit.cost > 0) reasons.add("street_corrected");

    // "2 Place de la République, 08330 Vrigne aux Bois": the commune's former communes each have the street; the part
    // under the postcode written, when it has the number, is the one meant (the search took the first with the number).
    const { index: foundIndex, street: foundStreet } = found.hit;
    if (
      plan.postcode !== null &&
      foundIndex.streetPostcode(foundStreet) !== plan.postcode &&
      !foundIndex.streetPostcodes(foundStreet).has(plan.postcode)
    ) {
      const part = partUnderPostcode(found, plan.scoped, plan.postcode, hasNumber, num);
      if (part !== null) found = { ...found, hit: part };
    }

    // 4. The house number.
    let check: NumberCheck | null = null;
    if (num === null) reasons.add("missing_house_number");
    else {
      check = checkHouseNumber(found.hit.index, { street: found.hit.street, number: num, suffix: p.suffix });
      const within = check.status === "out_of_range" ? numberWithinSameStreet(found, plan.scoped, num, p.suffix) : null;
      if (within !== null) ({ found, check } = within);
      else if (check.status === "out_of_range") reasons.add("house_number_out_of_range");
    }
    const { index, street } = found.hit;

    // 5. The postcode and the normalized address.
    const postcode = choosePostcode(found.hit, check, plan);
    if (p.postcode !== null && p.postcode !== postcode && !reasons.has("missing_postcode"))
      reasons.add("postcode_corrected");
    if (p.cedexDepartement !== null && p.cedexPostcode !== postcode) reasons.add("postcode_corrected");
    // "rue de Rivoli, Paris": with no number to tell (none, or one the street does not have), a street of several
    // communes of the tier has no one postcode. Without a number the street is still named; with a number it does not
    // have, the address is none of its parts'.
    const numberTells = check !== null && check.status !== "out_of_range";
    if (!numberTells && inSeveralCommunes(found, plan.scoped))
      return answer(
        reasons,
        num === null && reasons.has("missing_postcode") ? this.#streetOfSeveralPostcodes(found, plan.scoped) : null,
      );
    // The same in one commune of several postcodes, with none written and no number: the street's usual postcode
    // would be a guess; and with a number listed in two former communes' parts of the street under two postcodes
    // ("2 Place de la République, Vrigne aux Bois": 08330 and 08350), which the search took the first of.
    if (reasons.has("missing_postcode")) {
      const several =
        num === null
          ? index.streetPostcodes(street).size > 1 || partsElsewhere(found, plan.scoped, () => true).length > 0
          : check?.row != null && partsElsewhere(found, plan.scoped, hasNumber).length > 0;
      if (several) {
        const number = num === null || check === null ? null : { text: String(num), suffix: check.suffix };
        return answer(reasons, this.#streetOfSeveralPostcodes(found, plan.scoped, number, hasNumber));
      }
    }
    const delivery = this.#deliveryNames.get(postcode, index.communeCode(street));
    return answer(reasons, normalizedAddress({ found: found.hit, num, check, postcode, delivery }));
  }
}

/**
 * "149 Rue Haxo, Paris": the street is in the 19th and the 20th, and 149, unlisted, lies within the 19th's numbers
 * (with 75019 it is deliverable); the search, which breaks ties by numbers listed, took the 20th's, where 149 is out
 * of range, and the line was `nonexistent`. The same street in another commune of the tier whose numbers take the
 * number in is the street.
 */
function numberWithinSameStreet(
  found: Found,
  scoped: readonly ScopedTier[],
  num: number,
  suffix: string | null,
): { found: Found; check: NumberCheck } | null {
  const scopes = scoped.find((s) => s.tier === found.tier)?.scopes ?? [];
  const { index, street } = found.hit;
  const commune = index.st.stCommune[street];
  const words = nameWordsOf(index.streetName(street));
  for (const hit of streetsNamedAs(found.hit, scopes)) {
    // Another commune's part of this street, or another former commune's of this one under the same name: not another
    // street of this commune that the key reads alike ("Rue sous les Vignes" beside "Rue des Vignes").
    if (hit.street === street && hit.index === index) continue;
    if (
      hit.index === index &&
      hit.index.st.stCommune[hit.street] === commune &&
      index.streetName(hit.street) !== index.streetName(street)
    )
      continue;
    if (nameWordsOf(hit.index.streetName(hit.street)) !== words) continue;
    const check = checkHouseNumber(hit.index, { street: hit.street, number: num, suffix });
    if (check.status !== "out_of_range") return { found: { ...found, hit }, check };
  }
  return null;
}

/** The other parts of the street found in its own commune (the same name as BAN writes it, another former commune's,
 *  index/builder.ts) under another postcode, that `keep` accepts. */
function partsElsewhere(found: Found, scoped: readonly ScopedTier[], keep: HasNumber): StreetHit[] {
  const scopes = scoped.find((s) => s.tier === found.tier)?.scopes ?? [];
  const { index, street } = found.hit;
  const commune = index.st.stCommune[street];
  const name = index.streetName(street);
  const postcode = index.streetPostcode(street);
  return streetsNamedAs(found.hit, scopes).filter(
    (hit) =>
      hit.index === index &&
      hit.street !== street &&
      index.st.stCommune[hit.street] === commune &&
      index.streetPostcode(hit.street) !== postcode &&
      index.streetName(hit.street) === name &&
      keep(hit),
  );
}

/** The same street (its name as BAN writes it) in the same commune, under `postcode` and with the number (or none
 *  written): another former commune's part of it (index/builder.ts keeps them apart). */
function partUnderPostcode(
  found: Found,
  scoped: readonly ScopedTier[],
  postcode: string,
  hasNumber: HasNumber,
  num: number | null,
): StreetHit | null {
  const scopes = scoped.find((s) => s.tier === found.tier)?.scopes ?? [];
  const { index, street } = found.hit;
  const commune = index.st.stCommune[street];
  const name = index.streetName(street);
  for (const hit of streetsNamedAs(found.hit, scopes)) {
    if (hit.index !== index || hit.street === street || index.st.stCommune[hit.street] !== commune) continue;
    if (index.streetName(hit.street) !== name || !index.streetPostcodes(hit.street).has(postcode)) continue;
    if (num === null || hasNumber(hit)) return hit;
  }
  return null;
}

/** Whether the street found has its name, under its type, in another commune of the tier it was found in. */
function inSeveralCommunes(found: Found, scoped: readonly ScopedTier[]): boolean {
  const scopes = scoped.find((s) => s.tier === found.tier)?.scopes ?? [];
  const communes = new Set(
    streetsNamedAs(found.hit, scopes).map((h) => `${h.index.departement} ${h.index.communeCode(h.street)}`),
  );
  return communes.size > 1;
}

/** A postcode of five figures that no commune has, whose first two are no département's nor an overseas
 *  collectivity's ("99999", "00100", "96000"): no delivery code of anywhere either. (New Caledonia's secondary
 *  postcodes, 988xx, are real though no package lists them.) */
function postcodeOfNowhere(p: ParsedAddress, plan: { postcode: string | null }): boolean {
  return (
    p.postcode !== null &&
    p.cedexDepartement === null &&
    plan.postcode === null &&
    /^(?:00|96|99)\d{3}$/.test(p.postcode)
  );
}

/** The département a CEDEX line or a postcode absent from the nationwide table points to; null otherwise. */
function cedexOrUnlistedDepartement(p: ParsedAddress, plan: { postcode: string | null }): string | null {
  if (p.cedexDepartement !== null) return p.cedexDepartement;
  if (p.postcode === null || plan.postcode !== null || !/^\d{5}$/.test(p.postcode)) return null;
  const departement = p.postcode.startsWith("97") ? p.postcode.slice(0, 3) : p.postcode.slice(0, 2);
  // Only a département that exists ("99999" is no CEDEX code of anywhere: a mismatch).
  return /^(?:0[1-9]|[1-8]\d|9[0-5]|97[1-6])$/.test(departement) ? departement : null;
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
