// The search order (docs/decisions.md, "Street search order"): exact names in every tier of the plan before any
// fuzzy match, then fuzzy tier by tier with the budget shrinking past the first tier; or, with no place at all, exact
// names in every indexed département. The street lookups themselves are street_search.ts.
import type { BanIndex } from "../index/ban_index.ts";
import { streetKey } from "../normalize/match_key.ts";
import { guessStreetType, LIEU_DIT } from "../normalize/street_types.ts";
import { LATER_TIER_MAX_EDITS } from "./fuzzy_budget.ts";
import { initialsOf, initialsStreets } from "./initials.ts";
import type { SearchTier } from "./place.ts";
import type { ScopedTier } from "./plan_cache.ts";
import {
  type CommuneScope,
  clearWinner,
  exactStreets,
  fuzzyStreets,
  nameWordsOf,
  prepareQuery,
  type StreetHit,
  type StreetQuery,
  streetsNamedAs,
  stretchIsClear,
} from "./street_search.ts";

/** The street found, the tier it was found in, and whether it took a fuzzy match to find it. */
export interface Found {
  hit: StreetHit;
  tier: SearchTier;
  fuzzy: boolean;
}

/** Whether a street hit has the house number (always false without one): the tie-breaker of the search. */
export type HasNumber = (h: StreetHit) => boolean;

/** The query for a street; a misspelt type word ("Aveue de Clichy") is guessed when it is one slip from a type.
 *  "Lieu-dit", "ld", "lieudit" only introduce a name: BAN writes the lieu-dit without them ("Le Village"), so the
 *  query is the name alone (docs/address_rules.md §2 and §6, issue 14 §lieux-dits). */
export function streetQuery(street: string): StreetQuery {
  let key = streetKey(street);
  if (key.type === LIEU_DIT && key.nameTokens.length > 0) key = streetKey(key.nameTokens.join(" "));
  const nameWords = nameWordsOf(street);
  if (key.type === null) {
    const words = key.key.split(" ");
    const guess = words.length > 1 ? guessStreetType(words[0]!) : null;
    if (guess !== null)
      return prepareQuery(streetKey([guess, ...words.slice(1)].join(" ")), { typeGuessed: true, nameWords });
  }
  return prepareQuery(key, { nameWords });
}

/** HasNumber for a house number, or for none. */
export function numberPredicate(num: number | null): HasNumber {
  if (num === null) return hasNoNumber;
  return (h) => {
    const r = h.index.numberRange(h.street, num);
    return r[1] > r[0];
  };
}

function hasNoNumber(): boolean {
  return false;
}

/** The street in the plan's tiers, or null when no tier has a clear winner. */
export function searchTiers(q: StreetQuery, scoped: readonly ScopedTier[], hasNumber: HasNumber): Found | null {
  // Exact names in every tier before any fuzzy match: a wrong arrondissement is likelier than a typo.
  let fallback: Found | null = null;
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
    const hits = fuzzyStreets(q, scopes, { maxEdits: i === 0 ? q.maxEdits : LATER_TIER_MAX_EDITS });
    const winners = clearWinner(hits, hasNumber);
    if (winners) {
      const hit = pickByNumber(winners, hasNumber);
      // Beyond the length budget only with the evidence of a wide lead (fuzzy_budget.ts, STRETCH_LEAD).
      if (!stretchIsClear(q, scopes, hit)) continue;
      // "12 rue de Rivolli, 75001": the corrected street lacks the number here but has it in a later tier under the
      // same name: a typo and a wrong arrondissement together (issue 14, item 3).
      if (!hasNumber(hit)) {
        for (const other of scoped.slice(i + 1)) {
          const there = streetsNamedAs(hit, other.scopes).find(hasNumber);
          if (there) return { hit: there, tier: other.tier, fuzzy: there.scores.name > 0 };
        }
      }
      return { hit, tier, fuzzy: hit.scores.name > 0 };
    }
  }
  return searchInitials(q, scoped, hasNumber);
}

/** Last, given names written as initials ("Rue J.-J. Rousseau", initials.ts): the first tier whose street has the
 *  number, or else the first tier that has the street. */
function searchInitials(q: StreetQuery, scoped: readonly ScopedTier[], hasNumber: HasNumber): Found | null {
  const words = initialsOf(q);
  if (words === null) return null;
  let first: Found | null = null;
  for (const { tier, scopes } of scoped) {
    const winners = clearWinner(initialsStreets(q, words, scopes), hasNumber);
    if (!winners) continue;
    const hit = pickByNumber(winners, hasNumber);
    if (hasNumber(hit)) return { hit, tier, fuzzy: true };
    first ??= { hit, tier, fuzzy: true };
  }
  return first;
}

/** Every commune of every index, as search scopes. */
export function everyCommune(indexes: Iterable<BanIndex>): CommuneScope[] {
  return [...indexes].map((index) => ({ index, communes: index.header.communes.map((_, i) => i) }));
}

/** With neither postcode nor city: the exact name in every indexed département, when it designates one place. */
export function searchAnywhere(q: StreetQuery, indexes: Iterable<BanIndex>, hasNumber: HasNumber): Found | null {
  const hits = exactStreets(q, everyCommune(indexes)).filter((h) => h.cost === 0);
  if (hits.length === 0) return null;
  const withNumber = hits.filter(hasNumber);
  const pool = withNumber.length > 0 ? withNumber : hits;
  // Only a street name that designates one place fills in the postcode and city.
  if (pool.length !== 1) return null;
  return { hit: pool[0]!, tier: { communes: [], onFound: [] }, fuzzy: false };
}

function pickByNumber(hits: readonly StreetHit[], hasNumber: HasNumber): StreetHit {
  return hits.find(hasNumber) ?? hits[0]!;
}
