// The postal lines of NF Z 10-011 as La Poste prints them (an extension of the answers, for mailers): line 4 is the
// number, its suffix and the street, upper case without accents or punctuation, at most 38 characters, shortened
// where longer with BAN's own abbreviation rules (@etalab/normadresse: street type first, then titles, then common
// words); line 6 is the postcode and the delivery name, in the same writing.
import { abbreviateStreet } from "./normalize/abbreviate.ts";
import type { NormalizedAddress } from "./types.ts";

/** The longest line the standard allows. */
export const POSTAL_LINE_MAX = 38;

/** Line 4 (`10 BIS RUE DE RIVOLI`), or null without a street. */
export function postalLine4(
  address: Pick<NormalizedAddress, "house_number" | "house_number_suffix" | "street">,
): string | null {
  if (address.street.trim() === "") return null;
  const parts = [address.house_number, address.house_number_suffix, address.street].filter(
    (p) => p !== null && p !== "",
  );
  return abbreviateStreet(parts.join(" "), { maxLength: POSTAL_LINE_MAX }).trim();
}

/** Line 6 (`75001 PARIS`): the delivery name La Poste prints when it is given ("31330 GRENADE SUR GARONNE", where
 *  the city is the commune's name, Grenade), else the city's. */
export function postalLine6(
  address: Pick<NormalizedAddress, "postcode" | "city">,
  acheminement?: string | null,
): string {
  return abbreviateStreet(`${address.postcode} ${acheminement ?? address.city}`, { maxLength: POSTAL_LINE_MAX }).trim();
}

/** The normalized address with its INSEE code, BAN id and postal lines added. */
export function withPostalExtras(
  address: NormalizedAddress,
  ids: { insee: string | null; banId: string | null; acheminement?: string | null },
): NormalizedAddress {
  return {
    ...address,
    insee_code: ids.insee,
    ban_id: ids.banId,
    postal_line_4: postalLine4(address),
    postal_line_6: postalLine6(address, ids.acheminement),
  };
}
