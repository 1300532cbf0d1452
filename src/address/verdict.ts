// DECISIONS §4 "Address verdict precedence": unknown > nonexistent > incomplete > corrected > deliverable.
// The verdict is a pure function of the reasons, so an answer can never disagree with its own reasons.
import type { AddressReason, AddressVerdict } from "./types.ts";

export const REASON_VERDICT: Readonly<Record<AddressReason, AddressVerdict>> = {
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
};

const SEVERITY: Readonly<Record<AddressVerdict, number>> = {
  deliverable: 0,
  corrected: 1,
  incomplete: 2,
  nonexistent: 3,
  unknown: 4,
};

/** The worst verdict among the reasons; no reason at all means deliverable. */
export function addressVerdict(reasons: readonly AddressReason[]): AddressVerdict {
  let worst: AddressVerdict = "deliverable";
  for (const reason of reasons) {
    const v = REASON_VERDICT[reason];
    if (SEVERITY[v] > SEVERITY[worst]) worst = v;
  }
  return worst;
}

/** Reasons in a stable order (worst first), so that answers diff cleanly. */
export function sortReasons(reasons: Iterable<AddressReason>): AddressReason[] {
  const order = Object.keys(REASON_VERDICT) as AddressReason[];
  return [...new Set(reasons)].sort((a, b) => order.indexOf(a) - order.indexOf(b));
}
