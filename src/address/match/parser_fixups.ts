// Parser fix-ups: what parse/parse_address.ts cannot decide without the nationwide reference, settled by asking it
// whether a run of words names a French city. Each one edits the parsed address in place.
import { stringDistance } from "../../text/edit_distance.ts";
import { departementOfInsee } from "../index/departement.ts";
import { isStreetType } from "../normalize/street_types.ts";
import { STOP_WORDS } from "../normalize/stop_words.ts";
import { tokenize } from "../normalize/tokenize.ts";
import { readTrailingHouseNumber } from "../parse/house_number.ts";
import { beforeRegion, foldPlaceName, isRegionName, REGIONS } from "../parse/region.ts";
import { comparablePostcode, foldSuffix, type ParsedAddress, withoutTrailingUnits } from "../parse/parse_address.ts";
import type { CityMatch, Reference } from "../reference/reference.ts";
import type { ScopedTier } from "./plan_cache.ts";
import { streetQuery } from "./search_order.ts";
import { exactStreets } from "./street_search.ts";

/** Whether some indexed commune, of the département when one is given, has a street of exactly this name. */
export type StreetKnown = (street: string, departement?: string) => boolean;

/** What the index says of a run of words, for the fix-ups that split a city off a street. */
export interface StreetLookups {
  /** Some indexed commune has a street of exactly this name. */
  known: StreetKnown;
  /** The text names a street once an article is glued to the word after it ("rue du petit thouars": Rue
   *  Dupetit-Thouars, where Thouars is a commune and Paris has a Rue Petit). */
  namedOnceGlued: (street: string) => boolean;
  /** Some indexed street has this name, under any type or none ("rivoli"). */
  named: (text: string) => boolean;
}

/** Trailing words of a street tried as a city name, longest first: four cover the usual long names
 *  ("Saint-Germain-en-Laye" is four words once tokenised). */
const MAX_CITY_WORDS = 4;

/** A last comma segment read as a country although it is a postcode and a French city: "…, 31330 Grenade" (Grenada). */
const POSTCODE_AND_NAME = /^(\d{5})\s+(.+)$/;

/** A country read off the end of a line may be part of a French city: "10220 Bouy-Luxembourg", "Saint-Martin". */
export function keepFrenchCity(p: ParsedAddress, ref: Reference): void {
  const country = p.country!;
  const postcodeAndName = p.countryFrom === "segment" ? POSTCODE_AND_NAME.exec(country) : null;
  if (p.countryFrom === "words" && p.city !== null && ref.citiesNamed(`${p.city} ${country}`).length > 0) {
    p.city = `${p.city} ${country}`;
  } else if (
    postcodeAndName !== null &&
    p.postcode === null &&
    p.city === null &&
    ref.citiesNamed(postcodeAndName[2]!).length > 0
  ) {
    p.postcode = postcodeAndName[1]!;
    p.city = postcodeAndName[2]!;
  } else if (p.countryFrom === "segment" && p.city === null && ref.citiesNamed(country).length > 0) {
    p.city = country;
  } else if (
    p.countryFrom === "segment" &&
    p.postcode !== null &&
    p.city !== null &&
    ref.citiesNamed(p.city).length === 0 &&
    ref.citiesNamed(country).length > 0
  ) {
    p.city = country;
  } else return;
  p.country = null;
  p.countryFrom = null;
}

/** Where a postcode stands but written amiss: spaced ("75 004"), short of the leading zero that spreadsheets drop
 *  ("6000 Nice"), a digit short or long ("7504", "750044"), or with Corsica's département letters ("2A000"). */
const POSTCODE_AMISS = String.raw`\d{2} \d{3}|\d{4}|\d{6}|2[ab] ?\d{3}`;
/** A city segment that begins with such a postcode, or with the département's number ("75 Paris"). */
const AMISS_THEN_CITY = new RegExp(String.raw`^(${POSTCODE_AMISS}|\d{2})\s+(\D+)$`, "i");
/** A street that ends with one, and maybe the city after it (with its arrondissement: "Paris 2"), when no comma tells
 *  them apart. */
const STREET_THEN_AMISS = new RegExp(
  String.raw`^(.*\D)\s+(${POSTCODE_AMISS}|\d{2})(?:\s+(\D+?(?:\s+\d{1,2}(?:er|e|ème|eme)?)?))?$`,
  "i",
);

/**
 * A postcode written amiss between the street and the city is read as the postcode, so that it never ends up in the
 * street's name (where "12 rue de Rivoli 75 004 Paris" found no street, and was called nonexistent). Read as the
 * field `postcode` is (comparablePostcode): a code that is still no postcode is then corrected by the matcher, as any
 * wrong postcode. The département's number alone ("10 rue de Rivoli 75 Paris", "… Paris 75") is dropped when the
 * city is in it.
 * Without a comma, numbers at the end of a street may be its name's ("Rue du 8 Mai 1945 Paris"): the reading needs a
 * house number before the street (otherwise a number after the street is the house number: "Boulevard Saint-Martin
 * 20"), a city the reference knows after the number, or a real postcode with no city, and a street that the index
 * does not know by its whole name (`streetKnown`).
 */
export function postcodeWrittenAmiss(p: ParsedAddress, ref: Reference, streetKnown: StreetKnown): void {
  if (p.postcode !== null || p.cedexDepartement !== null) return;
  let written: string;
  let city: string | null;
  let street = p.street;
  const inCity = p.city === null ? null : AMISS_THEN_CITY.exec(p.city);
  if (inCity !== null) {
    written = inCity[1]!;
    city = inCity[2]!.trim();
  } else if (p.city === null && p.street !== null && p.houseNumber !== null) {
    const m = STREET_THEN_AMISS.exec(p.street);
    if (m === null) return;
    street = m[1]!;
    written = m[2]!;
    city = m[3]?.trim() ?? null;
    if (city === null && /^\d{2}$/.test(written)) {
      // "10 rue de Rivoli Paris 75": the city before its département's number.
      const end = cityAtEnd(street, ref, (named) =>
        named.some((c) => c.communes.some((i) => departementOfInsee(i) === written)),
      );
      if (end !== null) ({ street: p.street, city: p.city } = end);
      // "10 rue de la Paix 75": the département's number alone after a street that the département's index knows
      // without it.
      else if (streetKnown(street, written)) p.street = street;
      return;
    }
    if (
      city !== null
        ? ref.citiesNamed(city).length === 0
        : ref.communesOfPostcode(comparablePostcode(written)).length === 0
    )
      return;
    if (streetKnown(city === null ? p.street : p.street.slice(0, p.street.length - city.length).trim())) return;
  } else return;
  if (/^\d{2}$/.test(written)) {
    const inIt =
      city !== null && ref.citiesNamed(city).some((m) => m.communes.some((c) => departementOfInsee(c) === written));
    if (!inIt) return;
  } else if (readsAsPostcode(written, city, ref)) p.postcode = comparablePostcode(written);
  else return;
  p.street = street;
  p.city = city;
}

/**
 * Whether digits written where a postcode stands are one: spaced or with Corsica's letters, a real postcode once the
 * leading zero is put back, or a digit short or long of a postcode of the city ("7504 Paris"). Four digits that are
 * none of these are a year ("Avenue du 8 Mai 1945 Lyon"), left to the street's name.
 */
function readsAsPostcode(written: string, city: string | null, ref: Reference): boolean {
  if (/\s|[ab]/i.test(written)) return true;
  if (ref.communesOfPostcode(comparablePostcode(written)).length > 0) return true;
  if (city === null) return false;
  const communes = ref.citiesNamed(city).flatMap((m) => m.communes);
  return communes.some((c) => ref.postcodesOf(c).some((pc) => stringDistance(written, pc, 1) <= 1));
}

// What people add after a city that is no part of its name: the region ("Paris IDF", "Lyon, Auvergne-Rhône-Alpes"
// as one field), the département's number ("Paris 75"), or the city written twice ("75004 Paris 75004 Paris").
// "SP" after the city: La Poste's mark of a public service's delivery office ("75700 PARIS SP", "75350 PARIS 07 SP",
// ministries' addresses), like CEDEX no part of the city's name. "Centre", "centre-ville": its middle ("Nantes centre",
// and Paris Centre, the four first arrondissements' sector since 2020).
const ADDITION_AFTER_CITY = new RegExp(`\\s+(?:${REGIONS}|sp|centre(?: ville)?)$`);
// The town as an institution ("Ville de Paris", "Mairie de Lyon", "Commune de Vézelois"), as letters to it write it.
const ADDITION_BEFORE_CITY = /^(?:ville|mairie|commune)\s+(?:de\s+|d\s+)/;
const NUMBER_AFTER_CITY = /\s+(\d{2,3}|2a|2b)$/;

/** "Paris IDF", "Paris 75", "Paris Paris", "Ville de Paris": a city that names no commune as written, but does without
 *  what is added to it (city_corrected was answered for the very city written). The département's number only when it
 *  is the postcode's. */
export function cityWithoutAdditions(p: ParsedAddress, ref: Reference): void {
  if (p.city === null || ref.citiesNamed(p.city).length > 0) return;
  const folded = foldPlaceName(p.city);
  // "12 rue de Rivoli, Île-de-France": a region where the city goes names no city (it was street_not_found and
  // postcode_city_mismatch); the line has no city. (A region's name that is a commune's, Bretagne in the 90, stays.)
  if (isRegionName(folded)) {
    p.city = null;
    return;
  }
  const words = folded.split(" ");
  const half = words.length / 2;
  const twice = Number.isInteger(half) && words.slice(0, half).join(" ") === words.slice(half).join(" ");
  let rest = twice
    ? words.slice(0, half).join(" ")
    : folded.replace(ADDITION_AFTER_CITY, "").replace(ADDITION_BEFORE_CITY, "");
  const number = NUMBER_AFTER_CITY.exec(rest)?.[1];
  if (number !== undefined && p.postcode !== null && departementOfPostcode(p.postcode) === number) {
    rest = rest.slice(0, -number.length).trim();
  }
  if (rest !== folded && rest !== "" && ref.citiesNamed(rest).length > 0) p.city = rest;
}

/** The département a postcode is in, as people write its number ("75", "2a" for 20000-20199, "971"). */
function departementOfPostcode(postcode: string): string {
  if (postcode.startsWith("97")) return postcode.slice(0, 3);
  if (postcode.startsWith("20")) return Number(postcode) < 20200 ? "2a" : "2b";
  return postcode.slice(0, 2);
}

/**
 * "Paris", "Paris 4e", "Paris 75004": a line with no house number whose street part is a commune's name and nothing
 * else names the city, not a street ("Paris 75004" was Boulevard du Palais, one slip from Paris). With a postcode,
 * only a commune the postcode serves ("Saint-Denis 75001" is Rue Saint-Denis, its type left out); without one, only
 * when no indexed street has that name, under any type or none (`streetNamed`: "Saint-Denis" alone may be the street).
 */
export function cityAlone(p: ParsedAddress, ref: Reference, streetNamed: (text: string) => boolean): void {
  if (p.street === null || p.houseNumber !== null || p.city !== null || p.cedexDepartement !== null) return;
  const named = ref.citiesNamed(p.street);
  if (named.length === 0) return;
  if (p.postcode !== null) {
    const served = new Set(ref.communesOfPostcode(p.postcode));
    if (!named.some((m) => m.communes.some((c) => served.has(c)))) return;
  } else if (streetNamed(p.street)) return;
  p.city = p.street;
  p.street = null;
}

/**
 * "12 rue de Rivoli Paris" with no comma: the last words may be the city. With a postcode ("12 rue de Rivoli Paris
 * 75004"), only a city the postcode serves, and only when the index knows no street by the whole text ("43 rue de
 * Lille 75007" is a street of Paris, not Lille); or a city the postcode does not serve, when the index knows the
 * street without it ("10 rue de la Paix Paris 69002" reads as "69002 Paris" does, a postcode to correct, where the
 * postcode's Lyon left the whole text a street of an uncovered commune: `unknown`).
 */
export function cityFromStreet(p: ParsedAddress, ref: Reference, lookups: StreetLookups): void {
  if (p.city !== null || p.cedexDepartement !== null || p.street === null) return;
  const { known: streetKnown, namedOnceGlued, named: streetNamed } = lookups;
  const served = p.postcode === null ? null : new Set(ref.communesOfPostcode(p.postcode));
  if (served !== null && served.size === 0) return;
  const whole = p.street;
  // A street some commune has by the whole text keeps its last words ("Avenue de la Porte de Saint-Ouen", in two
  // arrondissements, is no street of the commune Saint-Ouen). Asked once, and only when some words name a city.
  let known: boolean | undefined;
  const wholeKnown = () => (known ??= streetKnown(whole) || namedOnceGlued(whole));
  // What stays before the city is a street: two words or more, or one word that is no street type and that some
  // street is named ("12 rivoli paris": Rue de Rivoli; "12 rue paris" keeps its words).
  const isStreet = (rest: string) => rest.includes(" ") || (!isStreetType(rest) && streetNamed(rest));
  const atEnd = (street: string) =>
    served === null
      ? cityAtEnd(street, ref, (named, rest) => named.length > 0 && !wholeKnown() && isStreet(rest), 1)
      : cityAtEnd(
          street,
          ref,
          (named, rest) =>
            named.length > 0 &&
            !wholeKnown() &&
            isStreet(rest) &&
            (named.some((m) => m.communes.some((c) => served.has(c))) ||
              (rest.includes(" ") ? streetKnown(rest) : streetNamed(rest))),
          1,
        );
  // "10 Rue de Rivoli Paris France": the country after the city, when a city stands before it ("Quai Anatole France"
  // ends with the word as a name, and no city).
  const beforeFrance = FRANCE_LAST.exec(whole)?.[1];
  // "12 rue de Rivoli Paris Île-de-France": the region after the city, likewise.
  const beforeItsRegion = beforeRegion(whole);
  const end =
    (beforeFrance === undefined ? null : atEnd(beforeFrance)) ??
    (beforeItsRegion === null ? null : atEnd(beforeItsRegion)) ??
    atEnd(whole);
  if (end === null) return;
  p.city = end.city;
  streetBeforeCity(p, end.street);
}

/**
 * "5 rue de la Roquette Paris" in the street field and Paris in the city field (or a line that writes the city twice,
 * "5 rue de la Roquette Paris, 75011 Paris"): the last words of the street name the city written, and are the city's,
 * unless they end a name ("… de Paris": a word the key drops stands before them) or some commune has a street by the
 * whole text.
 */
export function cityRepeatedInStreet(p: ParsedAddress, ref: Reference, streetKnown: StreetKnown): void {
  if (p.city === null || p.street === null) return;
  // Most lines have no word of the city in the street: they are told apart before any lookup (as written, case aside).
  const cityWord = /\p{L}{3,}/u.exec(p.city)?.[0]?.toLowerCase();
  if (cityWord === undefined || !p.street.toLowerCase().includes(cityWord)) return;
  const cityWords = new Set(tokenize(p.city).filter((w) => !STOP_WORDS.has(w)));
  if (
    !tokenize(p.street)
      .slice(-MAX_CITY_WORDS)
      .some((w) => cityWords.has(w))
  )
    return;
  const written = new Set(ref.citiesNamed(p.city).flatMap((m) => m.communes));
  if (written.size === 0) return;
  const whole = p.street;
  const end = cityAtEnd(
    whole,
    ref,
    (named, rest) =>
      named.some((m) => m.communes.some((c) => written.has(c))) &&
      !STOP_WORDS.has(tokenize(rest).at(-1) ?? "") &&
      !STOP_WORDS.has(tokenize(whole.slice(rest.length))[0] ?? "") &&
      !streetKnown(whole),
  );
  if (end !== null) streetBeforeCity(p, end.street);
}

/** The street once the city is taken off its end, and what the city hid from the parser there. */
function streetBeforeCity(p: ParsedAddress, street: string): void {
  // "10 Rue de Rivoli Apt 5B Paris": the units go.
  p.street = withoutTrailingUnits(street);
  // "Boulevard Saint-Martin 20 Paris": the number is the house number.
  const trailing = p.houseNumber === null ? readTrailingHouseNumber(p.street) : null;
  if (trailing !== null) {
    p.houseNumber = trailing.number;
    p.suffix = foldSuffix(trailing.suffix);
    p.street = trailing.rest;
    p.numberAfterStreet = true;
  }
}

const FRANCE_LAST = /^(.*\S)\s+france$/i;

/** The longest run of a street's last words (up to MAX_CITY_WORDS; a type and a name stay the street) whose city
 *  matches are accepted, and the words before it; null when none is. */
function cityAtEnd(
  street: string,
  ref: Reference,
  accept: (named: CityMatch[], rest: string) => boolean,
  /** Words that must stay before the city: two (a type and a name) unless `accept` judges a lone word. */
  minRest = 2,
): { street: string; city: string } | null {
  const words = street.split(/\s+/);
  for (let n = Math.min(MAX_CITY_WORDS, words.length - minRest); n >= 1; n--) {
    const tail = words.slice(-n).join(" ");
    const rest = words.slice(0, -n).join(" ");
    if (accept(ref.citiesNamed(tail), rest)) return { street: rest, city: tail };
  }
  return null;
}

/** "Pont Alexandre 3, 75008 Paris": a number read after the street is part of its name when the whole text names a
 *  street of the plan exactly (BAN's "Pont Alexandre III", spelled out in the keys: normalize/number_words.ts); the
 *  address then has no house number. Otherwise the number stays a house number ("Boulevard Saint-Martin 20"). */
export function numberInName(p: ParsedAddress, scoped: readonly ScopedTier[]): void {
  if (p.street !== null && p.repeatedNumber !== undefined) {
    // "7 Place Edouard 7": the number the parser took off as typed twice is the name's (Place Édouard VII).
    const whole = `${p.street} ${p.repeatedNumber}`;
    if (namesStreetExactly(whole, p.street, scoped)) p.street = whole;
    delete p.repeatedNumber;
  }
  if (!p.numberAfterStreet || p.street === null || p.houseNumber === null) return;
  const whole = `${p.street} ${p.houseNumber}${p.suffix ?? ""}`;
  if (!namesStreetExactly(whole, p.street, scoped)) return;
  p.street = whole;
  p.houseNumber = null;
  p.suffix = null;
  p.numberAfterStreet = false;
}

/** Whether `whole` (a street and the number written after it) names a street of the plan exactly. */
function namesStreetExactly(whole: string, street: string, scoped: readonly ScopedTier[]): boolean {
  const query = streetQuery(whole);
  // The number must stay in the key: a word the key drops would make any street "its own name plus a number".
  if (query.key.key === streetQuery(street).key.key) return false;
  return scoped.some(({ scopes }) => exactStreets(query, scopes).some((h) => h.cost === 0));
}
