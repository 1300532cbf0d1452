// Postcode choice and output formatting: which postcode the answer carries (BAN's for the address wins,
// docs/decisions.md), the delivery name printed as the city, the normalized fields and line, and the verdict
// derived from the reasons (verdict.ts).
import type { BanIndex } from "../index/ban_index.ts";
import type { ParsedAddress } from "../parse/parse_address.ts";
import type { Reference } from "../reference/reference.ts";
import type { AddressReason, AddressVerification, NormalizedAddress } from "../types.ts";
import { addressVerdict, sortReasons } from "../verdict.ts";
import { withPostalExtras } from "../postal_lines.ts";
import type { NumberCheck } from "./house_number_check.ts";
import type { SearchPlan } from "./place.ts";

/** The answer for a set of reasons: sorted worst first, with the verdict they give. */
export function answer(
  reasons: Iterable<AddressReason>,
  normalized: NormalizedAddress | null,
): Omit<AddressVerification, "duration_ms"> {
  const sorted = sortReasons(reasons);
  return { verdict: addressVerdict(sorted), reasons: sorted, normalized };
}

/** A street found in an index. */
export interface FoundStreet {
  index: BanIndex;
  street: number;
}

/** The postcode of the listed address; else the input's, when the street has it; else the street's usual one. */
export function choosePostcode(
  found: FoundStreet,
  check: NumberCheck | null,
  plan: Pick<SearchPlan, "postcode">,
): string {
  const { index, street } = found;
  if (check?.row != null) return index.header.postcodes[index.ad.adPostcode[check.row]!]!;
  if (plan.postcode !== null && index.streetPostcodes(street).has(plan.postcode)) return plan.postcode;
  return index.streetPostcode(street);
}

/** A commune's name as the answer's city (Reference.deliveryName()) and La Poste's delivery name for line 6. */
export interface DeliveryName {
  city: string;
  acheminement: string | null;
}

/** Delivery names (DeliveryName), memoized by postcode and commune. */
export class DeliveryNames {
  readonly #ref: Reference;
  readonly #names = new Map<string, DeliveryName>();

  constructor(ref: Reference) {
    this.#ref = ref;
  }

  get(postcode: string, insee: string): DeliveryName {
    const key = postcode + insee;
    let name = this.#names.get(key);
    if (name === undefined) {
      name = { city: this.#ref.deliveryName(postcode, insee), acheminement: this.#ref.acheminement(postcode, insee) };
      this.#names.set(key, name);
    }
    return name;
  }
}

export interface AddressFields {
  found: FoundStreet;
  /** The input house number, null without one. */
  num: number | null;
  check: NumberCheck | null;
  postcode: string;
  delivery: DeliveryName;
}

/** Normalized fields of a found street: a number out of range is dropped, with its suffix and coordinates. */
export function normalizedAddress(fields: AddressFields): NormalizedAddress {
  const { found, num, check, postcode } = fields;
  const { city, acheminement } = fields.delivery;
  const streetName = found.index.streetName(found.street);
  const numberText = num === null || check?.status === "out_of_range" ? null : String(num);
  const suffix = numberText === null ? null : (check?.suffix ?? null);
  const head = numberText === null ? "" : `${numberText}${suffix ? ` ${suffix}` : ""} `;
  const banId = numberText !== null && check?.row != null ? found.index.addressBanId(found.street, check.row) : null;
  const normalized: NormalizedAddress = {
    house_number: numberText,
    house_number_suffix: suffix,
    street: streetName,
    postcode,
    city,
    country: "FR",
    line: `${head}${streetName}, ${postcode} ${city}`,
    latitude: numberText === null ? null : (check?.latitude ?? null),
    longitude: numberText === null ? null : (check?.longitude ?? null),
  };
  return withPostalExtras(normalized, { insee: found.index.communeCode(found.street), banId, acheminement });
}

/** Normalized fields from the place alone (no street given): known only when one commune remains. */
export function placeOnly(p: ParsedAddress, plan: SearchPlan, ref: Reference): NormalizedAddress | null {
  const first = plan.tiers[0]?.communes ?? [];
  if (first.length !== 1) return null;
  const insee = first[0]!;
  const postcode = plan.postcode ?? (ref.postcodesOf(insee).length === 1 ? ref.postcodesOf(insee)[0]! : null);
  if (postcode === null) return null;
  const city = ref.deliveryName(postcode, insee);
  const normalized: NormalizedAddress = {
    house_number: p.houseNumber,
    house_number_suffix: null,
    street: "",
    postcode,
    city,
    country: "FR",
    line: `${postcode} ${city}`,
    latitude: null,
    longitude: null,
  };
  return withPostalExtras(normalized, { insee, banId: null, acheminement: ref.acheminement(postcode, insee) });
}

/** A street named without one postcode (match.ts, a street of several postcodes), with the number written when the
 *  parts of the street all list it: the line leaves the postcode out when it is not one, and the street's postcodes
 *  are listed. No coordinates: the parts lie apart. */
export function streetAlone(
  street: string,
  postcode: string,
  delivery: DeliveryName,
  candidates: readonly string[],
  number: { text: string; suffix: string | null } | null = null,
): NormalizedAddress {
  const place = postcode === "" ? delivery.city : `${postcode} ${delivery.city}`;
  const head = number === null ? "" : `${number.text}${number.suffix ? ` ${number.suffix}` : ""} `;
  const normalized: NormalizedAddress = {
    house_number: number?.text ?? null,
    house_number_suffix: number?.suffix ?? null,
    street,
    postcode,
    city: delivery.city,
    country: "FR",
    line: `${head}${street}, ${place}`,
    latitude: null,
    longitude: null,
  };
  return {
    ...withPostalExtras(normalized, {
      insee: null,
      banId: null,
      acheminement: postcode === "" ? null : delivery.acheminement,
    }),
    postcode_candidates: [...candidates],
  };
}
