// The only place that turns reasons into a verdict (DECISIONS §4): worst reason wins.
import type { EmailReason, Verdict } from "./types.ts";

export const REASON_VERDICT: Readonly<Record<EmailReason, Exclude<Verdict, "deliverable">>> = {
  invalid_syntax: "undeliverable",
  local_part_too_long: "undeliverable",
  domain_too_long: "undeliverable",
  provider_rule_violation: "undeliverable",
  domain_typo: "undeliverable",
  no_mx_record: "undeliverable",
  domain_does_not_resolve: "undeliverable",
  mailbox_not_found: "undeliverable",
  disposable_domain: "risky",
  role_address: "risky",
  mailbox_full: "risky",
  catch_all_domain: "unknown",
  greylisted: "unknown",
  probe_timeout: "unknown",
  probe_unavailable: "unknown",
};

/** Severity, worst first. */
export const SEVERITY: readonly Verdict[] = ["undeliverable", "risky", "unknown", "deliverable"];

/** Worst verdict among the reasons; no reason at all is deliverable. Pure. */
export function verdict(reasons: readonly EmailReason[]): Verdict {
  let worst = SEVERITY.length - 1;
  for (const reason of reasons) worst = Math.min(worst, SEVERITY.indexOf(REASON_VERDICT[reason]));
  return SEVERITY[worst]!;
}
