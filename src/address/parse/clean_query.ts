// Noise that is no part of a postal address, removed before parsing (docs/address_rules.md §6, addok-france clean_query;
// cases in shared/address/fixtures/addok-france__test_clean_query.jsonl).
import { expandStreetType, isStreetType, STREET_TYPE_WORDS } from "../normalize/street_types.ts";

// "31068 TOULOUSE CEDEX 7" → "31 TOULOUSE": a CEDEX code is not geographic, only its département is kept.
const CEDEX = /\b(\d{2})\d{3}\s+([^\d,]+?)\s+cedex(?:\s*\d{1,3})?\b/gi;
const CEDEX_ALONE = /\s+cedex(?:\s*\d{1,3})?\b/gi;
// Post-office boxes and bulk-mail codes: BP 7015, B.P. N 7015, CS 40055, TSA No30719, CIDEX N°304.
const BOXES = /(^|[\s,])(?:b\.?\s?p\.?|cs|tsa|cidex)\s*(?:n\s*[°o]?\.?\s*)?\d+(?=[\s,]|$)/gi;
// "8e étage", "12ème étage", "3e étage gauche".
const FLOORS = /(^|[\s,])\d{1,3}\s?(?:e|er|eme|ème|ieme|ième|è)\s+[ée]tage(?:\s+(?:gauche|droite|face|fond))?\b/gi;
// "Paris (75)": the département in brackets, as web forms and directories write it.
const BRACKETED_DEPARTEMENT = /\s*\((?:\d{2}|2[ab]|97\d)\)/gi;
// "10rue de Rivoli" → "10 rue de Rivoli": a number glued to a street type of three letters or more (never to a
// suffix: "12ter" stays 12 ter, not 12 terrasse).
const GLUED_TYPE = new RegExp(
  `(^|[\\s,])(\\d{1,4})(${STREET_TYPE_WORDS.filter((w) => w.length >= 3 && !/^(?:bis|ter|quater|quinquies|sexies)$/.test(w)).join("|")})(?=[\\s.,])`,
  "gi",
);
// "ruede la Paix", "avenuedu Maine": a space left out between a street type and the article after it. The word before
// the article must be a type written in full (gluedArticle): "Pyramides", "Grande" end the same way.
const GLUED_ARTICLE = /(^|[\s,])([a-z]+?)(des|du|de)(?=\s)/gi;
const MAYBE_GLUED_ARTICLE = /[a-z]d(?:es?|u)\s/;
// "rue dela Paix", "avenue del'Opéra": the space left out inside "de la", "de l'"; never further ("Delacroix",
// "Delambre" are names).
const GLUED_DE_LA = /(^|[\s,])de(la(?=\s)|l['’])/gi;
// "10 rue de la Paix (75002) Paris": a postcode in brackets is the postcode.
const BRACKETED_POSTCODE = /\(\s*(\d{5}|\d{2}\s\d{3})\s*\)/g;
// "RIVOLI (RUE DE)": the name first, its type and article in brackets, as old registers and exports write them.
const BRACKETED_TYPE = /([^\s(),\d][^(),\d]*?)\s*\(\s*([a-zà-ÿ][a-zà-ÿ.'’ ]*?)\s*\)/gi;
// "(cour)", "(bâtiment B)", "(3e étage)": any other bracketed text is a remark on the address, none of its parts.
const BRACKETED_REMARK = /\s*\([^()]*\)/g;
// "[bureau]", "[domicile]": square brackets hold no part of an address either.
const SQUARE_BRACKETED = /\s*\[[^[\]]*\]/g;
// "tél : 06 12 34 56 78", "+33 6 12 34 56 78": a French phone number pasted with the address.
const PHONE =
  /(^|[\s,;-])(?:(?:t[ée]l(?:[ée]phone)?|phone|portable|mobile)\.?\s*:?\s*)?(?:\+33\s?(?:\(0\)\s?)?|0)[1-9](?:[\s.-]?\d{2}){4}(?=[\s,;]|$)/gi;
const MAYBE_PHONE = /\+33|(?:^|\D)0[1-9]/;
const RARE_NOISE = /["«»“”+]|(?:^|\D)0[1-9]|\d\s?[eè]|fr?(?:\s?-\s?)?\d/;
// "digicode 1234A", "code porte : 45B12", "code 12A34": a door code, a delivery instruction (never a postcode: "Rue du
// Code 75004").
const DOOR_CODE =
  /(^|[\s,;-])(?:digicode|code\s+(?:porte|d'?entr[ée]e|immeuble|portail)|code(?=\s*:?\s*[a-z]*\d))\s*:?\s*(?!\d{5}(?:[\s,;]|$))[0-9a-z]{2,8}(?=[\s,;]|$)/gi;
// "12 rue de Rivoli 4e arrondissement Paris", "… - 4ème - Paris": the arrondissement before its city, written after it.
const ARRONDISSEMENT_FIRST =
  /(^|[\s,-])(\d{1,2})\s?(?:e|er|ère|ème|eme|ième|ieme)(?:\s+arr(?:ondissement|\.)?)?[\s,-]+(paris|lyon|marseille)(?=[\s,]|$)/gi;
// "75.004", "75-004": a postcode split after its département as a thousands separator would split it.
const SPLIT_POSTCODE = /(^|[\s,])(\d{2})[.-](\d{3})(?=[\s,]|$)/g;
// "Paris4", "paris04", "Lyon2e": the arrondissement glued to its city.
const GLUED_ARRONDISSEMENT = /(^|[\s,])(paris|lyon|marseille)(\d{1,2}(?:e|er|ème|eme|ième|ieme)?)(?=[\s,]|$)/gi;
// "F-75004 Paris", "FR-75004", "F75004": the country's letters before the postcode, as European business mail writes it.
const COUNTRY_PREFIX = /(^|[\s,])fr?(?:\s?-\s?)?(\d{5})(?=[\s,]|$)/gi;
// "France, 75004 Paris, 12 rue de Rivoli": the country first, in its own segment, or before the postcode with no
// separator ("FRANCE 75004 PARIS 10 RUE DE RIVOLI" was Avenue de France).
const LEADING_COUNTRY = /^\s*(?:france|fr)(?:\s*[,;-]\s*|\s+(?=\d{5}(?:[\s,;]|$)))/i;
// Quotes around the line or a part of it, as spreadsheets and CSV exports leave them: no address has any.
const QUOTES = /["«»“”]/g;
// "Rue de Rivoli n°12", "…, n° 12, …", "#12": the number sign anywhere (at the start, house_number.ts reads it too).
const NUMBER_SIGN = /(^|[\s,])(?:n\s?[°º]|num[ée]ro|#)\s*(?=\d)/gi;
const LEADING_NUMBER = /^\s*\d/;
const UNIT_NUMBER =
  /(\S)\s+(?:(?:apt|appt|app|appartement|unit|flat|suite|porte|bureau|local|logement)\.?\s*)?#\s*\d{1,4}[a-z]?(?=[\s,]|$)/gi;
// "12 rue de Rivoli angle rue du Renard", "angle rue de Rivoli et rue du Renard": a corner names two streets, the
// first is the address's.
const CORNER_AFTER = new RegExp(
  `\\s+(?:[àa]\\s+l['’ ]\\s*)?angle\\s+(?:(?:de\\s+la|du|des|de|d['’])\\s*)?(?:${STREET_TYPE_WORDS.join("|")})\\b[^,\\d]*`,
  "gi",
);
const CORNER_FIRST = /^\s*(?:[àa]\s+l['’ ]\s*)?angle\s+(?:(?:de\s+la|du|des|de|d['’])\s+)?/i;
const CORNER_SECOND = new RegExp(`\\s+(?:et|x|/)\\s+(?:${STREET_TYPE_WORDS.join("|")})\\b[^,\\d]*`, "i");
// "75004 Paris 75004", "75004 75004 Paris": a postcode written twice, as forms that join their fields twice do.
const REPEATED_POSTCODE = /(^|[\s,])(\d{5})((?:[\s,].*?)?)[\s,]+\2(?=[\s,]|$)/;
// "s/s" → sous, "s/" → sur, also between hyphens ("air-s/-l'adour").
const SOUS = /(^|[\s-])s\/s(?:[\s-]+|$)/gi;
const SUR = /(^|[\s-])s\/(?:[\s-]+|$)/gi;
// "Lieu-Dit Les Chênes" → "Les Chênes", only at the start and only when a name follows.
const LIEU_DIT = /^\s*(?:lieux?[\s-]?dits?)\s+(?=\S)/i;
// "Vosges93290" → "Vosges 93290", "75004Paris" → "75004 Paris" (forms and exports that join their fields leave them
// glued).
const GLUED_POSTCODE = /([a-zà-ÿ])(\d{5})(?!\d)/gi;
const GLUED_CITY = /(^|[\s,;])(\d{5})(?=[a-zà-ÿ]{2})/gi;
// "rue de Rivoli/75004 Paris", "Rivoli-75004", "75004/Paris", "75004_Paris": a slash, hyphen, dot or underscore between
// a postcode and a word, as forms that join their fields with one leave it. Five figures only: Paris's "Voie AB/13"
// and house-number ranges ("12-14") have fewer.
const MARK_BEFORE_POSTCODE = /(\p{L})[/._-](\d{5})(?=[\s,/._-]|$)/gu;
const MARK_AFTER_POSTCODE = /(^|[\s,])(\d{5})[/._-](?=\p{L})/gu;
const POSTCODE_BESIDE_MARK = /\d{5}[/._-]|[/._-]\d{5}/;
// "75OO4": the letter O typed for a zero, after the two digits of a département.
const LETTER_O_IN_POSTCODE = /(^|[\s,])(\d{2}[\do]{3})(?=[\s,.]|$)/gi;

// Semicolons separate like commas ("12 rue de Rivoli; 75004; Paris").
const SEMICOLONS = /\s*;\s*/g;
// "Chez Mme Martin, 12 rue …": the addressee's segment is no part of the address.
const CHEZ = /(^|,)\s*chez\s[^,]*,/gi;

/** Removes CEDEX, boxes, floors, "chez …", "Lieu-dit", a bracketed département and a postcode written twice, expands
 *  "s/" and "s/s", puts a bracketed type before its name, splits a postcode glued to a word, a number glued to its
 *  street type and an article glued to its type or inside "de la", reads semicolons as commas. */
export function cleanQuery(text: string): string {
  // Most lines have none of these noises: each pattern runs only when a word it needs is there (a pattern that does not
  // match still scans every position, and a line went through fifteen of them).
  const lower = text.toLowerCase();
  let out = text;
  if (lower.includes(";")) out = out.replace(SEMICOLONS, ", ");
  // One scan for four rare noises: quotes, a phone number, an arrondissement, a country's letters before a postcode.
  const rare = RARE_NOISE.test(lower);
  if (rare && /["«»“”]/.test(lower)) out = out.replace(QUOTES, " ");
  // After a house number, "#3" is a flat's (English "Apt #3"): it goes whole, where its sign alone made it a number.
  if (lower.includes("#") && LEADING_NUMBER.test(out)) out = out.replace(UNIT_NUMBER, "$1");
  if (lower.includes("n°") || lower.includes("nº") || lower.includes("num") || lower.includes("#"))
    out = out.replace(NUMBER_SIGN, "$1");
  if (lower.includes("angle")) out = cornerOnce(out);
  if (lower.includes("chez")) out = out.replace(CHEZ, "$1 ");
  if (lower.includes("cedex")) out = out.replace(CEDEX, "$1 $2").replace(CEDEX_ALONE, "");
  if (/b\.?\s?p|cs|tsa|cidex/.test(lower)) out = out.replace(BOXES, "$1");
  if (lower.includes("tage")) out = out.replace(FLOORS, "$1");
  if (rare && MAYBE_PHONE.test(lower)) out = out.replace(PHONE, "$1");
  if (lower.includes("code")) out = out.replace(DOOR_CODE, "$1");
  if (rare && /\d\s?[eè]/.test(lower) && /paris|lyon|marseille/.test(lower))
    out = out.replace(ARRONDISSEMENT_FIRST, "$1$3 $2e");
  if (lower.startsWith("f") || lower.startsWith(" ")) out = out.replace(LEADING_COUNTRY, "");
  if (rare && /fr?(?:\s?-\s?)?\d/.test(lower)) out = out.replace(COUNTRY_PREFIX, "$1$2");
  out = out.replace(REPEATED_POSTCODE, "$1$2$3");
  if (/\d\d[.-]\d{3}/.test(lower)) out = out.replace(SPLIT_POSTCODE, "$1$2$3");
  if (/(?:paris|lyon|marseille)\d/.test(lower)) out = out.replace(GLUED_ARRONDISSEMENT, "$1$2 $3");
  if (lower.includes("s/")) {
    out = out
      .replace(SOUS, (_m, pre: string) => `${pre === "-" ? " " : pre}sous `)
      .replace(SUR, (_m, pre: string) => `${pre === "-" ? " " : pre}sur `);
  }
  if (lower.includes("lieu")) out = out.replace(LIEU_DIT, "");
  if (POSTCODE_BESIDE_MARK.test(lower))
    out = out.replace(MARK_BEFORE_POSTCODE, "$1 $2").replace(MARK_AFTER_POSTCODE, "$1$2 ");
  out = out.replace(GLUED_POSTCODE, "$1 $2").replace(GLUED_CITY, "$1$2 ");
  if (/\d\do/.test(lower))
    out = out.replace(LETTER_O_IN_POSTCODE, (_m, pre: string, code: string) => pre + code.replace(/o/gi, "0"));
  if (lower.includes("(")) {
    out = out
      .replace(BRACKETED_POSTCODE, " $1 ")
      .replace(BRACKETED_DEPARTEMENT, "")
      .replace(BRACKETED_TYPE, bracketedType)
      .replace(BRACKETED_REMARK, " ");
  }
  if (lower.includes("[")) out = out.replace(SQUARE_BRACKETED, " ");
  if (DIGIT_THEN_LETTERS.test(out)) out = out.replace(GLUED_TYPE, "$1$2 $3");
  if (MAYBE_GLUED_ARTICLE.test(lower)) out = out.replace(GLUED_ARTICLE, gluedArticle);
  if (lower.includes("dela") || lower.includes("del'") || lower.includes("del’"))
    out = out.replace(GLUED_DE_LA, "$1de $2");
  return out.replace(/\s{2,}/g, " ").trim();
}

/** A corner's first street: "angle rue X et rue Y" → "rue X", "12 rue X angle rue Y" → "12 rue X". */
function cornerOnce(text: string): string {
  if (CORNER_FIRST.test(text)) {
    const first = text.replace(CORNER_FIRST, "");
    return first.replace(CORNER_SECOND, "");
  }
  return text.replace(CORNER_AFTER, "");
}

/** "RIVOLI (RUE DE)" → "RUE DE RIVOLI"; after a name that has its type already ("rue de Rivoli (cour)") the bracket is a
 *  remark, and goes. */
function bracketedType(whole: string, name: string, type: string): string {
  if (isStreetType(name.trim().split(/[\s.]/)[0]!.toLowerCase())) return name;
  return isStreetType(type.split(/[\s.]/)[0]!) ? `${type} ${name}` : whole;
}

function gluedArticle(whole: string, before: string, word: string, article: string): string {
  const lower = word.toLowerCase();
  return expandStreetType(lower) === lower ? `${before}${word} ${article}` : whole;
}

const DIGIT_THEN_LETTERS = /\d[a-zà-ÿ]{3}/i;

/** True when the text names a CEDEX distribution (its postcode then says nothing about the street). */
export function hasCedex(text: string): boolean {
  return /\bcedex\b/i.test(text);
}
