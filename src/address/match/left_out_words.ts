// Streets named after someone, written with a title or given names left out, or a title added: "rue Mouchotte", "rue
// René Mouchotte" and "rue Commandant Mouchotte" for Rue du Commandant René Mouchotte, "avenue Wilson" for Avenue du
// Président Wilson, "avenue du Maréchal Foch" for Avenue Foch. No edit budget reaches them (whole words differ), and
// the fuzzy search of the next tier found another street of the same family name instead: "12 rue Lemoine 75005" was
// Passage Lemoine in the 2nd, not Rue du Cardinal Lemoine in the 5th. A street of the query's type whose name ends
// with the query's last word, and is the query's but for such words (normalize/person_names.ts), is the street when
// it is the only such name in the tier (clearWinner, with the house number as tie-breaker). `street_corrected`, as
// the initials search (initials.ts) answers; search_order.ts says when it is tried.
import { isTitle, isTitleOrGivenName } from "../normalize/person_names.ts";
import { isStreetType } from "../normalize/street_types.ts";
import { asciiBytes } from "../index/format.ts";
import { MONTHS } from "../normalize/number_words.ts";
import { EDIT_COST, MISSING_TYPE_COST } from "./fuzzy_budget.ts";
import { type CommuneScope, nameWordsOf, type StreetHit, type StreetQuery } from "./street_search.ts";

/**
 * Whether the query is the name with titles or given names left out, sharing at least one other word: "rene
 * mouchotte" or "mouchotte" for "commandant rene mouchotte", "curie" for "pierre marie curie".
 */
export function leavesOut(query: readonly string[], name: readonly string[]): boolean {
  return leavingOut(name, query, 0, 0, false, leavable);
}

/** Whether the query is the name with titles added: "marechal foch" for "foch". A title or given name for another
 *  is someone else, in either reading ("general leandri" is not "commandant leandri", "marechal doumer" not "paul
 *  doumer"). */
export function addsTitles(query: readonly string[], name: readonly string[]): boolean {
  return leavingOut(query, name, 0, 0, false, (words, i) => isTitle(words[i]!));
}

/** Whether `longer` is `shorter` with words that `extra` allows in between; `kept` once a word that is not a title or
 *  given name matched. */
function leavingOut(
  longer: readonly string[],
  shorter: readonly string[],
  i: number,
  j: number,
  kept: boolean,
  extra: (words: readonly string[], i: number) => boolean,
): boolean {
  if (i === longer.length) return j === shorter.length && kept;
  if (j < shorter.length && longer[i] === shorter[j]) {
    if (leavingOut(longer, shorter, i + 1, j + 1, kept || !isTitleOrGivenName(longer[i]!), extra)) return true;
  }
  return extra(longer, i) && leavingOut(longer, shorter, i + 1, j, kept, extra);
}

/** A word of the street's name that the query may leave out: a title or given name, or the word between a title and
 *  the family name (a given name the list lacks). */
function leavable(name: readonly string[], i: number): boolean {
  return isTitleOrGivenName(name[i]!) || (i > 0 && i < name.length - 1 && isTitle(name[i - 1]!));
}

/** Streets of the scopes whose name the query reads as (leavesOut or addsTitles), under the query's type (any type
 *  when none is written, at the cost of the missing type). */
export function leftOutWordsStreets(
  q: StreetQuery,
  scopes: readonly CommuneScope[],
  reads: (query: readonly string[], name: readonly string[]) => boolean,
): StreetHit[] {
  const words = q.key.nameTokens;
  const last = words.at(-1);
  if (last === undefined || isTitleOrGivenName(last)) return [];
  const out: StreetHit[] = [];
  const type = q.key.type;
  for (const { index, communes } of scopes) {
    for (const s of index.byLastWord(last)) {
      if (!communes.includes(index.st.stCommune[s]!)) continue;
      const t = index.st.stTypeLen[s]!;
      const key = index.streetKeyText(s);
      if (type !== null && (t === 0 ? "" : key.slice(0, t - 1)) !== type) continue;
      const name = key.slice(t).split(" ");
      if (name.length === words.length && name.every((w, k) => w === words[k])) continue;
      if (!reads(words, name)) continue;
      const typeCost = type === null && t !== 0 ? MISSING_TYPE_COST : 0;
      out.push({ index, street: s, cost: EDIT_COST + typeCost, scores: { name: 1, type: typeCost } });
    }
  }
  return out.sort((a, b) => a.cost - b.cost);
}

const YEAR = /^\d{4}$/;

/** "Saint" begins a name and names no one: "boulevard Saint" is no more Boulevard Saint-Marcel than Saint-Michel. */
const SAINTS: ReadonlySet<string> = new Set(["saint", "sainte", "saints", "saintes"]);

/**
 * Streets of the query's type whose name is the query's with any words added at its end (one scan of the first tier's
 * communes, which both readings below share): the name the user wrote is the beginning of theirs. Never for a query
 * without a type, or whose name is only titles, given names, "saint" and type words ("rue Jean" names no Rue
 * Jean-Pierre Timbaud, "rue Charles" no Rue Charles et Robert, "rue du Faubourg" no Rue du Faubourg Saint-Honoré even
 * where it is the only one).
 */
export function cutNameStreets(q: StreetQuery, scopes: readonly CommuneScope[]): StreetHit[] {
  const words = q.key.nameTokens;
  const type = q.key.type;
  if (type === null || words.every((w) => isTitleOrGivenName(w) || SAINTS.has(w) || isStreetType(w))) return [];
  const headBytes = asciiBytes(`${type} ${words.join(" ")} `);
  const out: StreetHit[] = [];
  for (const { index, communes } of scopes) {
    for (const c of communes) {
      const { firstStreet, streetCount } = index.header.communes[c]!;
      for (let s = firstStreet; s < firstStreet + streetCount; s++) {
        if (!index.keyStartsWith(s, headBytes) || index.st.stTypeLen[s] !== type.length + 1) continue;
        out.push({ index, street: s, cost: EDIT_COST, scores: { name: 1, type: 0 } });
      }
    }
  }
  return out;
}

/**
 * Of those, the names whose added words are a person's, as people shorten such names: "rond-point des Champs-Élysées"
 * for Rond-point des Champs-Élysées-Marcel Dassault, "square de l'Opéra" for Square de l'Opéra-Louis Jouvet. The words
 * added begin with a title or given name. The fuzzy pass found the same name under another type instead (Port des
 * Champs-Élysées). A date's year is left out the same way: "place du 18 juin" for Place du Dix-Huit Juin 1940, "rue du
 * 8 mai" for Rue du Huit Mai 1945 (the query then ends with the month).
 */
export function cutAtPerson(q: StreetQuery, cut: readonly StreetHit[]): StreetHit[] {
  // The key of a street in `cut` is the query's type, its name and a space, then the words added.
  const headLength = `${q.key.type} ${q.key.nameTokens.join(" ")} `.length;
  const endsWithMonth = MONTHS.has(q.key.nameTokens.at(-1) ?? "");
  return cut.filter((h) => {
    const added = h.index.streetKeyText(h.street).slice(headLength);
    return isTitleOrGivenName(added.split(" ", 1)[0]!) || (endsWithMonth && YEAR.test(added));
  });
}

/**
 * Streets of the query's type, with the house number written, whose name has every word the query wrote, in order,
 * and more: "2 Impasse du Moulin" for Impasse Sous-le-Moulin, "Rue des Vignes" for Rue sous les Vignes, "Impasse du
 * Moulin" for Impasse du Vieux Moulin. A word left out is likelier than the type or two letters written wrong: the
 * fuzzy pass answered Rue du Moulin (another type) and "Rue des Haies" Rue des Faines (two letters) where Rue sous les
 * Haies has the number. "sur" and "sous" may be left out, never added: "Rue sur la Côte" is no Rue de la Côte.
 * search_order.ts tries it when the fuzzy pass of the first tier found nothing, another type or two slips.
 */
export function wordsLeftOutStreets(
  q: StreetQuery,
  scopes: readonly CommuneScope[],
  hasNumber: (hit: StreetHit) => boolean,
): StreetHit[] {
  const words = q.key.nameTokens;
  const last = words.at(-1);
  const type = q.key.type;
  if (type === null || last === undefined || q.nameWords !== "") return [];
  if (words.every((w) => isTitleOrGivenName(w) || SAINTS.has(w) || isStreetType(w))) return [];
  const out: StreetHit[] = [];
  for (const { index, communes } of scopes) {
    for (const s of index.byLastWord(last)) {
      if (!communes.includes(index.st.stCommune[s]!)) continue;
      const t = index.st.stTypeLen[s]!;
      const key = index.streetKeyText(s);
      if (t === 0 || key.slice(0, t - 1) !== type) continue;
      const name = key.slice(t).split(" ");
      const same = name.length === words.length;
      // The same key with "sous" or "sur" left out, or more words around the ones written.
      if (same ? nameWordsOf(index.streetName(s)) === "" : !inOrder(words, name)) continue;
      const hit: StreetHit = { index, street: s, cost: EDIT_COST, scores: { name: 1, type: 0 } };
      if (hasNumber(hit)) out.push(hit);
    }
  }
  return out;
}

/** Whether every word of `query` is in `name`, in the same order. */
function inOrder(query: readonly string[], name: readonly string[]): boolean {
  let j = 0;
  for (const w of name) if (j < query.length && w === query[j]) j++;
  return j === query.length;
}
