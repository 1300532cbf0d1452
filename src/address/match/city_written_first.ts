// The city written before the street ("PARIS 10 RUE DE RIVOLI", "Paris, rue de Rivoli 10"), as exports that put the
// locality first write it. The parser sets the words before the street apart (ParsedAddress.cityFirst) without
// knowing what they are: a city, or a company's or building's name ("Résidence les Lilas, 10 rue …", "Orange, 10 rue
// de Rivoli" for a shop in Paris, where Orange, Vaucluse, has no Rue de Rivoli). The reference and the index tell.
import type { ParsedAddress } from "../parse/parse_address.ts";
import type { Reference } from "../reference/reference.ts";
import type { StreetKnown } from "./parser_fixups.ts";
import type { PlanCache } from "./plan_cache.ts";
import { numberPredicate, searchTiers, streetQuery } from "./search_order.ts";

/**
 * Reads the words set apart as the city when they name a commune exactly, the postcode written, if any, serves it,
 * and the street is found there, or no index covers the commune (the answer is then honestly unknown). A street the
 * index knows by the whole text stays whole ("Grande Rue de Paris" is no street of a commune "Grande").
 */
export function cityWrittenFirst(p: ParsedAddress, plans: PlanCache, ref: Reference, streetKnown: StreetKnown): void {
  const first = p.cityFirst;
  delete p.cityFirst;
  if (first === undefined || p.city !== null || p.cedexDepartement !== null || p.street === null) return;
  if (first.street !== p.street && streetKnown(p.street)) return;
  // Words that only a correction would make a city ("bis", "Pari") are no city written.
  if (ref.citiesNamed(first.city).length === 0) return;
  const plan = plans.get({ ...p, city: first.city, street: first.street });
  if (plan.tiers.length === 0 || plan.reasons.includes("postcode_city_mismatch")) return;
  const houseNumber = first.houseNumber ?? p.houseNumber;
  const num = houseNumber === null ? null : Number(houseNumber);
  if (plan.coverage.covered && searchTiers(streetQuery(first.street), plan.scoped, numberPredicate(num)) === null)
    return;
  p.city = first.city;
  p.street = first.street;
  if (first.houseNumber !== undefined) {
    p.houseNumber = first.houseNumber;
    p.suffix = first.suffix ?? null;
  }
}
