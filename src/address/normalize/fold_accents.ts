// Match keys are ASCII: é→e, ç→c, œ→oe, æ→ae, ß→ss (docs/address_rules.md §1, addok `_normalize`).

// Letters that NFD does not decompose.
const LIGATURES: Readonly<Record<string, string>> = {
  œ: "oe",
  Œ: "OE",
  æ: "ae",
  Æ: "AE",
  ß: "ss",
  ø: "o",
  Ø: "O",
  ł: "l",
  Ł: "L",
  đ: "d",
  Đ: "D",
};
const ASCII = /^[\x00-\x7f]*$/;

/** Removes diacritics and unfolds ligatures; ASCII input is returned as is (the common, hot case). */
export function foldAccents(text: string): string {
  if (ASCII.test(text)) return text;
  return text
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[œŒæÆßøØłŁđĐ]/g, (c) => LIGATURES[c] ?? c);
}
