// The address contract shared with the HTTP layer (spec "AddressInput", "AddressVerification"; DECISIONS §4).

export interface AddressInput {
  line?: string;
  house_number?: string;
  street?: string;
  postcode?: string;
  city?: string;
  country?: string;
}

export type AddressVerdict = "deliverable" | "corrected" | "incomplete" | "nonexistent" | "unknown";

export type AddressReason =
  | "street_not_found"
  | "house_number_out_of_range"
  | "postcode_city_mismatch"
  | "postcode_corrected"
  | "city_corrected"
  | "street_corrected"
  | "missing_house_number"
  | "missing_street"
  | "missing_postcode"
  | "missing_city"
  | "country_not_covered"
  | "postcode_not_covered";

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
