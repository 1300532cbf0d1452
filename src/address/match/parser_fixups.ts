// Parser fix-ups: what parse/parse_address.ts cannot decide without the nationwide reference, settled by asking it
// whether a run of words names a French city. Each one edits the parsed address in place.
import type { ParsedAddress } from "../parse/parse_address.ts";
import type { Reference } from "../reference/reference.ts";

/** Trailing words of a street tried as a city name, longest first: four cover the usual long names
 *  ("Saint-Germain-en-Laye" is four words once tokenised). */
const MAX_CITY_WORDS = 4;

/** A country read off the end of a line may be part of a French city: "10220 Bouy-Luxembourg", "Saint-Martin". */
export function keepFrenchCity(p: ParsedAddress, ref: Reference): void {
  const country = p.country!;
  if (p.countryFrom === "words" && p.city !== null && ref.citiesNamed(`${p.city} ${country}`).length > 0) {
    p.city = `${p.city} ${country}`;
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
