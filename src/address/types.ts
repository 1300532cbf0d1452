// The address contract shared with the HTTP layer (spec "AddressInput", "AddressVerification"; docs/contract.md §4).

export interface AddressInput {
  line?: string;
  house_number?: string;
  street?: string;
  postcode?: string;
  city?: string;
  country?: string;
}

import type { AddressReason, AddressVerdict } from "./vocabulary.ts";

export type { AddressReason, AddressVerdict } from "./vocabulary.ts";

export interface NormalizedAddress {
  house_number: string | null;
  house_number_suffix: string | null;
  street: string;
  postcode: string;
  city: string;
  country: "FR";
  line: string;
  latitude: number | null;
  longitude: number | null;
  // Extensions (described in the OpenAPI document): for joins with other public data, and for mailers.
  /** The commune's INSEE code (the arrondissement's in Paris, Lyon, Marseille), null when not known. */
  insee_code?: string | null;
  /** BAN's id of the matched address (`75101_cfq3tf_00001`), null when no listed address matched. */
  ban_id?: string | null;
  /** NF Z 10-011 line 4 as La Poste prints it: number, suffix, street; upper case, at most 38 characters. */
  postal_line_4?: string | null;
  /** NF Z 10-011 line 6: postcode and delivery name. */
  postal_line_6?: string;
  /** The street's postcodes when no number tells which is the address's (`postcode` is then empty): only on a street
   *  named without one postcode. */
  postcode_candidates?: string[];
}

export interface AddressVerification {
  verdict: AddressVerdict;
  reasons: AddressReason[];
  normalized: NormalizedAddress | null;
  duration_ms: number;
}
