// A French phonetic key in the spirit of addok-fr `phonemicize` (docs/address_rules.md §1): two spellings that sound the
// same get the same key ("Haussmann" / "Osman", "Lecourbe" / "Lekourbe", "Cergy" / "Sergi"). It only serves as one
// more way for a fuzzy street match to be accepted, never as an exact match.

const RULES: ReadonlyArray<readonly [RegExp, string]> = [
  [/ph/g, "f"],
  [/qu/g, "k"],
  [/gu(?=[eiy])/g, "g"],
  [/ge(?=[aou])/g, "j"],
  [/g(?=[eiy])/g, "j"],
  [/sch/g, "ch"],
  [/c(?=[eiy])/g, "s"],
  [/ck/g, "k"],
  [/c(?!h)/g, "k"],
  [/q/g, "k"],
  [/w/g, "v"],
  [/z/g, "s"],
  [/y/g, "i"],
  [/eaux?/g, "o"],
  [/au/g, "o"],
  [/[ae]i/g, "e"],
  [/(?:en|an|em|am)(?![aeiou])/g, "an"],
  [/(?:in|im|ein|ain|un|um)(?![aeiou])/g, "in"],
  [/(?:ez|er|et)$/g, "e"],
  [/([^c])h/g, "$1"],
  [/^h/g, ""],
  [/([a-z])\1+/g, "$1"],
  [/[stdxp]$/g, ""],
  [/e$/g, ""],
];

/** Phonetic key of one ASCII lower-case word. */
export function phoneticWord(word: string): string {
  if (/^\d+e?$/.test(word)) return word;
  let out = word;
  for (const [re, to] of RULES) out = out.replace(re, to);
  return out === "" ? (word[0] ?? "") : out;
}

/** Phonetic key of a list of words, joined without spaces (word boundaries are often misheard too). */
export function phoneticKey(words: readonly string[]): string {
  let out = "";
  for (const w of words) out += phoneticWord(w);
  return out;
}
