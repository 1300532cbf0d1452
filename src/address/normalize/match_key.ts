// The match keys of streets and cities: the same PROCESSORS run over BAN names at import time and over user input at
// query time, so the two sides can only meet in the same form (docs/address_rules.md §1 "match key").
import { expandAbbreviations } from "./expand_abbrev.ts";
import { numberWords } from "./number_words.ts";
import { foldOrdinalWord } from "./ordinal.ts";
import { pipe, type TokenProcessor } from "./pipe.ts";
import { STOP_WORDS } from "./stop_words.ts";
import { expandStreetType, glueMultiWordTypes } from "./street_types.ts";
import { tokenize } from "./tokenize.ts";

/**
 * The version of the match keys: what streetKey() and cityKey() return. Street indexes and the cached commune reference
 * store keys; one built under another version is built again (index/ban_index.ts, reference/compile.ts), or a query
 * would look for keys that its index spells otherwise. Bump it with any change in the keys of some name:
 * test/address/match_key_version.test.ts holds the digest of the keys of a fixed set of names for this version, and
 * fails until both are updated.
 * 2: "prés" as the last word stays "pres" (meadows), no longer "president"; "fb" is faubourg; a lone v or x last
 *    after a word of the name is a number ("George V": "george cinq").
 * 3: a roman numeral after the first word of a name written without its type is a number ("Charles V": "charles
 *    cinq"), as it was after a type and a name word.
 */
export const MATCH_KEY_VERSION = 3;

const glueTypes: TokenProcessor = (tokens) =>
  tokens.length > 1 ? glueMultiWordTypes(tokens.join(" ")).split(" ") : tokens;

// Only the first word can be a street type: "Rue du Pas" keeps its "pas", "Pas de la Mule" would not.
const expandFirstType: TokenProcessor = (tokens) => {
  if (tokens.length < 2) return tokens;
  const full = expandStreetType(tokens[0]!);
  if (full === undefined || full === tokens[0]) return tokens;
  return [full, ...tokens.slice(1)];
};

const expandWords: TokenProcessor = (tokens) => [tokens[0]!, ...expandAbbreviations(tokens.slice(1))];
const expandAllWords: TokenProcessor = (tokens) => expandAbbreviations(tokens);
// Titles everywhere but on a street type in first position.
const expandTitles: TokenProcessor = (tokens) =>
  tokens.length > 0 && expandStreetType(tokens[0]!) !== undefined ? expandWords(tokens) : expandAllWords(tokens);

const foldOrdinals: TokenProcessor = (tokens) => tokens.map(foldOrdinalWord);

// "Rue du 08 Mai 1945": numbers compare as numbers.
const removeLeadingZeros: TokenProcessor = (tokens) => tokens.map((t) => (/^0+\d/.test(t) ? t.replace(/^0+/, "") : t));

// Keeps the words when nothing else would remain ("Rue de la" is typed by someone, somewhere).
const dropStopWords: TokenProcessor = (tokens) => {
  const kept = tokens.filter((t) => !STOP_WORDS.has(t));
  return kept.length > 0 ? kept : tokens;
};

/** Street name processors, in order. The first word is expanded as a type, or as a title when it is no type. */
export const STREET_PROCESSORS: readonly TokenProcessor[] = [
  glueTypes,
  expandFirstType,
  expandTitles,
  foldOrdinals,
  removeLeadingZeros,
  numberWords,
  dropStopWords,
];

// "Paris 1er Arrondissement", "PARIS 01", "Paris 1" all become "paris 1".
const CITY_NOISE = new Set(["arrondissement", "arrondissements", "arr", "arrt", "arrdt", "cedex"]);
// An ordinal's ending typed apart from its number: "Paris 2 eme", "Lyon 1 er".
const ORDINAL_ENDING = new Set(["e", "er", "ere", "re", "eme", "ieme", "em", "me"]);
// Cities whose arrondissements people also number in roman figures without the "e" ("Paris XVI", "Marseille VIII").
// Elsewhere a lone "v" or "x" is a word of the name.
const ARRONDISSEMENT_CITIES = new Set(["paris", "lyon", "marseille"]);
const ROMAN_NUMBERS: ReadonlyMap<string, string> = new Map(
  ["i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x"].flatMap((units, k) => [
    [units, String(k + 1)],
    [`x${units}`, String(k + 11)],
  ]),
).set("xx", "20");
const cityOrdinals: TokenProcessor = (tokens) => {
  const kept = tokens.filter(
    (t, i) => !CITY_NOISE.has(t) && !(ORDINAL_ENDING.has(t) && /^\d+$/.test(tokens[i - 1] ?? "")),
  );
  return kept.map((t, i) => {
    const roman =
      i === kept.length - 1 && i > 0 && ARRONDISSEMENT_CITIES.has(kept[i - 1]!) ? ROMAN_NUMBERS.get(t) : undefined;
    return roman ?? foldOrdinalWord(t).replace(/^(\d+)e$/, "$1");
  });
};

/** City name processors, in order. */
export const CITY_PROCESSORS: readonly TokenProcessor[] = [
  expandAllWords,
  cityOrdinals,
  removeLeadingZeros,
  dropStopWords,
];

export interface StreetKey {
  /** Every word: "rue rivoli". */
  key: string;
  /** The street type in full ("rue"), or null when the first word is no type. */
  type: string | null;
  /** The words after the type: "rivoli". */
  name: string;
  /** Words of the name, for the phonetic key (phoneticKey(), computed only when a fuzzy scan needs it). */
  nameTokens: readonly string[];
}

const FULL_TYPES_CACHE = new Map<string, boolean>();
function isFullType(word: string): boolean {
  let v = FULL_TYPES_CACHE.get(word);
  if (v === undefined) {
    v = expandStreetType(word) === word;
    FULL_TYPES_CACHE.set(word, v);
  }
  return v;
}

/** Match key of a street name, BAN's or the user's. */
export function streetKey(text: string): StreetKey {
  const tokens = pipe(tokenize(text), STREET_PROCESSORS);
  const typed = tokens.length > 1 && isFullType(tokens[0]!);
  const nameTokens = typed ? tokens.slice(1) : tokens;
  return {
    key: tokens.join(" "),
    type: typed ? tokens[0]! : null,
    name: nameTokens.join(" "),
    nameTokens,
  };
}

const cityKeys = new Map<string, string>();

/** Match key of a commune or delivery name. Memoized: a few thousand city spellings make up nearly all traffic. */
export function cityKey(text: string): string {
  let key = cityKeys.get(text);
  if (key === undefined) {
    key = pipe(tokenize(text), CITY_PROCESSORS).join(" ");
    if (cityKeys.size >= 50_000) cityKeys.clear();
    cityKeys.set(text, key);
  }
  return key;
}
