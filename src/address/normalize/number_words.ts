// Numbers inside street names compare in one form, French words, whatever way they are written: BAN writes "Rue du
// Quatre Septembre", "Place du Dix-Huit Juin 1940" (Paris) but also "Rue du 8 Mai 1945" and "Rue du XXIV Novembre"
// elsewhere, and people type "rue du 4 septembre" (docs/address_rules.md §5 "number
// words", addok-fr maps roman numerals and digits to words the same way). Words, not digits, so that a slip in a
// spelled-out number ("quatee septembre") stays one edit from its street. Years (3 or 4 digits) stay digits.

import { STOP_WORDS } from "./stop_words.ts";
import { isStreetType } from "./street_types.ts";

const UNITS = [
  "",
  "un",
  "deux",
  "trois",
  "quatre",
  "cinq",
  "six",
  "sept",
  "huit",
  "neuf",
  "dix",
  "onze",
  "douze",
  "treize",
  "quatorze",
  "quinze",
  "seize",
] as const;
const TENS: Readonly<Record<number, string>> = {
  2: "vingt",
  3: "trente",
  4: "quarante",
  5: "cinquante",
  6: "soixante",
};

/** 1 to 99 in French words, one token per word: 18 → dix huit, 21 → vingt et un, 71 → soixante et onze, 80 → quatre
 *  vingt (the plural s is dropped on both sides, see numberWords()). */
export function frenchNumberWords(n: number): string[] {
  if (!Number.isInteger(n) || n < 1 || n > 99) throw new RangeError(`Cannot spell number: ${n} is not within 1-99`);
  if (n <= 16) return [UNITS[n]!];
  if (n < 20) return ["dix", UNITS[n - 10]!];
  if (n >= 80) return n === 80 ? ["quatre", "vingt"] : ["quatre", "vingt", ...frenchNumberWords(n - 80)];
  if (n >= 70) return n === 71 ? ["soixante", "et", "onze"] : ["soixante", ...frenchNumberWords(n - 60)];
  const tens = TENS[Math.floor(n / 10)]!;
  const unit = n % 10;
  if (unit === 0) return [tens];
  return unit === 1 ? [tens, "et", "un"] : [tens, UNITS[unit]!];
}

// Roman numerals of 2+ letters up to 39 ("II", "IV", "XXIV"): single letters stay ("Rue X", "Pie X" are rarer as
// numbers than as names). Only i, v, x: "mi", "di", "cd" are words.
const ROMAN = /^(x{0,3})(ix|iv|v?i{0,3})$/;

/** The value of a roman numeral of 2+ letters (i, v, x only), or null. */
export function romanValue(word: string): number | null {
  if (word.length < 2) return null;
  const m = ROMAN.exec(word);
  if (!m) return null;
  const units: Readonly<Record<string, number>> = { ix: 9, iv: 4 };
  const rest = m[2]!;
  const unit = units[rest] ?? (rest.startsWith("v") ? 5 + rest.length - 1 : rest.length);
  return m[1]!.length * 10 + unit;
}

const PLURAL: ReadonlyMap<string, string> = new Map([
  ["vingts", "vingt"],
  ["cents", "cent"],
]);

/** French month names, folded: a number before one is part of a street name ("Rue du 8 Mai 1945"). */
export const MONTHS: ReadonlySet<string> = new Set([
  "janvier",
  "fevrier",
  "mars",
  "avril",
  "mai",
  "juin",
  "juillet",
  "aout",
  "septembre",
  "octobre",
  "novembre",
  "decembre",
]);

/** A roman numeral is a number after a name ("Henri IV", "Louis XIV") or before a month ("XXIV Novembre"); alone
 *  after a type or an article ("Rue de VII", "Allée X") it is a name, and must not meet "Voie A/7". A name written
 *  without its type has its number too: "Charles V" and "Alexandre III" are Rue Charles V and Pont Alexandre III (their
 *  keys spelt no number, and met Rue Charles Weiss and Rue d'Alexandrie in other arrondissements). */
function romanInContext(tokens: readonly string[], i: number): boolean {
  const next = tokens[i + 1];
  if (next !== undefined && MONTHS.has(next)) return true;
  const prev = tokens[i - 1];
  if (prev === undefined || !/^[a-z]+$/.test(prev) || STOP_WORDS.has(prev)) return false;
  return i >= 2 || !isStreetType(prev);
}

/** A king's or pope's number in one letter, last after a word of the name (romanInContext): BAN's "Avenue George V",
 *  "Rue Charles V", which people also write "avenue George 5". Elsewhere a lone v or x is a name or an initial ("Rue
 *  X", "Rue V. Hugo"). Any word before it, not a given name only, so that a slip there ("Rue Chalres V") leaves the
 *  number as BAN's key has it. */
function regnalLetter(tokens: readonly string[], i: number): number | null {
  const t = tokens[i];
  if (i !== tokens.length - 1) return null;
  return t === "v" ? 5 : t === "x" ? 10 : null;
}

/** Tokens of a match key with every 2-99 number and roman numeral spelled out: ["rue", "du", "4", "septembre"]
 *  → ["rue", "du", "quatre", "septembre"]; "xxiv" → ["vingt", "quatre"]; "1945" stays. */
export function numberWords(tokens: readonly string[]): string[] {
  const out: string[] = [];
  for (const [i, t] of tokens.entries()) {
    const n = /^\d{1,2}$/.test(t)
      ? Number(t)
      : romanInContext(tokens, i)
        ? (romanValue(t) ?? regnalLetter(tokens, i))
        : null;
    // 1 stays a digit: "un" is an article the key drops, and "Allée X 1" must not read as "Allée X".
    if (n !== null && n >= 2 && n <= 99) out.push(...frenchNumberWords(n));
    else out.push(PLURAL.get(t) ?? t);
  }
  return out;
}
