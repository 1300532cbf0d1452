// Noise that is no part of a postal address, removed before parsing (docs/address_rules.md §6, addok-france clean_query;
// cases in shared/address/fixtures/addok-france__test_clean_query.jsonl).

// "31068 TOULOUSE CEDEX 7" → "31 TOULOUSE": a CEDEX code is not geographic, only its département is kept.
const CEDEX = /\b(\d{2})\d{3}\s+([^\d,]+?)\s+cedex(?:\s*\d{1,3})?\b/gi;
const CEDEX_ALONE = /\s+cedex(?:\s*\d{1,3})?\b/gi;
// Post-office boxes and bulk-mail codes: BP 7015, B.P. N 7015, CS 40055, TSA No30719, CIDEX N°304.
const BOXES = /(^|[\s,])(?:b\.?\s?p\.?|cs|tsa|cidex)\s*(?:n\s*[°o]?\.?\s*)?\d+(?=[\s,]|$)/gi;
// "8e étage", "12ème étage".
const FLOORS = /(^|[\s,])\d{1,3}\s?(?:e|er|eme|ème|ieme|ième|è)\s+[ée]tage\b/gi;
// "s/s" → sous, "s/" → sur, also between hyphens ("air-s/-l'adour").
const SOUS = /(^|[\s-])s\/s(?:[\s-]+|$)/gi;
const SUR = /(^|[\s-])s\/(?:[\s-]+|$)/gi;
// "Lieu-Dit Les Chênes" → "Les Chênes", only at the start and only when a name follows.
const LIEU_DIT = /^\s*(?:lieux?[\s-]?dits?)\s+(?=\S)/i;
// "Vosges93290" → "Vosges 93290", "75004Paris" → "75004 Paris" (issue 14).
const GLUED_POSTCODE = /([a-zà-ÿ])(\d{5})\b/gi;
const GLUED_CITY = /(^|[\s,;])(\d{5})(?=[a-zà-ÿ]{2})/gi;
// Semicolons separate like commas ("12 rue de Rivoli; 75004; Paris").
const SEMICOLONS = /\s*;\s*/g;
// "Chez Mme Martin, 12 rue …": the addressee's segment is no part of the address (issue 14, item 2).
const CHEZ = /(^|,)\s*chez\s[^,]*,/gi;

/** Removes CEDEX, boxes, floors, "chez …" and "Lieu-dit", expands "s/" and "s/s", splits a postcode glued to a word,
 *  reads semicolons as commas. */
export function cleanQuery(text: string): string {
  const out = text
    .replace(SEMICOLONS, ", ")
    .replace(CHEZ, "$1 ")
    .replace(CEDEX, "$1 $2")
    .replace(CEDEX_ALONE, "")
    .replace(BOXES, "$1")
    .replace(FLOORS, "$1")
    .replace(SOUS, (_m, pre: string) => `${pre === "-" ? " " : pre}sous `)
    .replace(SUR, (_m, pre: string) => `${pre === "-" ? " " : pre}sur `)
    .replace(LIEU_DIT, "")
    .replace(GLUED_POSTCODE, "$1 $2")
    .replace(GLUED_CITY, "$1$2 ");
  return out.replace(/\s{2,}/g, " ").trim();
}

/** True when the text names a CEDEX distribution (its postcode then says nothing about the street). */
export function hasCedex(text: string): boolean {
  return /\bcedex\b/i.test(text);
}
