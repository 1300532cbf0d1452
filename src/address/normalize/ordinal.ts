// Ordinals fold to one form on both sides of a comparison: "1er", "1ère", "premier" → "1e"; "2eme", "IIe",
// "deuxième" → "2e" (docs/address_rules.md §5, addok-fr explicit mapping). House-number suffixes are handled in
// parse/house_number.ts, not here.
import { withinOneEdit } from "../../text/edit_distance.ts";

const WORD_ORDINALS: Readonly<Record<string, string>> = nullProto({
  premier: "1e",
  premiere: "1e",
  deuxieme: "2e",
  troisieme: "3e",
  quatrieme: "4e",
  cinquieme: "5e",
  sixieme: "6e",
  septieme: "7e",
  huitieme: "8e",
  neuvieme: "9e",
  dixieme: "10e",
  onzieme: "11e",
  douzieme: "12e",
  treizieme: "13e",
  quatorzieme: "14e",
  quinzieme: "15e",
  seizieme: "16e",
  dixseptieme: "17e",
  dixhuitieme: "18e",
  dixneuvieme: "19e",
  vingtieme: "20e",
});
const ROMAN_ORDINALS: Readonly<Record<string, string>> = nullProto({
  ier: "1e",
  iere: "1e",
  iie: "2e",
  iiie: "3e",
  ive: "4e",
  ve: "5e",
  vie: "6e",
  viie: "7e",
  viiie: "8e",
  ixe: "9e",
  xe: "10e",
  xie: "11e",
  xiie: "12e",
  xiiie: "13e",
  xive: "14e",
  xve: "15e",
  xvie: "16e",
  xviie: "17e",
  xviiie: "18e",
  xixe: "19e",
  xxe: "20e",
});
const NUMERIC = /^(\d{1,3})(?:e|er|ere|re|eme|ieme|em|me)$/;

/** One word to its ordinal form, or the word unchanged. */
export function foldOrdinalWord(word: string): string {
  const m = NUMERIC.exec(word);
  if (m) return `${Number(m[1])}e`;
  const known = WORD_ORDINALS[word] ?? ROMAN_ORDINALS[word];
  if (known !== undefined) return known;
  // "setpième", "douxième": a slip in a spelled-out ordinal would otherwise leave it far from its "7e" form.
  if (word.length >= 7 && word.endsWith("eme")) return misspeltOrdinal(word) ?? word;
  return word;
}

function misspeltOrdinal(word: string): string | undefined {
  let found: string | undefined;
  for (const [spelled, folded] of Object.entries(WORD_ORDINALS)) {
    if (Math.abs(spelled.length - word.length) > 1 || !withinOneEdit(word, spelled)) continue;
    if (found !== undefined && found !== folded) return undefined;
    found = folded;
  }
  return found;
}

// Lookup tables keyed by user words: no prototype, so that "constructor" is no abbreviation of anything.
function nullProto<T>(entries: Record<string, T>): Record<string, T> {
  return Object.assign(Object.create(null) as Record<string, T>, entries);
}
