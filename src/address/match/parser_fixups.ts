// Parser fix-ups: what parse/parse_address.ts cannot decide without the nationwide reference, settled by asking it
// whether a run of words names a French city. Each one edits the parsed address in place.
import type { ParsedAddress } from "../parse/parse_address.ts";
import type { Reference } from "../reference/reference.ts";
import type { ScopedTier } from "./plan_cache.ts";
import { streetQuery } from "./search_order.ts";
import { exactStreets } from "./street_search.ts";

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

/** "12 rue de Rivoli Paris" with neither postcode nor comma: the last words may be the city. */
export function cityFromStreet(p: ParsedAddress, ref: Reference): void {
  if (p.city !== null || p.postcode !== null || p.cedexDepartement !== null || p.street === null) return;
  const words = p.street.split(/\s+/);
  // At least two words stay the street: a type and a name.
  for (let n = Math.min(MAX_CITY_WORDS, words.length - 2); n >= 1; n--) {
    const tail = words.slice(-n).join(" ");
    if (ref.citiesNamed(tail).length > 0) {
      p.city = tail;
      p.street = words.slice(0, -n).join(" ");
      return;
    }
  }
}

/** "Pont Alexandre 3, 75008 Paris": a number read after the street is part of its name when the whole text names a
 *  street of the plan exactly (BAN's "Pont Alexandre III", spelled out in the keys: normalize/number_words.ts); the
 *  address then has no house number. Otherwise the number stays a house number ("Boulevard Saint-Martin 20"). */
export function numberInName(p: ParsedAddress, scoped: readonly ScopedTier[]): void {
  if (!p.numberAfterStreet || p.street === null || p.houseNumber === null) return;
  const whole = `${p.street} ${p.houseNumber}${p.suffix ?? ""}`;
  const query = streetQuery(whole);
  // The number must stay in the key: a word the key drops would make any street "its own name plus a number".
  if (query.key.key === streetQuery(p.street).key.key) return;
  if (!scoped.some(({ scopes }) => exactStreets(query, scopes).some((h) => h.cost === 0))) return;
  p.street = whole;
  p.houseNumber = null;
  p.suffix = null;
  p.numberAfterStreet = false;
}
