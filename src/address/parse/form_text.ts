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

// What web forms and exports leave in a text on its way: HTML entities ("l&#39;Universit&eacute;", escaped twice), URL
// encoding ("10%20rue%20de%20Rivoli", "10+rue+de+Rivoli", with no space left), an escape typed as text ("\n"), the
// quotes around a pasted value, and an e-mail address beside the address.
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

/** The text as its writer typed it: invisible and full-width characters made plain, what forms left undone. */
export function formText(text: string): string {
  let out = plain(text);
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
  if (out.includes("@")) out = out.replace(EMAIL, "");
  const quoted = WRAPPING_QUOTES.exec(out);
  return quoted === null ? out : quoted[2]!;
}
