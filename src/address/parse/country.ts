// Country of an address: FR is the only country covered (spec). Accepted spellings: ISO alpha-2, alpha-3 or the name,
// in any case (docs/contract.md §4), and ISO numeric. The overseas départements have their own ISO codes but are French
// communes with BAN data, so GP/MQ/GF/RE/YT count as FR here.
import { foldAccents } from "../normalize/fold_accents.ts";
import { isRegionName } from "./region.ts";

const FRANCE = new Set([
  "fr",
  "fra",
  "fx",
  "france",
  "france metropolitaine",
  "republique francaise",
  "french republic",
  "gp",
  "glp",
  "guadeloupe",
  "mq",
  "mtq",
  "martinique",
  "gf",
  "guf",
  "guyane",
  "guyane francaise",
  "french guiana",
  "re",
  "reu",
  "reunion",
  "la reunion",
  "yt",
  "myt",
  "mayotte",
  // France's name in the languages of the forms of neighbouring countries: a French address with its country written
  // by a German or Spanish page ("Frankreich", "Francia") is no foreign one.
  "francia",
  "frankreich",
  "frankrijk",
  "franca",
  "frankrike",
  "frankrig",
  "francja",
  "francie",
]);
/** ISO 3166 numeric codes: France, then Guadeloupe, Martinique, French Guiana, Réunion and Mayotte. */
const FRANCE_NUMERIC = new Set(["250", "312", "474", "254", "638", "175"]);

function fold(text: string): string {
  return foldAccents(text)
    .toLowerCase()
    .replace(/[^a-z]+/g, " ")
    .trim();
}

let names: Map<string, string> | undefined;
/** Country names in French and English (from the ICU data of Node) and common aliases → alpha-2 code. */
function countryNames(): Map<string, string> {
  if (names) return names;
  names = new Map();
  const displays = [
    new Intl.DisplayNames(["fr"], { type: "region" }),
    new Intl.DisplayNames(["en"], { type: "region" }),
  ];
  for (let a = 65; a <= 90; a++) {
    for (let b = 65; b <= 90; b++) {
      const code = String.fromCharCode(a, b);
      for (const d of displays) {
        const name = d.of(code);
        if (name && name !== code) names.set(fold(name), code);
      }
    }
  }
  const aliases: Record<string, string> = {
    uk: "GB",
    "united kingdom": "GB",
    england: "GB",
    angleterre: "GB",
    "great britain": "GB",
    usa: "US",
    "etats unis": "US",
    "united states of america": "US",
    deutschland: "DE",
    espana: "ES",
    italia: "IT",
    schweiz: "CH",
    suisse: "CH",
    nederland: "NL",
    belgie: "BE",
    "pays bas": "NL",
  };
  for (const [k, v] of Object.entries(aliases)) names.set(k, v);
  for (const f of FRANCE) if (f.length > 3) names.set(f, "FR");
  return names;
}

/** True when a country value designates France (covered); anything else given is not covered. */
export function isFrance(value: string): boolean {
  return FRANCE.has(fold(value)) || FRANCE_NUMERIC.has(value.trim());
}

/**
 * The country a postcode belongs to when it is not France: La Poste delivers Monaco under postcodes of its own format
 * (98000, commune code 99138, a foreign country's), so "…, 98000 Monaco" is an address outside France. Null otherwise.
 */
export function countryOfPostcode(postcode: string): string | null {
  return /^980\d\d$/.test(postcode) ? "MC" : null;
}

/** Alpha-2 code of a country written in full at the end of a line ("…, Belgique"), or null. */
export function countryFromName(text: string): string | null {
  const key = fold(text);
  if (key === "") return null;
  if (FRANCE.has(key)) return "FR";
  return countryNames().get(key) ?? null;
}

/** Splits a trailing country off a free-form line: its own comma segment (names or codes), or trailing words. */
export function splitCountry(line: string): { rest: string; country: string | null; from: "segment" | "words" | null } {
  const comma = line.lastIndexOf(",");
  if (comma >= 0) {
    const last = line.slice(comma + 1).trim();
    // The short names of French regions people add after the city ("Paris, IDF") are no country's code.
    if (/^[a-z]{2,3}$/i.test(last) && !isRegionName(last)) {
      // A bare code as its own segment: FR/FRA, or any other code (not covered), but never a number or a city.
      if (isFrance(last) || countryNames().has(fold(last)) || /^[A-Z]{2,3}$/.test(last)) {
        return { rest: line.slice(0, comma).trim(), country: last, from: "segment" };
      }
    }
    const code = countryFromName(last);
    if (code) return { rest: line.slice(0, comma).trim(), country: last, from: "segment" };
  }
  // "… 75001 Paris France": trailing words after a postcode, longest name first. Four digits too: Belgium's,
  // Switzerland's and a few more ("1000 Bruxelles Belgique"), and ours short of their leading zero.
  const m = /\b\d{4,5}\s+(.+)$/.exec(line);
  // Not when a street follows the postcode, with its number or after a comma: the words are the street's ("Paris 75016
  // 3 Avenue de Pologne", "75008 Paris, 35 Avenue Pierre Ier de Serbie", "75013 Paris, Rue de Sainte-Hélène 3").
  if (m && !/^\d/.test(m[1]!) && !m[1]!.includes(",") && !/\d\s+\p{L}/u.test(m[1]!)) {
    const words = m[1]!.trim().split(/\s+/);
    // "97400 La Réunion": the whole text after the postcode names a French region of its own, no city.
    if (words.length >= 2 && isFrance(m[1]!.trim())) {
      return { rest: line.slice(0, line.length - m[1]!.length).trim(), country: m[1]!.trim(), from: "words" };
    }
    // The city may stand before the postcode ("… Paris 75004 France"): France alone may then follow it (any other
    // country's name may be a commune's: "31330 Grenade").
    if (m.index > 0 && words.length === 1 && isFrance(words[0]!) && !/^[a-z]{2,3}$/.test(words[0]!))
      return { rest: line.slice(0, line.length - words[0]!.length).trim(), country: words[0]!, from: "words" };
    for (let n = Math.min(4, words.length - 1); n >= 1; n--) {
      const tail = words.slice(-n).join(" ");
      // "75004 Paris Ile de France": the region's last word, not the country (a fix-up takes the region off the city).
      if (/(?:^|\s)[iî]le\s+de$/i.test(words.slice(0, -n).join(" "))) continue;
      // Codes in capitals too, for France only ("75004 Paris FR"): a word of two letters is no safe country else.
      if ((tail.length >= 4 && countryFromName(tail)) || /^(?:FR|FRA)$/.test(tail)) {
        return { rest: line.slice(0, line.length - tail.length).trim(), country: tail, from: "words" };
      }
    }
  }
  return { rest: line, country: null, from: null };
}
