// Given names written as initials or cut short: "Rue J.-J. Rousseau", "Av. V. Hugo", "Pl. Ch. de Gaulle". BAN writes
// them whole, and no edit budget reaches "victor" from "v". In a tier where the exact search finds no street (or where
// the key dropped an initial written with its period), before any slip and before later tiers (search_order.ts), a
// street of the same type whose other words are the query's, and whose given names begin with its initials, is the
// street, when it is the only such name in the tier (clearWinner, with the house number as tie-breaker).
import { foldAccents } from "../normalize/fold_accents.ts";
import { EDIT_COST } from "./fuzzy_budget.ts";
import type { CommuneScope, StreetHit, StreetQuery } from "./street_search.ts";

/** A word that reads as initials: one letter ("j", "v"), or two or three consonants ("jj", "ch", "chr"). */
function isInitials(word: string): boolean {
  return word.length === 1 || /^[b-df-hj-np-tv-z]{2,3}$/.test(word);
}

/** The query's name words, when one of them reads as initials; null otherwise (no search needed). Initials stand
 *  for given names, before a name written whole: a last word is never read as one ("Place Athanase D.B." is not
 *  Place Athanase Bassinet). */
export function initialsOf(q: StreetQuery): string[] | null {
  const words = withWrittenInitials(q.key.name.split(" "), q.written);
  return words.some(isInitials) && !isInitials(words.at(-1)!) ? words : null;
}

/** Whether the key dropped a letter written with its period as an article ("Rue A. Lefebvre" has the key of Rue
 *  Lefebvre): the name as the key reads it leaves out a word the user wrote. */
export function keyDroppedInitial(q: StreetQuery): boolean {
  if (!q.written.includes(".")) return false;
  const words = initialsOf(q);
  return words !== null && words.length > q.key.name.split(" ").length;
}

/** A one-letter word the key drops (stop_words.ts) and its period, then the word after it: "A. France", and past an
 *  article, "D. d'Angers", "D. de Poitiers", "L. du Noüy". */
const DROPPED_LETTER_WITH_PERIOD =
  /(?:^|[^a-z])([adl])\.[\s-]*(?:[dl]['’]\s*|(?:de|du|des|la|le|les)\s+(?:l['’]\s*)?)?([a-z]+)/g;

/**
 * The name's words with the initials written with a period put back where the key dropped them as words: the key
 * reads "a" as "à", "l" and "d" as elided articles ("avenue A. France" has the key "avenue france"). The period says
 * it is an initial; the letter goes before the word that follows it.
 */
function withWrittenInitials(words: string[], written: string): string[] {
  if (!written.includes(".")) return words;
  const out = [...words];
  for (const [, letter, next] of foldAccents(written).toLowerCase().matchAll(DROPPED_LETTER_WITH_PERIOD)) {
    const at = out.indexOf(next!);
    if (at >= 0 && out[at - 1] !== letter) out.splice(at, 0, letter!);
  }
  return out;
}

/**
 * Whether a street's name words spell the query's words, initials standing for whole words: a word cut short ("ch"
 * for Charles, "v" for Victor), or one letter a word ("jj" for Jean-Jacques). Every word is accounted for, in order.
 */
export function spellsWithInitials(query: readonly string[], name: readonly string[], i = 0, j = 0): boolean {
  if (i === query.length) return j === name.length;
  if (j >= name.length) return false;
  const word = query[i]!;
  if (word === name[j]) return spellsWithInitials(query, name, i + 1, j + 1);
  if (!isInitials(word)) return false;
  if (name[j]!.length > word.length && name[j]!.startsWith(word) && spellsWithInitials(query, name, i + 1, j + 1))
    return true;
  if (word.length < 2 || j + word.length > name.length) return false;
  for (let k = 0; k < word.length; k++) if (name[j + k]!.length < 2 || name[j + k]![0] !== word[k]) return false;
  return spellsWithInitials(query, name, i + 1, j + word.length);
}

/** Streets of the scopes whose name the query spells with initials, under the query's own street type. */
export function initialsStreets(
  q: StreetQuery,
  words: readonly string[],
  scopes: readonly CommuneScope[],
): StreetHit[] {
  const out: StreetHit[] = [];
  const type = q.key.type ?? "";
  // The last word is written whole (initialsOf), so it is the street's last word: only those streets are read.
  const last = words.at(-1)!;
  for (const { index, communes } of scopes) {
    for (const s of index.byLastWord(last)) {
      if (!communes.includes(index.st.stCommune[s]!)) continue;
      const t = index.st.stTypeLen[s]!;
      const key = index.streetKeyText(s);
      // The type must be the query's (t counts the type and its space; 0 when the street has none).
      if ((t === 0 ? "" : key.slice(0, t - 1)) !== type) continue;
      const name = key.slice(t).split(" ");
      if (name.length < words.length || !spellsWithInitials(words, name)) continue;
      out.push({ index, street: s, cost: EDIT_COST, scores: { name: 1, type: 0 } });
    }
  }
  return out;
}
