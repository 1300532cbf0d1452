// docs/contract.md §4 "Address verdict precedence": unknown > nonexistent > incomplete > corrected > deliverable.
// The verdict is a pure function of the reasons, so an answer can never disagree with its own reasons.
import { worstOf } from "../verdicts/worst_of.ts";
import {
  ADDRESS_REASON_VERDICT,
  ADDRESS_REASONS,
  ADDRESS_VERDICTS,
  type AddressReason,
  type AddressVerdict,
} from "./vocabulary.ts";

/** The worst verdict among the reasons; no reason at all means deliverable. */
export function addressVerdict(reasons: readonly AddressReason[]): AddressVerdict {
  return worstOf(
    ADDRESS_VERDICTS,
    reasons.map((reason) => ADDRESS_REASON_VERDICT[reason]),
  );
}

/** Reasons in a stable order (worst first), so that answers diff cleanly. */
export function sortReasons(reasons: Iterable<AddressReason>): AddressReason[] {
  return [...new Set(reasons)].sort((a, b) => ADDRESS_REASONS.indexOf(a) - ADDRESS_REASONS.indexOf(b));
}
