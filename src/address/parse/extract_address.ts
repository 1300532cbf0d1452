// Company or building text before "<number> <street type>" is no part of the address ("Immeuble Plein-Centre 60,
// avenue du Centre …" → "60, avenue du Centre …"), addok-france extract_address, docs/address_rules.md §6.
import { STREET_TYPE_WORDS } from "../normalize/street_types.ts";

const TYPES = STREET_TYPE_WORDS.filter((w) => w.length > 1).join("|");
const START = new RegExp(
  `(?:^|[\\s°])(\\d{1,4}(?:\\s*(?:bis|ter|quater|quinquies|sexies|[a-z]))?,?\\s+(?:${TYPES})\\.?(?=\\s|$))`,
  "i",
);

/** Drops what comes before the first "<number> <street type>"; text without that pattern is returned unchanged. */
export function extractAddress(text: string): string {
  const folded = text.normalize("NFD").replace(/[\u0300-\u036f]/g, "");
  // Accents removed for the search only: NFD + combining-mark removal keeps the other positions stable per letter,
  // so the index is mapped back through the folded prefix length.
  const m = START.exec(folded);
  if (!m || (m.index === 0 && !/^[\s°]/.test(folded))) return text;
  const start = m.index + m[0].indexOf(m[1]!);
  if (start === 0) return text;
  const prefixFolded = folded.slice(0, start);
  // "4 à 8 rue X", "12-14 rue X": the prefix is the start of a number range, not a company name.
  if (/^\s*\d{1,4}\s*[a-z]{0,3}\s*(?:-|\/|a|au|et)\s*$/i.test(prefixFolded)) return text;
  // Count original characters whose folded form makes up the prefix.
  let i = 0;
  let len = 0;
  while (i < text.length && len < prefixFolded.length) {
    len += text[i]!.normalize("NFD").replace(/[\u0300-\u036f]/g, "").length;
    i++;
  }
  return text.slice(i);
}
