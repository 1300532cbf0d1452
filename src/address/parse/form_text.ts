// What a text picks up between the person who typed it and the API: characters pasted from web pages or typed on other
// keyboards, and what web forms and exports leave in it. Undone on every field before any parsing (parse_address.ts).

// Pasted from web pages and typed on other keyboards: zero-width characters and soft hyphens inside words, full-width
// digits and letters ("７５００４").
const INVISIBLE_OR_FULL_WIDTH = /[\u00ad\u200b-\u200d\u2060\ufeff\uff01-\uff5e]/;
const INVISIBLE = /[\u00ad\u200b-\u200d\u2060\ufeff]/g;
const FULL_WIDTH = /[\uff01-\uff5e]/g;

function plain(text: string): string {
  if (!INVISIBLE_OR_FULL_WIDTH.test(text)) return text;
  return text.replace(INVISIBLE, "").replace(FULL_WIDTH, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0));
}

// UTF-8 read as Windows-1252 (or Latin-1) by a spreadsheet or an export on its way: "RÃ©publique", "lâ€™HÃ´pital". The
// text is turned back into the bytes that were misread and read again as UTF-8; when any character could not come from
// such a reading, or the bytes are no UTF-8, the text stays as it was.
const MOJIBAKE =
  /Ã[ \u00a0]|[ÂÃÅâ][\u0080-\u00bf\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u0192\u02c6\u02dc\u2013-\u203a\u20ac\u2122]/;
/** The characters Windows-1252 has at 0x80-0x9F, by code point (Latin-1 has control characters there). */
const CP1252_HIGH: ReadonlyMap<number, number> = new Map([
  [0x20ac, 0x80],
  [0x201a, 0x82],
  [0x0192, 0x83],
  [0x201e, 0x84],
  [0x2026, 0x85],
  [0x2020, 0x86],
  [0x2021, 0x87],
  [0x02c6, 0x88],
  [0x2030, 0x89],
  [0x0160, 0x8a],
  [0x2039, 0x8b],
  [0x0152, 0x8c],
  [0x017d, 0x8e],
  [0x2018, 0x91],
  [0x2019, 0x92],
  [0x201c, 0x93],
  [0x201d, 0x94],
  [0x2022, 0x95],
  [0x2013, 0x96],
  [0x2014, 0x97],
  [0x02dc, 0x98],
  [0x2122, 0x99],
  [0x0161, 0x9a],
  [0x203a, 0x9b],
  [0x0153, 0x9c],
  [0x017e, 0x9e],
  [0x0178, 0x9f],
]);
const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });

function utf8ReadAsCp1252(text: string): string {
  if (!MOJIBAKE.test(text)) return text;
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const byte = code <= 0xff ? code : CP1252_HIGH.get(code);
    if (byte === undefined) return text;
    // "Ã " for à: its second byte, a no-break space, often became a plain one on the way.
    bytes[i] = byte === 0x20 && bytes[i - 1] === 0xc3 ? 0xa0 : byte;
  }
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    return text;
  }
}

// A letter lost on the way, as a question mark or the replacement character inside a word ("R?publique",
// "R\ufffdpublique"): taken out, the word is one slip from its name, which the matcher corrects (street_corrected). No
// address has either.
const LOST_LETTER = /(?<=\p{L})[?\ufffd]+(?=\p{L})|\ufffd/gu;

// What web forms and exports leave in a text on its way: HTML entities ("l&#39;Universit&eacute;", escaped twice), URL
// encoding ("10%20rue%20de%20Rivoli", "10+rue+de+Rivoli", with no space left), an escape typed as text ("\n"), the
// quotes around a pasted value, an e-mail address beside the address, markup, and empty values written as words.
const HTML_ENTITY = /&(?:#(\d{1,5})|#x([\da-f]{1,4})|([a-z]{2,8}));/gi;
const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: "&",
  apos: "'",
  quot: '"',
  nbsp: " ",
  rsquo: "’",
  lsquo: "‘",
  eacute: "é",
  egrave: "è",
  ecirc: "ê",
  euml: "ë",
  agrave: "à",
  acirc: "â",
  ccedil: "ç",
  icirc: "î",
  iuml: "ï",
  ocirc: "ô",
  ucirc: "û",
  ugrave: "ù",
  uuml: "ü",
  laquo: "«",
  raquo: "»",
};
const URL_ENCODED = /^[^\s]*(?:%[\da-f]{2}|\+)[^\s]*$/i;
const ESCAPE_AS_TEXT = /\\[nrt]/g;
const WRAPPING_QUOTES = /^\s*(['"“”‘’«»])\s*(.*?)\s*(['"“”‘’«»])\s*$/s;
const EMAIL = /\s*[^\s@,;]+@[^\s@,;]+\.[a-z]{2,}/gi;
// Markup copied from a page or a rich-text field ("12 rue X<br>75004 Paris"): a tag separates lines, as a comma does.
const HTML_TAG = /<\/?[a-z][a-z\d]*(?:\s[^<>]*)?\/?>/gi;
// What a program writes for a field it had no value for ("undefined 75004 Paris", "Paris null"): no word of an address.
const EMPTY_VALUE = /(^|[\s,;])(?:null|undefined)(?=[\s,;]|$)/gi;
const MAYBE_EMPTY_VALUE = /[nN][uU][lL][lL]|[dD][eE][fF][iI][nN][eE][dD]/;

/** The text as its writer typed it: invisible and full-width characters made plain, UTF-8 misread as Windows-1252
 *  read again, letters lost on the way taken out, what forms left undone. */
export function formText(text: string): string {
  let out = utf8ReadAsCp1252(plain(text));
  if (out.includes("?") || out.includes("\ufffd")) out = out.replace(LOST_LETTER, "");
  if (out.includes("&")) {
    out = out.replace(HTML_ENTITY, (whole, dec?: string, hex?: string, name?: string) => {
      if (dec !== undefined) return String.fromCodePoint(Number(dec));
      if (hex !== undefined) return String.fromCodePoint(Number.parseInt(hex, 16));
      return NAMED_ENTITIES[name!.toLowerCase()] ?? whole;
    });
  }
  if (URL_ENCODED.test(out)) {
    try {
      out = decodeURIComponent(out.replaceAll("+", " "));
    } catch {
      // Not URL encoding after all ("50%"): the text as it was.
    }
  }
  if (out.includes("\\")) out = out.replace(ESCAPE_AS_TEXT, " ");
  if (out.includes("<")) out = out.replace(HTML_TAG, ", ");
  if (MAYBE_EMPTY_VALUE.test(out)) out = out.replace(EMPTY_VALUE, "$1");
  if (out.includes("@")) out = out.replace(EMAIL, "");
  const quoted = WRAPPING_QUOTES.exec(out);
  return quoted === null ? out : quoted[2]!;
}
