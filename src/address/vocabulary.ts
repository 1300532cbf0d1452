// The words of an address answer, written once (spec "Enumerations", docs/contract.md §4). The TypeScript types, the
// OpenAPI picklists (http/schemas.ts) and the verdict function are derived from these tables.

/** Address verdicts, worst first: the precedence of docs/contract.md §4. */
export const ADDRESS_VERDICTS = ["unknown", "nonexistent", "incomplete", "corrected", "deliverable"] as const;
export type AddressVerdict = (typeof ADDRESS_VERDICTS)[number];

/** Every reason with the verdict it leads to; answers list their reasons in this order (worst first). */
export const ADDRESS_REASON_VERDICT = {
  country_not_covered: "unknown",
  postcode_not_covered: "unknown",
  street_not_found: "nonexistent",
  house_number_out_of_range: "nonexistent",
  postcode_city_mismatch: "nonexistent",
  missing_house_number: "incomplete",
  missing_street: "incomplete",
  missing_postcode: "incomplete",
  missing_city: "incomplete",
  postcode_corrected: "corrected",
  city_corrected: "corrected",
  street_corrected: "corrected",
} as const satisfies Record<string, Exclude<AddressVerdict, "deliverable">>;
export type AddressReason = keyof typeof ADDRESS_REASON_VERDICT;
export const ADDRESS_REASONS = Object.keys(ADDRESS_REASON_VERDICT) as AddressReason[];
