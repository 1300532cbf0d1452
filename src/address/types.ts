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
}

export interface AddressVerification {
  verdict: AddressVerdict;
  reasons: AddressReason[];
  normalized: NormalizedAddress | null;
  duration_ms: number;
}
