// The only place that turns reasons into a verdict (docs/contract.md §4): worst reason wins.
import { worstOf } from "../verdicts/worst_of.ts";
import { REASON_VERDICT, VERDICTS, type EmailReason, type Verdict } from "./vocabulary.ts";

/** Worst verdict among the reasons; no reason at all is deliverable. Pure. */
export function verdict(reasons: readonly EmailReason[]): Verdict {
  return worstOf(
    VERDICTS,
    reasons.map((reason) => REASON_VERDICT[reason]),
  );
}
