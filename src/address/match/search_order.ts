// The search order (docs/decisions.md, "Street search order"): exact names in every tier of the plan before any
// fuzzy match, then fuzzy tier by tier with the budget shrinking past the first tier; or, with no place at all, exact
// names in every indexed département. The street lookups themselves are street_search.ts.
import type { BanIndex } from "../index/ban_index.ts";
import { foldAccents } from "../normalize/fold_accents.ts";
import { streetKey } from "../normalize/match_key.ts";
import { isTitle } from "../normalize/person_names.ts";
import { STOP_WORDS } from "../normalize/stop_words.ts";
import { guessStreetType, LIEU_DIT } from "../normalize/street_types.ts";
import { LATER_TIER_MAX_EDITS } from "./fuzzy_budget.ts";
import { initialsOf, initialsStreets, keyDroppedInitial } from "./initials.ts";
import {
  addsTitles,
  cutAtPerson,
  cutNameStreets,
  leavesOut,
  leftOutWordsStreets,
  wordsLeftOutStreets,
} from "./left_out_words.ts";
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
  streetsNamedExactly,
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
 *  query is the name alone (docs/address_rules.md §2 and §6, lieux-dits). */
export function streetQuery(street: string): StreetQuery {
  let key = streetKey(street);
  if (key.type === LIEU_DIT && key.nameTokens.length > 0) key = streetKey(key.nameTokens.join(" "));
  const nameWords = nameWordsOf(street);
  if (key.type === null) {
    const words = key.key.split(" ");
    const guess = words.length > 1 ? guessStreetType(words[0]!, { beforeArticle: beforeArticle(street) }) : null;
    if (guess !== null) {
      const guessed = prepareQuery(streetKey([guess, ...words.slice(1)].join(" ")), { typeGuessed: true, nameWords });
      guessed.unguessed = prepareQuery(key, { nameWords, written: street });
      return guessed;
    }
  }
  return prepareQuery(key, { nameWords, written: street });
}

/** Articles a street type stands before ("rue de", "quai de la", "cours la"). */
const ARTICLE_AFTER_TYPE = /^\S+\s+(?:de|du|des|la|le|les|aux|[dl]['’])/i;

/** Whether the street as written has an article as its second word: its first word is then likely a type. */
function beforeArticle(street: string): boolean {
  return ARTICLE_AFTER_TYPE.test(street.trim());
}

/** Articles that begin many names once glued to the next word (Lepic, Letellier, Delambre, Dupetit-Thouars). */
const GLUABLE_ARTICLES: ReadonlySet<string> = new Set(["le", "la", "de", "du"]);

/**
 * The query with one article glued to the word after it: "rue le Pic" is Rue Lepic, "rue Le Tellier" Rue Letellier,
 * "rue de Lambre" Rue Delambre. The match key drops articles, so such a name was two edits away from the query and,
 * when short, not found at all. (The other way round, "rue Lafayette" for Rue la Fayette, the fuzzy pass already
 * finds.)
 */
function gluedArticles(q: StreetQuery): StreetQuery[] {
  if (q.gluedArticles !== undefined) return q.gluedArticles;
  const words = q.written.toLowerCase().split(/[\s-]+/);
  const out: StreetQuery[] = [];
  for (let i = 0; i + 1 < words.length; i++) {
    const next = words[i + 1]!;
    if (!GLUABLE_ARTICLES.has(words[i]!) || next.length < 2 || STOP_WORDS.has(next)) continue;
    const key = streetKey([...words.slice(0, i), words[i]! + next, ...words.slice(i + 2)].join(" "));
    if (key.key !== q.key.key) out.push(prepareQuery(key, { nameWords: q.nameWords }));
  }
  q.gluedArticles = out;
  return out;
}

/**
 * The query with its type word read as the first word of the name, where some street of the scopes has a name that
 * begins with that word. Many names do ("Rue du Faubourg Saint-Antoine", "Avenue de la Porte de Vincennes", "Rue du
 * Chemin Vert", "Rue de la Chaussée d'Antin": about 130 of Paris's 7,400 streets), and people drop what comes before
 * it: "10 faubourg Saint-Antoine". Read only as a type, the word found another street named after the rest, under
 * another type ("Passage Saint-Antoine", "Cours de Vincennes"), and answered it `corrected`. Null for a query without
 * a type as written, or in scopes where no name begins with it (most types, "rue" among them, never do).
 */
function typeWordAsName(q: StreetQuery, scopes: readonly CommuneScope[]): StreetQuery | null {
  const { key } = q;
  if (q.typeGuessed || key.type === null || key.nameTokens.length === 0) return null;
  const typeWords = key.type.split(" ");
  // The word as written when it is the type's plural: "Jardins Saint-Paul" begins Rue des Jardins Saint-Paul, where
  // the type read is "jardin".
  const written = foldAccents(q.written.split(/\s/, 1)[0]!.toLowerCase());
  if (written === `${typeWords[0]}s` || written === `${typeWords[0]}x`) typeWords[0] = written;
  if (!scopes.some((s) => s.index.hasNameHead(typeWords[0]!))) return null;
  const words = [...typeWords, ...key.nameTokens];
  q.typeAsName ??= prepareQuery(
    { key: words.join(" "), type: null, name: words.join(" "), nameTokens: words },
    { nameWords: q.nameWords, nameHead: typeWords[0]! },
  );
  return q.typeAsName;
}

/** Exact names in a tier: the key as written; when no street there has it, the type word read as the name's first
 *  word (typeWordAsName), which then misses only the type ("faubourg saint antoine" for Rue du Faubourg…). */
function exactInTier(q: StreetQuery, scopes: readonly CommuneScope[]): StreetHit[] {
  // A name whose first word was taken for a misspelt type, as written, first: "Tour des Dames" is no Cour des Dames,
  // and a lieu-dit "Gué de la Vallée" no Rue de la Vallée, when both are there.
  const asWritten = q.unguessed === null ? [] : exactStreets(q.unguessed, scopes);
  if (asWritten.length > 0) return asWritten;
  const hits = exactStreets(q, scopes);
  if (hits.length > 0) return hits;
  const asName = typeWordAsName(q, scopes);
  const named = asName === null ? [] : streetsNamedExactly(asName, scopes);
  return named.length > 0 ? named : hits;
}

/** The fuzzy winners of a tier (null when streets are near but none clearly nearest), and the reading of the query
 *  that found them; null when no street is near. When the winner of the query as written
 *  has another type than the one written (or there is none), the type word is also read as the name's first word
 *  (typeWordAsName). */
function fuzzyInTier(
  q: StreetQuery,
  scopes: readonly CommuneScope[],
  maxEdits: number,
  hasNumber: HasNumber,
): { query: StreetQuery; winners: StreetHit[] | null } | null {
  const hits = fuzzyStreets(q, scopes, { maxEdits });
  const winners = clearWinner(hits, hasNumber);
  if (winners !== null && winners[0]!.scores.type === 0) return { query: q, winners };
  const asName = typeWordAsName(q, scopes);
  const asNameHits = asName === null ? [] : fuzzyStreets(asName, scopes, { maxEdits });
  // The reading whose nearest street costs less decides, and on a tie the one that accounts for every word written;
  // ambiguous under it ("parc montsouris": Rue and Villa du Parc de Montsouris), it corrects nothing.
  if (asName !== null && asNameHits.length > 0 && asNameHits[0]!.cost <= (hits[0]?.cost ?? Infinity)) {
    return { query: asName, winners: clearWinner(asNameHits, hasNumber) };
  }
  return hits.length === 0 ? null : { query: q, winners };
}

/** Whether a street of the scopes has the query's name exactly, under a type the query leaves out (one or several:
 *  "la Fontaine" for Square, Rue and Hameau la Fontaine names none of them, and no Rue Jean de la Fontaine either). */
function namedExactlyButType(q: StreetQuery, scopes: readonly CommuneScope[]): boolean {
  return fuzzyStreets(q, scopes, { maxEdits: 0 }).some((h) => h.scores.name === 0);
}

/** Whether some street of the scopes' indexes, in any commune, has the query's name exactly under any type or none
 *  (one probe of each index's name table), read as written too when its type was guessed from a misspelt first word
 *  ("Mont Dore" for Rue du Mont Dore), or with the type word as the name's first word. A type word alone counts as a
 *  street's: it is no name of anything else. */
export function anyStreetNamed(q: StreetQuery, scopes: readonly CommuneScope[]): boolean {
  if (q.bareType) return true;
  const indexes = new Set(scopes.map((s) => s.index));
  const ids: number[] = [];
  for (const reading of [q, q.unguessed, typeWordAsName(q, scopes)]) {
    if (reading === null || reading.nameBytes.length === 0) continue;
    for (const index of indexes) index.byName(reading.nameBytes, ids);
    if (ids.length > 0) return true;
  }
  return false;
}

/** fuzzyInTier, and for a query whose type was guessed from a misspelt first word, the query as written too: "Tour des
 *  Dames" is Rue de la Tour des Dames (its type left out), not Cour des Dames; the cheaper winner decides. */
function fuzzyReadings(
  q: StreetQuery,
  scopes: readonly CommuneScope[],
  maxEdits: number,
  hasNumber: HasNumber,
): ReturnType<typeof fuzzyInTier> {
  const found = fuzzyInTier(q, scopes, maxEdits, hasNumber);
  if (q.unguessed === null) return found;
  const asWritten = fuzzyInTier(q.unguessed, scopes, maxEdits, hasNumber);
  const cost = (f: typeof found) => f?.winners?.[0]?.cost ?? Infinity;
  return cost(asWritten) < cost(found) ? asWritten : (found ?? asWritten);
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
  const droppedInitial = keyDroppedInitial(q);
  for (const { tier, scopes } of scoped) {
    const winners = clearWinner(exactInTier(q, scopes), hasNumber);
    // Initials spell a street of this place before any exact name of a later one, and before any slip: "12 av. A.
    // France 75007" is Avenue Anatole France (its number out of range), not Avenue de France in the 13th ("a" read as
    // "à"); "rue V. du Temple" is Rue Vieille du Temple, not Rue du Temple one word short, "rue D. d'Angers" Rue David
    // d'Angers, not Rue de Tanger. A letter written with its period that the key read as an article is an initial even
    // where the key names a street: "2 Rue A. Le Boucher" is Rue Aubry Le Boucher, not the key's Rue Boucher, and "Rue
    // A. Lefebvre" Rue André Lefebvre, not Rue Lefebvre, which has the number too (it answered deliverable).
    if (!winners || droppedInitial) {
      const read = initialsInTier(q, scopes, hasNumber);
      if (read !== null) return { hit: read, tier, fuzzy: true };
      if (!winners) continue;
    }
    const hit = pickByNumber(winners, hasNumber);
    // "12 Rue de Rivoli, 75001": Rivoli exists in the 1st but number 12 is in the 4th: the postcode is wrong.
    if (hasNumber(hit) || fallback !== null) return fallback ?? { hit, tier, fuzzy: false };
    fallback = { hit, tier, fuzzy: false };
    const later = scoped.slice(scoped.findIndex((s) => s.tier === tier) + 1);
    for (const other of later) {
      const more = exactInTier(q, other.scopes).filter((h) => h.cost === hit.cost && hasNumber(h));
      if (more.length > 0) return { hit: more[0]!, tier: other.tier, fuzzy: false };
    }
    // Given names as initials that spell a street with the number, over a name without it: "5 avenue A. France 75007"
    // is Avenue Anatole France, not Avenue de France in the 13th ("a" read as "à"), which has no number 5. (Initials
    // only: the other readings of the last resort cost every line whose number is out of range.)
    const read = searchInitials(q, scoped, hasNumber);
    return read !== null && hasNumber(read.hit) ? read : fallback;
  }
  // Then, tier by tier, the same name under another (or no) street type and typos, ranked by cost.
  for (const [i, { tier, scopes }] of scoped.entries()) {
    // In the first tier, before any slip of the name, a title or given name left out: every word written is the
    // street's, where a fuzzy hit changes one ("12 rue Lemoine 75005" is Rue du Cardinal Lemoine, not Passage Lemoine
    // in the 2nd; "rue Curie" Rue Pierre et Marie Curie, not Rue Cuvier; "rue Mazet" Rue André Mazet, not Rue Mayet;
    // "rue Dumas" Rue Alexandre Dumas, not Passage Dumas).
    if (i === 0) {
      const cut = cutNameStreets(q, scopes);
      const winners =
        clearWinner(leftOutWordsStreets(q, scopes, leavesOut), hasNumber) ??
        clearWinner(cutAtPerson(q, cut), hasNumber);
      // Not over a street of the very name written, its type left out: "10 Cottin 75018" is Passage Cottin, not Rue
      // Jean Cottin.
      if (winners && !(q.key.type === null && namedExactlyButType(q, scopes))) {
        return { hit: pickByNumber(winners, hasNumber), tier, fuzzy: true };
      }
      // A name cut short, before any slip of it: the one street whose name begins so, and none when several do. "10
      // rue du Moulin 75013" names Rue du Moulin des Prés and Rue du Moulin de la Pointe alike, where the fuzzy pass
      // corrected it to Rue du Moulinet (and to Rue Merlin in the 11th, where Rue du Moulin Joly is).
      if (cut.length > 0) {
        const cutWinners = clearWinner(cut, hasNumber);
        if (cutWinners === null) break;
        return { hit: pickByNumber(cutWinners, hasNumber), tier, fuzzy: true };
      }
    }
    const found = fuzzyReadings(q, scopes, i === 0 ? q.maxEdits : LATER_TIER_MAX_EDITS, hasNumber);
    // A title added ("avenue du Maréchal Foch" for Avenue Foch) only when no street is one slip away: "rue du Général
    // Leclerc 75014" is Avenue du Général Leclerc, every word of its name written, not Rue Leclerc.
    if (i === 0 && (found?.winners == null || found.winners[0]!.scores.name > 1)) {
      const winners = clearWinner(leftOutWordsStreets(q, scopes, addsTitles), hasNumber);
      if (winners) return { hit: pickByNumber(winners, hasNumber), tier, fuzzy: true };
    }
    // A word of the name left out, with the type and the number written, over another type or two slips: "2 Impasse
    // du Moulin" is Impasse Sous-le-Moulin, which has the 2, not Rue du Moulin (left_out_words.ts).
    const nearest = found?.winners?.[0];
    if (
      i === 0 &&
      hasNumber !== hasNoNumber &&
      (nearest === undefined || nearest.scores.name > 1 || nearest.scores.type > 0)
    ) {
      const winners = clearWinner(wordsLeftOutStreets(q, scopes, hasNumber));
      if (winners) return { hit: winners[0]!, tier, fuzzy: true };
    }
    // Several streets of the first tier equally near ("10 Voltaire 75011": Boulevard, Cité, Impasse Voltaire): the
    // place the user gave has no one answer, and a later tier's single street of that name (Quai Voltaire, 75006) is
    // no better a guess.
    if (i === 0 && found !== null && found.winners === null) break;
    if (found?.winners) {
      const { query, winners } = found;
      const hit = pickByNumber(winners, hasNumber);
      // A name of titles only names no one, and a slip of it another street: "12 rue du Général 75020" was Rue du
      // Sénégal, "rue du Père" Rue de la Perle, "rue du Colonel" Rue de la Colonie. (Written so, it is a street's:
      // "Monsieur", "Pasteur", "Madame" found without their type.)
      if (hit.scores.name > 0 && q.key.nameTokens.every(isTitle)) break;
      // Beyond the length budget only with the evidence of a wide lead (fuzzy_budget.ts, STRETCH_LEAD).
      if (!stretchIsClear(query, scopes, hit, hasNumber)) continue;
      // A slip in a place the user did not give, with a house number that street lacks: three things wrong at once,
      // and no evidence for any ("72 Rue de Pitet, 75018" was Rue Pihet in the 11th, `house_number_out_of_range`).
      if (i > 0 && hit.scores.name > 0 && hasNumber !== hasNoNumber && !hasNumber(hit)) continue;
      // "12 rue de Rivolli, 75001": the corrected street lacks the number here but has it in a later tier under the
      // same name: a typo and a wrong arrondissement together.
      const elsewhere = hasNumber(hit) ? null : numberInLaterTier(hit, scoped.slice(i + 1), hasNumber);
      if (elsewhere !== null) return { ...elsewhere, fuzzy: elsewhere.hit.scores.name > 0 };
      return { hit, tier, fuzzy: hit.scores.name > 0 };
    }
  }
  return searchLastResort(q, scoped, hasNumber);
}

/** The readings of a query tried when no spelling of its name was near enough, in this order. */
function searchLastResort(q: StreetQuery, scoped: readonly ScopedTier[], hasNumber: HasNumber): Found | null {
  return (
    searchAmbiguousAbbreviations(q, scoped, hasNumber) ??
    searchGluedArticles(q, scoped, hasNumber) ??
    searchUngluedArticles(q, scoped, hasNumber) ??
    searchReadings(elidedArticles(q), scoped, hasNumber) ??
    searchDoubledLetters(q, scoped, hasNumber) ??
    searchInitials(q, scoped, hasNumber)
  );
}

/** Words written short that stand for several ("pte": porte, pointe or petite; "pr": professeur or père), so that
 *  normalize/expand_abbrev.ts leaves them as written. "Cap." is the title Capitaine as officers' names are written
 *  across France ("rue du Cap. Ferber") and a headland's word as written ("Rue du Cap Vert"), which the key keeps. */
const AMBIGUOUS_ABBREVIATIONS: ReadonlyMap<string, readonly string[]> = new Map([
  ["pte", ["porte", "pointe", "petite"]],
  ["pr", ["professeur", "pere"]],
  ["cap", ["capitaine", "cap"]],
]);

/** Two ambiguous abbreviations in one name, at most three ways each. */
const MAX_ABBREVIATION_READINGS = 9;

/** The query with each ambiguous abbreviation of its name spelled out each way ("av de la pte de Clichy": Avenue de
 *  la Porte de Clichy; "rue de la pte d'Ivry": Rue de la Pointe d'Ivry); the index says which one exists. */
function ambiguousAbbreviations(q: StreetQuery): StreetQuery[] {
  if (q.ambiguousAbbreviations !== undefined) return q.ambiguousAbbreviations;
  let names: string[][] = [[...q.key.nameTokens]];
  for (const [i, token] of q.key.nameTokens.entries()) {
    const words = AMBIGUOUS_ABBREVIATIONS.get(token);
    if (words !== undefined) names = names.flatMap((n) => words.map((w) => n.with(i, w)));
    // Readings multiply with each such word: a name has one or two, a hostile line dozens.
    if (names.length > MAX_ABBREVIATION_READINGS) {
      names = [];
      break;
    }
  }
  q.ambiguousAbbreviations = names.length <= 1 ? [] : names.map((nameTokens) => readingOf(q, nameTokens));
  return q.ambiguousAbbreviations;
}

/** An ambiguous abbreviation spelled out the one way the index has, exact: an abbreviation read, no slip corrected. */
function searchAmbiguousAbbreviations(
  q: StreetQuery,
  scoped: readonly ScopedTier[],
  hasNumber: HasNumber,
): Found | null {
  const readings = ambiguousAbbreviations(q);
  if (readings.length === 0) return null;
  const found = searchEachTier(scoped, hasNumber, (scopes) => readings.flatMap((r) => exactStreets(r, scopes)));
  return found && { ...found, fuzzy: false };
}

/** When no spelling of the name was near enough, an article glued to the next word (gluedArticles), exact. Last,
 *  since it is tried on the lines nothing else found; a slip of the name's spacing, so `street_corrected`, as the
 *  fuzzy pass answers "rue de Lambre" (Delambre) and "rue le Courbe" (Lecourbe). */
function searchGluedArticles(q: StreetQuery, scoped: readonly ScopedTier[], hasNumber: HasNumber): Found | null {
  return searchReadings(gluedArticles(q), scoped, hasNumber);
}

/** An article glued to the word it begins, with at least four letters after it (the shortest rest an edit reaches). */
const GLUED_ARTICLE_START = /^(?:le|la|de|du)(?=[a-z]{4})/;

/**
 * The query with an article glued to the next word taken apart: "rue lafayete" is Rue la Fayette. Glued and with a
 * slip ("lafayete" against "fayette", the key dropping "la") the name is three edits away, beyond any budget; apart, the
 * slip is one. Tried after the exact readings, since the rest needs a fuzzy match (searchUngluedArticles).
 */
function ungluedArticles(q: StreetQuery): StreetQuery[] {
  if (q.ungluedArticles !== undefined) return q.ungluedArticles;
  const out: StreetQuery[] = [];
  const { nameTokens } = q.key;
  for (const [i, token] of nameTokens.entries()) {
    const article = GLUED_ARTICLE_START.exec(token);
    if (article !== null) out.push(readingOf(q, nameTokens.with(i, token.slice(article[0].length))));
  }
  q.ungluedArticles = out;
  return out;
}

/**
 * A glued article taken apart (ungluedArticles) and one slip of the rest, within the budget its length allows (never
 * stretched), under the type written, in the first tier only: two corrections at once, so only where the user said
 * the street is. Elsewhere they made streets of invented names ("Passage des Lachaise, 75020" became Rue de la Chaise
 * in the 7th). A street found without the number takes it from a later tier under its own name, as the fuzzy pass
 * does (a typo and a wrong arrondissement together). `street_corrected`.
 */
function searchUngluedArticles(q: StreetQuery, scoped: readonly ScopedTier[], hasNumber: HasNumber): Found | null {
  const readings = ungluedArticles(q);
  const first = scoped[0];
  if (readings.length === 0 || first === undefined) return null;
  const hits = readings
    .flatMap((r) => fuzzyStreets(r, first.scopes, { maxEdits: r.lengthEdits }))
    .filter((h) => q.key.type === null || h.scores.type === 0);
  const winners = clearWinner(hits, hasNumber);
  if (winners === null) return null;
  const hit = pickByNumber(winners, hasNumber);
  const elsewhere = hasNumber(hit) ? null : numberInLaterTier(hit, scoped.slice(1), hasNumber);
  return { ...(elsewhere ?? { hit, tier: first.tier }), fuzzy: true };
}

/** The street of a hit's very name (same type and name) in the first of these tiers where it has the house number. */
function numberInLaterTier(
  hit: StreetHit,
  later: readonly ScopedTier[],
  hasNumber: HasNumber,
): { hit: StreetHit; tier: SearchTier } | null {
  for (const { tier, scopes } of later) {
    const there = streetsNamedAs(hit, scopes).find(hasNumber);
    if (there) return { hit: there, tier };
  }
  return null;
}

/** Whether some street of the scopes has the query's name once an article is glued to the word after it (gluedArticles):
 *  "rue du petit thouars" names Rue Dupetit-Thouars, so its last word is no city (parser_fixups.ts, cityFromStreet). */
export function namedWithArticleGlued(q: StreetQuery, scopes: readonly CommuneScope[]): boolean {
  return gluedArticles(q).some((r) => exactStreets(r, scopes).some((h) => h.cost === 0));
}

/** A word that begins with l or d and a vowel. */
const ELIDED_START = /^[ld][aeiouyh]/;

/**
 * The query with an elided article glued to the next word taken apart ("rue de lEst", "rue de lest": Rue de l'Est),
 * each such word once, for names whose rest is too short for any edit to reach (street_search.ts reaches no name
 * under four letters by an edit). Exact, tried last; a slip of the apostrophe, so `street_corrected`.
 */
function elidedArticles(q: StreetQuery): StreetQuery[] {
  if (q.elidedArticles !== undefined) return q.elidedArticles;
  const out: StreetQuery[] = [];
  const { nameTokens } = q.key;
  for (const [i, token] of nameTokens.entries()) {
    if (ELIDED_START.test(token) && token.length <= MAX_ELIDED_WORD)
      out.push(readingOf(q, nameTokens.with(i, token.slice(1))));
  }
  q.elidedArticles = out;
  return out;
}

/** The longest word taken apart by elidedArticles: its rest, three letters, is what no edit reaches. */
const MAX_ELIDED_WORD = 4;

/** A consonant doubled or undoubled in a name too short for any edit (doubledLetters), exact; `street_corrected`. */
function searchDoubledLetters(q: StreetQuery, scoped: readonly ScopedTier[], hasNumber: HasNumber): Found | null {
  return searchReadings(doubledLetters(q), scoped, hasNumber);
}

/** Another reading of the query: its type, these words of the name; judged as the query was written (nameWords). */
function readingOf(q: StreetQuery, nameTokens: string[]): StreetQuery {
  const { type } = q.key;
  const name = nameTokens.join(" ");
  return prepareQuery(
    { key: type === null ? name : `${type} ${name}`, type, name, nameTokens },
    { nameWords: q.nameWords },
  );
}

/** Other readings of the query, each looked up exactly, tier by tier (searchEachTier); null when there are none. */
function searchReadings(readings: StreetQuery[], scoped: readonly ScopedTier[], hasNumber: HasNumber): Found | null {
  if (readings.length === 0) return null;
  return searchEachTier(scoped, hasNumber, (scopes) => readings.flatMap((r) => exactStreets(r, scopes)));
}

const CONSONANT = /[bcdfglmnprst]/;

/**
 * The query with one consonant doubled or undoubled, for names too short for any edit (fuzzy_budget.ts allows none
 * under four letters): "avenue Rap" is Avenue Rapp, "rue Le Gof" Rue Le Goff. French spelling doubles consonants at
 * will and people miss it; any other slip of a three-letter name makes another name.
 */
function doubledLetters(q: StreetQuery): StreetQuery[] {
  if (q.doubledLetters !== undefined) return q.doubledLetters;
  const out: StreetQuery[] = [];
  const { name } = q.key;
  if (q.maxEdits === 0 && !q.bareType && name !== "") {
    const spellings = new Set<string>();
    for (let i = 0; i < name.length; i++) {
      if (!CONSONANT.test(name[i]!)) continue;
      if (name[i + 1] === name[i]) spellings.add(name.slice(0, i) + name.slice(i + 1));
      else if (name[i - 1] !== name[i]) spellings.add(name.slice(0, i + 1) + name.slice(i));
    }
    for (const spelling of spellings) out.push(readingOf(q, spelling.split(" ")));
  }
  q.doubledLetters = out;
  return out;
}

/** The street of the scopes that the query's initials spell, when one clearly does; null when the query has none. */
function initialsInTier(q: StreetQuery, scopes: readonly CommuneScope[], hasNumber: HasNumber): StreetHit | null {
  const words = initialsOf(q);
  // "pr", "pte" read as consonants stand for a whole word, one of a few (searchAmbiguousAbbreviations).
  if (words === null || words.some((w) => AMBIGUOUS_ABBREVIATIONS.has(w))) return null;
  const winners = clearWinner(initialsStreets(q, words, scopes), hasNumber);
  return winners === null ? null : pickByNumber(winners, hasNumber);
}

/** Given names written as initials ("Rue J.-J. Rousseau", initials.ts). */
function searchInitials(q: StreetQuery, scoped: readonly ScopedTier[], hasNumber: HasNumber): Found | null {
  const words = initialsOf(q);
  if (words === null) return null;
  return searchEachTier(scoped, hasNumber, (scopes) => initialsStreets(q, words, scopes));
}

/**
 * A search of the last resort, tier by tier: the first tier whose clear winner has the house number, or else the first
 * tier that has a clear winner. Such a street took a correction to find (`street_corrected`).
 */
function searchEachTier(
  scoped: readonly ScopedTier[],
  hasNumber: HasNumber,
  hitsIn: (scopes: readonly CommuneScope[]) => StreetHit[],
): Found | null {
  let first: Found | null = null;
  for (const { tier, scopes } of scoped) {
    const winners = clearWinner(hitsIn(scopes), hasNumber);
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
