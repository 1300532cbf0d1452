// From AddressInput (a free-form line and/or separate fields) to the parts the matcher compares. Separate fields
// override what the line says (docs/address_rules.md §6). No reference data is needed here: this is pure text handling.
import { isStreetType } from "../normalize/street_types.ts";
import type { AddressInput } from "../types.ts";
import { cleanQuery, hasCedex } from "./clean_query.ts";
import { splitCountry } from "./country.ts";
import { extractAddress } from "./extract_address.ts";
import { formText } from "./form_text.ts";
import { readHouseNumber, readTrailingHouseNumber, SUFFIX_FOLD } from "./house_number.ts";
import { isRegionName } from "./region.ts";

export interface ParsedAddress {
  houseNumber: string | null;
  /** Lower case, suffix words folded to their letter ("bis" → "b"); letters as written ("a"). */
  suffix: string | null;
  street: string | null;
  postcode: string | null;
  city: string | null;
  country: string | null;
  /** How the country was read off the line: its own comma segment, trailing words, or not from the line. */
  countryFrom: "segment" | "words" | null;
  /** Set when the postcode given was a CEDEX code: only its département says something (docs/address_rules.md §6). */
  cedexDepartement: string | null;
  /** The CEDEX line's postcode as written, when it had one: the answer's postcode is no correction when it is the same
   *  ("75004 PARIS CEDEX 04" for a street of the 4th). */
  cedexPostcode?: string;
  /** The number was read after the street ("Boulevard Saint-Martin 20"): it may belong to the name ("Pont Alexandre
   *  3" for BAN's "Pont Alexandre III"), which only the index can tell (match/parser_fixups.ts). */
  numberAfterStreet?: boolean;
  /** The house number typed again after the street, taken off it ("10 rue de Rivoli 10"): it may belong to the name
   *  ("7 Place Edouard 7" for BAN's "Place Édouard VII"), which only the index can tell (match/parser_fixups.ts). */
  repeatedNumber?: string;
  /** With no city read, the words before the street, which may be the city written first ("PARIS 10 RUE DE RIVOLI",
   *  "Paris, rue de Rivoli 10") or a company's or building's name ("Résidence les Lilas, 10 rue …"): only the
   *  reference and the index can tell (match/city_written_first.ts). `street` is the street read then. */
  cityFirst?: CityFirst;
}

export interface CityFirst {
  city: string;
  street: string;
  /** The house number between them, when no type word starts the street ("PARIS 2 PÉRISTYLE DE BEAUJOLAIS"). */
  houseNumber?: string;
  suffix?: string | null;
}

const POSTCODE = /(?:^|[\s,])(\d{5})(?=[\s,.]|$)/g;
// After the postcode, a house number and at least two words: the street comes after the locality.
const LOCALITY_FIRST = /^[\s,]*\d{1,4}(?:\s*(?:bis|ter|[a-z]))?[\s,]+[a-zà-ÿ]{2,}\.?\s+\S/i;
// After a postcode that starts the line, a city and then a house number and a word: "75004 Paris, 12 rue de Rivoli".
// The city may be left out ("75004, 12 rue de Rivoli") or name its arrondissement ("75001 Paris 1er 12 rue …").
const CITY_THEN_STREET =
  /^[\s,]*(?:([^,\d]*[a-zà-ÿ](?:[^,\d]|\d{1,2}(?:er|e|ème|eme|ième|ieme)\b)*?)(?:\s*,\s*|\s+))?(?=(?!\d{1,2}(?:er|e|ème|eme|ième|ieme),)\d{1,4}(?:\s*(?:bis|ter|[a-z]))?[\s,]+[a-zà-ÿ]{2,})/i;
// A postcode after some text: "10 rue de Rivoli 75004 Paris", never a street that starts with five digits.
const POSTCODE_INSIDE = /\S\s*[\s,]\d{5}(?:[\s,]|$)/;
const CEDEX_DEPARTEMENT = /(?:^|[\s,])(\d{2}|2[ab]|97\d)\s+([^\d,][^\d]*)$/i;
// A floor without the word étage, which its side or "ét." then tells ("3e gauche", "1er dr", "2e ét", "RDC"), and the
// back of a courtyard: what people add after the street for the postman. A bare ordinal is not one: "Cour de Rome 8ème".
const FLOOR_OR_COURTYARD =
  "(?:\\d{1,2}\\s?(?:e|er|eme|ème|ieme|ième|è)\\s+(?:gauche|droite|g|d|dr|ga|face|fond|[ée]tg?\\.?(?:\\s+(?:gauche|droite|g|d|dr))?)|(?:rdc|rez[\\s-]de[\\s-]chauss[ée]e)(?:\\s+(?:gauche|droite|g|d))?|(?:au\\s+)?fond\\s+de\\s+(?:la\\s+)?cour|[ée]t\\.\\s*\\d{1,2})";
// A dwelling or letter box by its number ("logement 34", "boîte 12"): a digit must follow, since "Rue de la Boîte" is a
// name.
const DWELLING = "(?:logement|logt|lgt|bo[iî]te(?:\\s+aux\\s+lettres)?|bte|bal)\\.?\\s*(?:n°\\s*)?\\d{1,4}[a-z]?";
// Who to ring, written after the address ("interphone Dupont", "sonner chez Martin"): a delivery note, no part of it.
const DELIVERY_NOTE = "(?:interphone|sonnette|sonner(?:\\s+chez)?)\\s+[^\\d,]{1,40}";
// Units written in English by people abroad: "Apt 5B", "Unit 5", "Flat 3", "Suite 200", "Floor 3", "3rd floor"; a space
// after the word ("Rue Flatters" is a name). ("#3" goes in clean_query.ts.)
const ENGLISH_UNIT = "(?:unit|flat|suite|floor)\\s+(?:no\\.?\\s*)?\\w{1,5}|\\d{1,2}(?:st|nd|rd|th)\\s+floor";
// Trailing segments that are no street: "Bât B", "Appartement 12", "Escalier 3", "3e gauche". The word ends where no
// letter follows: "Charlot", "Chaptal", "Portefoin" are names that begin with "ch" and "porte" (they were dropped).
const TRAILING_NOISE = new RegExp(
  `^(?:(?:bat|bât|batiment|bâtiment|appt?|appartement|esc|escalier|etage|étage|etg|porte|apt|ch|chambre|lot)(?![a-zà-ÿ])\\.?\\s*(?:n°\\s*)?[\\w-]{0,5}|${FLOOR_OR_COURTYARD}|${DWELLING}|${DELIVERY_NOTE}|${ENGLISH_UNIT})$`,
  "i",
);

/** A postcode as written, made comparable: spaces out ("75 004"), the letter O for a zero ("750O4"), the leading zero
 *  that spreadsheets drop put back ("1000" for 01000), and what else they do to it ("75004.0", "75.004"), the
 *  country's letters before it ("F-75004"), Corsica's letters in upper case ("2a000"). It may still be no postcode at
 *  all ("7504"): the matcher then corrects it, or says the postcode is missing. */
export function comparablePostcode(written: string): string {
  const compact = written
    .replace(/\s+/g, "")
    .toUpperCase()
    // "F-75004", "FR75004": the country's letters before the code, as for mail from abroad.
    .replace(/^(?:F|FR|FRA)-?(?=\d{5}$)/, "")
    // From spreadsheets: "75004.0" (a number read as a float), "75.004" (a thousands separator).
    .replace(/^(\d{4,5})\.0+$/, "$1")
    .replace(/^(\d{1,2})[.,](\d{3})$/, "$1$2");
  // "750O4": the letter O typed for a zero.
  if (/^\d{2}[\dO]{3}$/.test(compact)) return compact.replaceAll("O", "0");
  return /^\d{4}$/.test(compact) ? `0${compact}` : compact;
}

/** The field's text, or null when it holds nothing but spaces and punctuation ("-", "." typed to get past a form). */
function blank(value: string | undefined): string | null {
  const v = value === undefined ? undefined : formText(value).trim();
  return v && /[\p{L}\p{N}]/u.test(v) ? v : null;
}

/** "bis" → "b", "ter" → "t": suffix words folded to the letter BAN writes; letters as written. */
export function foldSuffix(suffix: string | null): string | null {
  if (suffix === null) return null;
  return SUFFIX_FOLD[suffix] ?? suffix;
}

function cleanPart(text: string): string {
  return text.replace(/^[\s,.;-]+|[\s,.;-]+$/g, "").replace(/\s{2,}/g, " ");
}

interface LineParts {
  address: string;
  postcode: string | null;
  city: string | null;
  country: string | null;
  countryFrom: ParsedAddress["countryFrom"];
  cedexDepartement: string | null;
  cedexPostcode: string | null;
}

// The postcode of a CEDEX line, before clean_query.ts keeps only its département.
const CEDEX_POSTCODE = /\b(\d{5})\s+[^\d,]+?\s+cedex\b/i;

function splitLine(line: string): LineParts {
  const cedex = hasCedex(line);
  const cedexPostcode = cedex ? (CEDEX_POSTCODE.exec(line)?.[1] ?? null) : null;
  const { rest, country, from: countryFrom } = splitCountry(cleanQuery(line));
  let last: RegExpExecArray | null = null;
  for (const m of rest.matchAll(POSTCODE)) last = m as RegExpExecArray;
  let address = rest;
  let postcode: string | null = null;
  let city: string | null = null;
  let cedexDepartement: string | null = null;
  if (last) {
    const start = last.index + last[0].indexOf(last[1]!);
    postcode = last[1]!;
    address = rest.slice(0, start);
    const after = rest.slice(start + 5);
    let cityThenStreet = /^[\s,.;-]*$/.test(address) ? CITY_THEN_STREET.exec(after) : null;
    // "75116, av. Foch 10, Paris": what stands before the number is a street, not a city.
    if (cityThenStreet?.[1] !== undefined && startsWithStreetType(cityThenStreet[1])) cityThenStreet = null;
    const localityFirst = /^[\s,.;-]*$/.test(address) && cityThenStreet === null ? localityThenStreet(after) : null;
    if (
      !/\d/.test(address) &&
      cleanPart(address) !== "" &&
      (LOCALITY_FIRST.test(after) || cityBeforeStreet(address, after))
    ) {
      // "Paris 75004 10 rue de Rivoli", "Paris 75004, rue de Rivoli 10": the locality first, as forms that join their
      // fields in the wrong order do.
      city = cleanPart(address);
      address = after;
    } else if (cityThenStreet !== null) {
      // "75004 Paris, 12 rue de Rivoli", "75004 Paris 12 rue de Rivoli": the postcode, the city, then the street.
      city = cityThenStreet[1] === undefined ? null : cleanPart(cityThenStreet[1]) || null;
      address = after.slice(cityThenStreet[0].length);
    } else if (localityFirst !== null) {
      ({ city, address } = localityFirst);
    } else {
      // "…, 75004, Paris": the city may stand in the segment after the postcode's.
      city =
        after
          .split(",")
          .map(cleanPart)
          .find((s) => s !== "") ?? null;
    }
  } else if (cedex) {
    const m = CEDEX_DEPARTEMENT.exec(rest);
    // At the start of the line the number is the house number: "10 rue de Rivoli PARIS CEDEX 04".
    if (m && m.index > 0) {
      cedexDepartement = m[1]!.toUpperCase();
      address = rest.slice(0, m.index);
      city = cleanPart(m[2]!) || null;
    }
  }
  if (city === null) {
    // "12 rue de Rivoli, Paris" or "12 rue de Rivoli, Paris 75001": the city is the last comma segment.
    const segments = address
      .split(",")
      .map(cleanPart)
      .filter((s) => s !== "");
    // "12 rue de Rivoli, Paris, Île-de-France": a region after the city's segment goes (alone after the street, it is
    // read where the city goes, and names none: match/parser_fixups.ts).
    if (segments.length >= 3 && isRegionName(segments.at(-1)!)) {
      segments.pop();
      address = segments.join(", ");
    }
    // Not a street after its number ("8 bis, rue de Rivoli"), nor a street with or without its number ("Résidence les
    // Lilas, 10 rue de l'Université"), though a postcode written amiss may start a city's segment ("…, 75 004 Paris").
    // After a number of its own the city still is one ("rue de Rivoli, 8, Paris").
    const last = segments.at(-1)!;
    const afterNumber = segments.length === 2 && NUMBER_SEGMENT.test(segments[0]!);
    const numberedStreet = startsWithStreetType(readHouseNumber(last)?.rest ?? "");
    if (
      segments.length >= 2 &&
      !afterNumber &&
      !numberedStreet &&
      (!startsWithStreetType(last) || TYPE_WORD_OF_TOWN.test(last)) &&
      !NUMBER_OF_PLACE.test(last)
    ) {
      city = segments.pop()!;
      address = segments.join(", ");
    }
  }
  return { address: cleanPart(address), postcode, city, country, countryFrom, cedexDepartement, cedexPostcode };
}

// A last segment that is a département's number ("…, 75") or an arrondissement with no city ("…, 2e arrondissement"):
// it names no city, and read as one it named nothing (nonexistent).
const NUMBER_OF_PLACE =
  /^(?:\d{2}|2[ab]|97\d|\d{1,2}\s*(?:er|e|ème|eme|ième|ieme)(?:\s*(?:arr|arrt|arrondissement)\.?)?)$/i;

// Towns whose name begins with a street type's word joined by a hyphen: "…, Pointe-à-Pitre", "…, Bourg-en-Bresse",
// "…, Pont-Audemer", "…, Port-Vendres" after a comma are the city (read as a street, the line had no city).
const TYPE_WORD_OF_TOWN = /^(?:bourg|pont|port|pointe)-\p{L}/iu;

/** The text's first word is a street type: "rue de Rivoli 10", "av. Foch". */
function startsWithStreetType(text: string): boolean {
  const first = cleanPart(text).split(/[\s.'’-]/)[0]!;
  return first !== "" && isStreetType(first);
}

/** "Paris 75004, rue de Rivoli 10": a city before the postcode, and after it a street (which has no number first). */
function cityBeforeStreet(address: string, after: string): boolean {
  return !startsWithStreetType(address) && startsWithStreetType(after) && /\S\s+\S/.test(cleanPart(after));
}

/**
 * After a postcode that starts the line, the city and a street that has its number after it, or none: "75004 Paris,
 * rue de Rivoli 10", "75004 Paris rue de Rivoli 10", "75004, rue de Rivoli". Null when the text is read otherwise.
 */
function localityThenStreet(after: string): { city: string | null; address: string } | null {
  const segments = after
    .split(",")
    .map(cleanPart)
    .filter((s) => s !== "");
  if (segments.length === 0) return null;
  if (startsWithStreetType(segments[0]!)) return { city: null, address: after };
  if (segments.length >= 2 && startsWithStreetType(segments[1]!)) {
    return { city: segments[0]!, address: segments.slice(1).join(", ") };
  }
  if (segments.length > 1) return null;
  // No comma: the street starts at the first type word that the number ends ("Paris rue de Rivoli 10").
  const words = segments[0]!.split(" ");
  for (let i = 1; i < words.length - 2; i++) {
    const street = words.slice(i).join(" ");
    if (isStreetType(words[i]!) && readTrailingHouseNumber(street) !== null) {
      return { city: words.slice(0, i).join(" "), address: street };
    }
  }
  return null;
}

/** The street part of a line or of the street field, and what stood before the street: a name's segments
 *  (withoutNameSegments), or the words before "<number> <type>" (extract_address.ts: "PARIS 10 RUE …"); "" for none. */
function streetPart(text: string): { address: string; before: string } {
  const named = withoutNameSegments(cleanPart(text));
  const extracted = extractAddress(named.address);
  const dropped = named.address.slice(0, named.address.length - extracted.length);
  return { address: cleanPart(extracted), before: cleanPart(`${named.name ?? ""} ${dropped}`) };
}

/**
 * "Résidence les Lilas, rue de l'Université 10", "Paris, rue de Rivoli 10": comma segments that name no street before
 * one that starts with a street type, with or without its number. The name is set apart (a building's, or the city
 * written first); the address is the rest. Unchanged when the first segment is a street or a number.
 */
function withoutNameSegments(address: string): { name: string | null; address: string } {
  if (!address.includes(",")) return { name: null, address };
  const segments = address.split(",").map(cleanPart);
  // A first segment that starts with a number, or ends with the street's ("Immeuble Plein-Centre 60, avenue du
  // Centre"), is left to extract_address.ts.
  if (segments.length < 2 || readHouseNumber(segments[0]!) !== null || /\d$/.test(segments[0]!)) {
    return { name: null, address };
  }
  // A first segment that starts with a type ("Résidence", "Villa", "Hameau" are types of BAN too) gives way only to a
  // numbered street.
  const typed = startsWithStreetType(segments[0]!);
  const street = segments.findIndex((s, i) => {
    if (i === 0) return false;
    const numbered = readHouseNumber(s) ?? readTrailingHouseNumber(s);
    if (numbered !== null) return startsWithStreetType(numbered.rest);
    return !typed && startsWithStreetType(s);
  });
  if (street === -1) return { name: null, address };
  // "Apt 3, 8, rue de Rivoli": the number in a segment of its own stays with its street.
  const start = NUMBER_SEGMENT.test(segments[street - 1]!) ? street - 1 : street;
  if (start === 0) return { name: null, address };
  return { name: segments.slice(0, start).join(", "), address: segments.slice(start).join(", ") };
}

/** "Paris rue de Rivoli": a street that does not start with a type, split before the first type word that a name
 *  follows; null when there is none. */
function typeAfterFirstWords(street: string): CityFirst | null {
  if (startsWithStreetType(street)) return null;
  const words = street.split(" ");
  for (let i = 1; i < words.length - 1; i++) {
    if (isStreetType(words[i]!)) return { city: words.slice(0, i).join(" "), street: words.slice(i).join(" ") };
  }
  return null;
}

/**
 * The house number after the street ("rue de Rivoli 10"), in the next comma segment ("rue de Rivoli, 10"), or ending a
 * street that other words, maybe the city, come before ("Paris rue de Rivoli 10"); the street without it. Null when
 * the street does not end with a house number.
 */
function numberAfter(
  street: string,
  nextSegment?: string,
): { houseNumber: string; suffix: string | null; street: string } | null {
  const trailing =
    readTrailingHouseNumber(street) ??
    (nextSegment !== undefined && NUMBER_SEGMENT.test(nextSegment)
      ? readTrailingHouseNumber(`${street} ${nextSegment}`)
      : null);
  if (trailing !== null)
    return { houseNumber: trailing.number, suffix: foldSuffix(trailing.suffix), street: trailing.rest };
  // "Rivoli, 12, Paris": a name without its type, then its number in a segment of its own, which no name has.
  const own = nextSegment !== undefined && NUMBER_SEGMENT.test(nextSegment) ? readHouseNumber(nextSegment) : null;
  if (own !== null && !/\d/.test(street) && /\p{L}{2}/u.test(street) && !startsWithStreetType(street)) {
    return { houseNumber: own.number, suffix: foldSuffix(own.suffix), street };
  }
  const typed = typeAfterFirstWords(street);
  const after = typed === null ? null : readTrailingHouseNumber(typed.street);
  if (typed === null || after === null) return null;
  return { houseNumber: after.number, suffix: foldSuffix(after.suffix), street: `${typed.city} ${after.rest}` };
}

/** "PARIS 2 PÉRISTYLE DE BEAUJOLAIS": words, a house number, then a name with no type word that extract_address.ts
 *  could stop at; null otherwise. */
function numberAfterFirstWords(street: string): CityFirst | null {
  const words = /^(\D+?)\s+(?=\d)/.exec(street);
  if (words === null || startsWithStreetType(street)) return null;
  const hn = readHouseNumber(street.slice(words[0].length));
  if (hn === null || !/\p{L}{2}/u.test(hn.rest)) return null;
  return { city: cleanPart(words[1]!), street: hn.rest, houseNumber: hn.number, suffix: foldSuffix(hn.suffix) };
}

// The same inside the street segment, at its end: "rue X appartement 12", "rue X bât. C esc 2", "rue X 3e gauche",
// the number glued to its word too ("rue X apt12").
const TRAILING_UNIT = new RegExp(
  `\\s+(?:(?:bat|bât|batiment|bâtiment|appt?|appartement|apt|esc|escalier|etage|étage|etg|ch|chambre)(?=[\\s.\\d])\\.?\\s*(?:n°\\s*)?[\\w-]{1,5}|porte\\s*(?:n°\\s*)?\\d{1,4}[a-z]?|porte\\s+(?:gauche|droite|g|d|face)|${FLOOR_OR_COURTYARD}|${DWELLING}|${DELIVERY_NOTE}|${ENGLISH_UNIT})$`,
  "i",
);
// Premises inside the building ("bureau 5", "local 3", "tour A", "cour B", "box 12"), and places in it with no number
// ("sous-sol", "loge du gardien"). Their words also end names ("Rue de la Tour", "Cour du Commerce"): never after an
// article, and with the premises' number or letter apart from the word ("Rue Burq" is a name).
const TRAILING_PREMISES =
  /(?<!(?:^|\s)(?:de|du|des|la|le|les|aux|l'|d'|l’|d’))\s+(?:(?:bureau|local|tour|cour|box|cave|parking|magasin)(?:\.?\s+|\.)(?:n°\s*)?(?:\d{1,4}[a-z]?|[a-z])|sous[\s-]sol|loge(?:\s+du)?\s+gardien)$/i;

const NUMBER_SEGMENT = /^\d{1,4}\s*(?:bis|ter|quater|[a-z])?$/i;
// A word repeated whole (\b is ASCII's: "r résal" would repeat "r").
const DOUBLED_WORD = /^(\p{L}+)\.?(?=\s+\1(?!\p{L}))/iu;

// After the street, without a comma: the addressee ("c/o M. Dupont", "chez Mme Martin") or a residence or building
// named by its own words ("Rés Les Lilas", "Immeuble Le Central"), never after an article ("Rue de la Résidence").
const ADDRESSEE_AFTER = /\s+(?:c\/o|chez\s+(?:m|mme|mr|mlle|monsieur|madame|mademoiselle)\b|attn\b).*$/i;
const BUILDING_AFTER = /(\S+)\s+(?:r[ée]s|r[ée]sidence|imm|immeuble)\.?\s+\S.*$/i;
const ARTICLE = /^(?:de|du|des|la|le|les|l'|l’|d'|d’)$/i;
// After the street, without a comma, the lieu-dit the address also stands in ("12 Route de Belfort lieu-dit Les
// Jardins"): BAN files it apart from the street (nom_ld), never in its name. Not after an article ("Chemin du Lieu-dit").
const LIEU_DIT_AFTER = /(\S+)\s+(?:lieu[\s-]?dits?|lieudit|ld)\.?\s+\S.*$/i;

function streetSegment(text: string): string {
  const segments = text
    .split(",")
    .map(cleanPart)
    .filter((s) => s !== "" && !TRAILING_NOISE.test(s));
  let street = (segments[0] ?? "").replace(ADDRESSEE_AFTER, "");
  const building = BUILDING_AFTER.exec(street);
  if (building !== null && building.index > 0 && !ARTICLE.test(building[1]!)) {
    street = street.slice(0, building.index + building[1]!.length);
  }
  const lieuDit = LIEU_DIT_AFTER.exec(street);
  if (lieuDit !== null && lieuDit.index > 0 && !ARTICLE.test(lieuDit[1]!)) {
    street = street.slice(0, lieuDit.index + lieuDit[1]!.length);
  }
  street = withoutTrailingUnits(street);
  // "rue rue de Rivoli": a type word typed twice.
  const doubled = DOUBLED_WORD.exec(street);
  if (doubled !== null && isStreetType(doubled[1]!)) street = street.slice(doubled[0].length).trimStart();
  return inFrenchOrder(street);
}

/** The street without the units written after it: "rue X appartement 12", "rue X bât. C esc 2 3e étage". Also asked
 *  once the city is taken off the end of a street ("10 Rue de Rivoli Apt 5B Paris 75004", match/parser_fixups.ts). */
export function withoutTrailingUnits(street: string): string {
  let out = street;
  for (let i = 0; i < 4; i++) {
    const next = out.replace(TRAILING_UNIT, "").replace(TRAILING_PREMISES, "");
    if (next === out) break;
    out = next;
  }
  return out;
}

// The type written after the name, in English ("Rivoli Street", "Champs Elysees Avenue", "Rivoli St"), and English
// articles after a type ("Avenue of the Champs-Elysees"), as people abroad write French addresses.
const TYPE_AFTER_NAME = /^(\S.*?\S)\s+(street|st|avenue|ave|boulevard|blvd|square|quay)\.?$/i;
const ENGLISH_TYPES: Readonly<Record<string, string>> = {
  street: "rue",
  st: "rue",
  avenue: "avenue",
  ave: "avenue",
  boulevard: "boulevard",
  blvd: "boulevard",
  square: "square",
  quay: "quai",
};
const FRENCH_TYPE_LAST = /^(?:avenue|boulevard|square)$/i;
const OF_THE = /^(\S+)\s+of(?:\s+the)?\s+(?=\S)/i;

function inFrenchOrder(street: string): string {
  const typeLast = TYPE_AFTER_NAME.exec(street);
  // A French type word last only after a name without one ("Champs Elysees Avenue"); an English one after any
  // ("Faubourg Poissonnière Street", "Gare Street": faubourg and gare are types of BAN too).
  if (typeLast !== null && FRENCH_TYPE_LAST.test(typeLast[2]!) && startsWithStreetType(street)) return street;
  // Not after an article: "Le Boulevard" is a name.
  if (typeLast !== null && !ARTICLE.test(typeLast[1]!.split(" ").at(-1)!) && /\p{L}{3}/u.test(typeLast[1]!)) {
    return `${ENGLISH_TYPES[typeLast[2]!.toLowerCase()]} ${typeLast[1]}`;
  }
  const ofThe = OF_THE.exec(street);
  return ofThe !== null && isStreetType(ofThe[1]!) ? `${ofThe[1]} ${street.slice(ofThe[0].length)}` : street;
}

// "Paris (75)": the département in brackets; "Paris, France": the country after the city.
const CITY_FIELD_NOISE = /\s*\((?:\d{2}|2[ab]|97\d)\)|\s*,\s*(?:france|fr|fra)\s*$/gi;

/** The city field without what forms and directories add to a city's name. */
function cityField(text: string): string | null {
  return cleanPart(text.replace(CITY_FIELD_NOISE, "")) || null;
}

const SUFFIX_ALONE = /^(?:bis|ter|quater|quinquies|[a-d])$/i;
/** A street part of figures and separators only. */
const FIGURES_ONLY = /^[\d\s/-]+$/;
const SUFFIX_BEFORE_STREET = /^(bis|ter|quater|quinquies|[a-d])\.?\s+/i;

/** "rue de Rivoli 10" after "10": the number typed again after the street, and the street without it; null when the
 *  street does not end with the same number (nor with a date's: "rue du 8 Mai 1945"). */
function repeatedNumber(
  street: string,
  houseNumber: string,
  suffix: string | null,
): { street: string; again: string } | null {
  const again = readTrailingHouseNumber(street);
  if (again === null || again.number !== houseNumber) return null;
  if (again.suffix !== null && foldSuffix(again.suffix) !== suffix) return null;
  return { street: again.rest, again: street.slice(again.rest.length).trim() };
}

// "n° 12", "No 12", "numéro 12", "#12" in the house-number field.
const NUMBER_SIGN_IN_FIELD = /^(?:n\s?[°o]|num[ée]ro|num|#)\.?\s*(?=\d)/i;
const POSTCODE_IN_FIELD = /(?:^|[\s,])(\d{5}|\d{2}\s\d{3})(?=[\s,]|$)/;

function hasLetter(text: string | null): boolean {
  return text !== null && /\p{L}/u.test(text);
}

/**
 * The postcode and city fields as forms fill them: "75004 Paris" in the city field (and no postcode, or the same one),
 * "75004 Paris" in the postcode field, or the two fields swapped ("Paris" as postcode, "75004" as city).
 */
function localityFields(
  postcode: string | null,
  written: string | null,
): { postcode: string | null; city: string | null } {
  const city = written === null ? null : cityField(written);
  if (hasLetter(postcode) && city !== null && !hasLetter(city)) return { postcode: city, city: postcode };
  if (postcode !== null && hasLetter(postcode)) {
    const inside = POSTCODE_IN_FIELD.exec(postcode);
    if (inside !== null) {
      const rest = cleanPart(postcode.replace(inside[0], " "));
      return { postcode: inside[1]!, city: city ?? (rest || null) };
    }
    // "Paris 4e" in the postcode field and nothing in the city's: a city (no postcode has two letters in a row but
    // "75OO4", whose département's digits come first).
    if (city === null && /\p{L}{2}/u.test(postcode) && !/^\s*\d{2}/.test(postcode)) {
      return { postcode: null, city: cityField(postcode) };
    }
  }
  if (city !== null) {
    const inside = POSTCODE_IN_FIELD.exec(city);
    const code = inside === null ? null : comparablePostcode(inside[1]!);
    if (inside !== null && (postcode === null || comparablePostcode(postcode) === code)) {
      return { postcode: postcode ?? code, city: cleanPart(city.replace(inside[0], " ")) || null };
    }
  }
  return { postcode, city };
}

/** Parses the input into comparable parts; never throws. */
export function parseAddress(input: AddressInput): ParsedAddress {
  let houseNumber: string | null = null;
  let suffix: string | null = null;
  let street: string | null = null;
  let postcode: string | null = null;
  let city: string | null = null;
  let country: string | null = null;
  let countryFrom: ParsedAddress["countryFrom"] = null;
  let cedexDepartement: string | null = null;
  let numberAfterStreet = false;
  let cedexPostcode: string | null = null;
  let repeatedAgain: string | null = null;
  let cityFirst: ParsedAddress["cityFirst"] | null = null;

  // A whole address in the street field, as forms with one address box send it ("10 rue de Rivoli 75004 Paris"), or
  // as an autocomplete pastes it beside the postcode and city fields it also fills: with no line, a street that holds
  // a postcode is read as the line, and the postcode and city fields, when given, then stand over what it says.
  const streetAsLine = blank(input.line) === null && POSTCODE_INSIDE.test(input.street ?? "");
  const line = streetAsLine ? blank(input.street) : blank(input.line);
  if (line !== null) {
    const parts = splitLine(line);
    ({ postcode, city, country, countryFrom, cedexDepartement, cedexPostcode } = parts);
    const { address, before } = streetPart(parts.address);
    const hn = readHouseNumber(address, { postcodeElsewhere: postcode !== null || cedexDepartement !== null });
    if (hn) {
      houseNumber = hn.number;
      suffix = foldSuffix(hn.suffix);
      street = streetSegment(hn.rest) || null;
      const repeated = street === null ? null : repeatedNumber(street, houseNumber, suffix);
      if (repeated !== null) {
        street = repeated.street;
        repeatedAgain = repeated.again;
      }
      // "12 12 75004": figures where the street goes name none (the fuzzy pass made "12" Voie D/12 of the 12th).
      if (street !== null && FIGURES_ONLY.test(street)) street = null;
    } else {
      street = streetSegment(address) || null;
      // "rue de Rivoli, 10, 75004 Paris": the number in its own segment after the street's.
      const [, numberSegment, suffixSegment] = address
        .split(",")
        .map(cleanPart)
        .filter((s) => s !== "");
      // "rue de Rivoli, 194, bis": the suffix in a segment of its own after the number's.
      const numberWritten =
        numberSegment !== undefined && suffixSegment !== undefined && SUFFIX_ALONE.test(suffixSegment)
          ? `${numberSegment} ${suffixSegment}`
          : numberSegment;
      const after = street === null ? null : numberAfter(street, numberWritten);
      if (after !== null) {
        ({ houseNumber, suffix, street } = after);
        numberAfterStreet = true;
      }
    }
    if (city === null && cedexDepartement === null && street !== null) {
      // With no number read, one between the words and the street comes first ("PARIS 1 LA PORTE JAUNE": "Porte" is
      // a type too).
      cityFirst =
        before !== ""
          ? { city: before, street }
          : ((houseNumber === null ? numberAfterFirstWords(street) : null) ?? typeAfterFirstWords(street));
    }
  }

  const fieldStreet = streetAsLine ? null : blank(input.street);
  if (fieldStreet !== null) {
    const { address: cleaned, before } = streetPart(cleanQuery(fieldStreet));
    const hn = readHouseNumber(cleaned);
    numberAfterStreet = false;
    if (hn) {
      // A number alone is the house number, the street left out ("10" is no street, though Paris has a "Voie L/10").
      houseNumber = hn.number;
      suffix = foldSuffix(hn.suffix);
      street = hn.rest === "" ? null : streetSegment(hn.rest) || null;
    } else {
      street = streetSegment(cleaned) || null;
      // "rue de Rivoli 10" in the street field: the number after the street, as in the line.
      const after = street === null ? null : numberAfter(street);
      if (after !== null) {
        ({ houseNumber, suffix, street } = after);
        numberAfterStreet = true;
      }
    }
    // "Paris, rue de Rivoli 10" in the street field, with no city field: as in the line.
    cityFirst = street === null ? null : before !== "" ? { city: before, street } : typeAfterFirstWords(street);
  }
  const fieldNumber = blank(input.house_number);
  if (fieldNumber !== null) {
    const hn = readHouseNumber(fieldNumber.replace(/\s+/g, " ").replace(NUMBER_SIGN_IN_FIELD, ""), {
      numberField: true,
    });
    if (hn) {
      numberAfterStreet = false;
      houseNumber = hn.number;
      // "10 rue" in the house-number field and "de Rivoli" in the street field: the type word begins the street.
      const typeWord = hn.suffix === null && hn.rest.length > 1 && isStreetType(hn.rest);
      if (typeWord && street !== null && !startsWithStreetType(street)) street = `${hn.rest} ${street}`;
      const restIsSuffix = !typeWord && /^[a-z]+$/i.test(hn.rest);
      suffix = foldSuffix(hn.suffix ?? (restIsSuffix ? hn.rest.toLowerCase() : null));
      // "194" in the house-number field and "bis rue de Rivoli" in the street field: the suffix begins the street.
      const suffixFirst = suffix === null && street !== null ? SUFFIX_BEFORE_STREET.exec(street) : null;
      if (suffixFirst !== null && startsWithStreetType(street!.slice(suffixFirst[0].length))) {
        suffix = foldSuffix(suffixFirst[1]!.toLowerCase());
        street = street!.slice(suffixFirst[0].length);
      }
      // "12 rue de Rivoli" in the house-number field and no street: the street is the rest.
      if (street === null && !restIsSuffix && /\p{L}{2}/u.test(hn.rest)) street = streetSegment(hn.rest) || null;
    } else if (houseNumber !== null && SUFFIX_ALONE.test(fieldNumber)) {
      // "bis" in the house-number field, the number in the street field ("10 rue de Rivoli").
      suffix = foldSuffix(fieldNumber.toLowerCase());
    }
  }
  const { postcode: fieldPostcode, city: fieldCity } = localityFields(blank(input.postcode), blank(input.city));
  if (fieldPostcode !== null) {
    postcode = comparablePostcode(fieldPostcode);
    cedexDepartement = null;
    cedexPostcode = null;
  }
  if (fieldCity !== null) {
    if (hasCedex(fieldCity) && postcode !== null && /^\d{5}$/.test(postcode)) {
      cedexDepartement = postcode.slice(0, 2);
      cedexPostcode = postcode;
      postcode = null;
    }
    city = cleanPart(fieldCity.replace(/\s+cedex(?:\s*\d{1,3})?\b/gi, "")) || null;
  }
  const fieldCountry = blank(input.country);
  if (fieldCountry !== null) {
    country = fieldCountry;
    countryFrom = null;
  }

  const parsed: ParsedAddress = { houseNumber, suffix, street, postcode, city, country, countryFrom, cedexDepartement };
  if (numberAfterStreet) parsed.numberAfterStreet = true;
  if (repeatedAgain !== null && fieldStreet === null) parsed.repeatedNumber = repeatedAgain;
  if (cedexDepartement !== null && cedexPostcode !== null) parsed.cedexPostcode = cedexPostcode;
  if (cityFirst !== null && city === null) parsed.cityFirst = cityFirst;
  return parsed;
}
