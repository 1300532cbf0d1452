// House numbers and their suffix (indice de répétition), docs/address_rules.md §5 and the addok-france processors
// flag_housenumber, glue_ordinal, fold_ordinal, remove_leading_zeros (fixtures in shared/address/fixtures).
import { foldAccents } from "../normalize/fold_accents.ts";
import { MONTHS } from "../normalize/number_words.ts";
import { expandStreetType, glueMultiWordTypes, isStreetType } from "../normalize/street_types.ts";

/** 1 to 4 digits, optionally one glued letter (5 digits is a postcode). */
export const NUMBER_PATTERN = /^\d{1,4}[a-z]?$/i;

const ORDINAL_WORDS = ["bis", "ter", "quater", "quinquies", "sexies"] as const;
/** Suffix word → its one-letter fold (BIS→B, TER→T, QUATER→Q, QUINQUIES→C, SEXIES→S). */
export const SUFFIX_FOLD: Readonly<Record<string, string>> = nullProto({
  bis: "b",
  ter: "t",
  quater: "q",
  quinquies: "c",
  sexies: "s",
});
/** One-letter fold → display word, when a number's suffixes are all of this kind (BAN rewriteSuffixes). */
export const SUFFIX_WORD: Readonly<Record<string, string>> = nullProto({
  b: "bis",
  t: "ter",
  q: "quater",
  c: "quinquies",
  s: "sexies",
});

/** "03" → "3", "00009" → "9", "02230" stays (a postcode), "0" stays. */
export function removeLeadingZeros(token: string): string {
  return token.replace(/^0+(\d{1,3})$/, "$1");
}

/** "60bis" → "60b", "60quater" → "60q"; "4terre" and "60 bis" are left alone. */
export function foldOrdinal(token: string): string {
  const m = /^(\d{1,4})(bis|ter|quater|quinquies|sexies)$/i.exec(token);
  return m ? m[1]! + SUFFIX_FOLD[m[2]!.toLowerCase()]! : token;
}

/** Glues a number with its suffix word: ["6","bis"] → ["6bis"]; a lone letter only before a type or the end. */
export function glueOrdinal(tokens: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const next = tokens[i + 1];
    if (next !== undefined && /^\d{1,4}$/.test(token)) {
      const lower = next.toLowerCase();
      const after = tokens[i + 2];
      const isWord = (ORDINAL_WORDS as readonly string[]).includes(lower);
      const isLetter = /^[a-z]$/.test(lower) && (after === undefined || isStreetType(after));
      if (isWord || isLetter) {
        out.push(token + next);
        i++;
        continue;
      }
    }
    out.push(token);
  }
  return out;
}

/** True when a token is flagged as the house number: the first token, or one followed by a street type. */
export function flagHousenumber(tokens: readonly string[]): boolean {
  for (let i = 0; i < tokens.length; i++) {
    const next = tokens[i + 1];
    if ((i === 0 || (next !== undefined && isStreetType(next))) && NUMBER_PATTERN.test(tokens[i]!)) return true;
  }
  return false;
}

export interface HouseNumber {
  number: string;
  /** Lower case as written, folded for words: "bis", "b", "a"; null without suffix. */
  suffix: string | null;
  /** What remains after the number (the street). */
  rest: string;
}

const SUFFIX_ALT = "bis|ter|quater|quinquies|sexies|[a-z]";
// Number at the start of the address part, ranges keep the first number ("12-14", "4 à 8", "12/14", "12 et 14",
// "10-12-14": SNA rubrique 83); the suffix may follow a hyphen or a dot ("12-bis", "12.B"), and a suffix word a comma
// ("10, bis rue").
const LEADING = new RegExp(
  `^(\\d{1,5})(?:\\s*[-.]?\\s*(${SUFFIX_ALT})|\\s*,\\s*(bis|ter|quater|quinquies|sexies)(?=\\s))?(?:\\s*(?:-|/|à|a|au|et)\\s*\\d{1,4}(?:\\s*(?:${SUFFIX_ALT}))?){0,3}(?=[\\s,.-]|$)[\\s,.-]*`,
  "i",
);

/** The types a street's name does not begin with after "rue du", "rue de la". Before any other type ("Faubourg",
 *  "Pont", "Gare", "Parc", "Port", "Cité"…) a lone r is rue: "8 r fbg Poissonnière" is 8 Rue du Faubourg Poissonnière,
 *  "1 r pont Neuf" 1 Rue du Pont Neuf, where "241 r rue X" is 241 r. Paris's BAN file has no suffix r at all. */
const LEADING_TYPES = new Set(["rue", "avenue", "boulevard", "place", "impasse", "allee", "chemin", "route", "quai"]);

function headsNames(word: string): boolean {
  const type = expandStreetType(foldAccents(word).toLowerCase().replace(/\.$/, ""));
  return type !== undefined && !LEADING_TYPES.has(type);
}

/**
 * Reads the house number at the start of an address part: "12 bis rue X", "12bis, rue X", "241 r de X" (r = rue).
 * A lone letter is a suffix only when a street type or the end follows (docs/address_rules.md §5, addok#298).
 */
export function readHouseNumber(
  text: string,
  options: { postcodeElsewhere?: boolean; numberField?: boolean } = {},
): HouseNumber | null {
  const m = LEADING.exec(text);
  if (!m) return null;
  const digits = m[1]!;
  // Five figures are a postcode, unless the line has its postcode elsewhere (or this is the house-number field) and a
  // street type or nothing follows: rural roads number their houses by the metre from the road's start ("10001 Route
  // de Belfort, 90140 …").
  if (digits.length === 5) {
    const rest = text.slice(m[0].length);
    const fits = (options.numberField && rest.trim() === "") || startsWithStreetType(rest);
    if (!((options.postcodeElsewhere || options.numberField) && fits)) return null;
  }
  const suffix = (m[2] ?? m[3])?.toLowerCase() ?? null;
  let rest = text.slice(m[0].length);
  if (suffix !== null && suffix.length === 1) {
    const nextWord = /^[^\s,]+/.exec(rest)?.[0];
    const glued = /^\d+[a-z]$/i.test(m[0].trim().split(/[\s,]/)[0] ?? "");
    if (!glued && nextWord !== undefined && (!isStreetType(nextWord) || (suffix === "r" && headsNames(nextWord)))) {
      // "241 r de X": the letter is the street type, not a suffix.
      rest = text.slice(text.toLowerCase().indexOf(suffix, digits.length));
      return { number: removeLeadingZeros(digits), suffix: null, rest: rest.trim() };
    }
  }
  return { number: removeLeadingZeros(digits), suffix, rest: rest.trim() };
}

/** Whether the text's first word is a street type ("Route", "rte.", "ch"). */
function startsWithStreetType(text: string): boolean {
  const word = /^[^\s,]+/.exec(text)?.[0];
  return word !== undefined && isStreetType(foldAccents(word).toLowerCase().replace(/\.$/, ""));
}

// Words after which a trailing number belongs to the name: "Rue du 8 Mai 1945", "Place du 18 Juin 1940", "Rue de l'An
// 2000", "Rue du XXIV".
const NAME_NUMBER_BEFORE = new Set([...MONTHS, "an", "de", "du", "des", "d", "l", "la", "le", "les"]);
const TRAILING_NUMBER_SIGN = /\s+(?:n|no|n°|nº|num|numero|numéro)\.?$/i;
const TRAILING = new RegExp(`^(.*\\S)\\s+(\\d{1,4})(?:\\s*(${SUFFIX_ALT}))?$`, "i");

/**
 * A number after the street ("Boulevard Saint-Martin 20", as some people write it): only after a name that starts with
 * a street type, and not when the number belongs to the name (a date, "l'An 2000").
 */
export function readTrailingHouseNumber(text: string): HouseNumber | null {
  const m = TRAILING.exec(text);
  if (!m) return null;
  const before = m[1]!;
  const words = foldAccents(before)
    .toLowerCase()
    .split(/[\s'’.-]+/) // "av. Foch 10": the abbreviation's dot is no part of the type
    .filter((w) => w !== "");
  // "Rond-point Saint-Charles 158": a type of two words.
  const typeWord = isStreetType(words[0]!) || isStreetType(glueMultiWordTypes(words.join(" ")).split(" ", 1)[0]!);
  // After a month only a year is the name's ("Rue du 8 Mai 1945"); a shorter number is the house's ("Rue du Quatre
  // Septembre 1", "Place du Maréchal Juin 1").
  const last = words.at(-1)!;
  const nameNumber = NAME_NUMBER_BEFORE.has(last) && !(MONTHS.has(last) && m[2]!.length < 4);
  if (words.length < 2 || !typeWord || nameNumber) return null;
  // "Rue de Rivoli no. 10", "rue de Rivoli n 10": the number sign goes with the number.
  const rest = before.replace(TRAILING_NUMBER_SIGN, "").trim();
  return { number: removeLeadingZeros(m[2]!), suffix: m[3]?.toLowerCase() ?? null, rest };
}

/** addok-france match_housenumber: "3bis r du 8 mai troyes" → "3 bis"; no leading number → null. */
export function matchHousenumber(text: string): string | null {
  const hn = readHouseNumber(foldAccents(text));
  if (!hn) return null;
  if (hn.suffix === null) return hn.number;
  return `${hn.number} ${SUFFIX_WORD[hn.suffix] && hn.suffix.length === 1 ? SUFFIX_WORD[hn.suffix] : hn.suffix}`;
}

// Lookup tables keyed by user words: no prototype, so that "constructor" is no abbreviation of anything.
function nullProto<T>(entries: Record<string, T>): Record<string, T> {
  return Object.assign(Object.create(null) as Record<string, T>, entries);
}
