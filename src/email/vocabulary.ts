// The words of an email answer, written once (spec "Enumerations", docs/contract.md §4). The TypeScript types, the
// OpenAPI picklists (http/schemas.ts), the registry's order check (checks/registry.ts) and every answer built
// outside the pipeline (test mode, the job runner's fallback) are derived from these tables.

/** Verdicts, worst first: the severity order of docs/contract.md §4. */
export const VERDICTS = ["undeliverable", "risky", "unknown", "deliverable"] as const;
export type Verdict = (typeof VERDICTS)[number];

/** Every reason with the verdict it leads to (docs/contract.md §4), in the spec's order. */
export const REASON_VERDICT = {
  invalid_syntax: "undeliverable",
  local_part_too_long: "undeliverable",
  domain_too_long: "undeliverable",
  provider_rule_violation: "undeliverable",
  domain_typo: "undeliverable",
  no_mx_record: "undeliverable",
  domain_does_not_resolve: "undeliverable",
  mailbox_not_found: "undeliverable",
  mailbox_full: "risky",
  disposable_domain: "risky",
  role_address: "risky",
  catch_all_domain: "unknown",
  greylisted: "unknown",
  probe_timeout: "unknown",
  probe_unavailable: "unknown",
} as const satisfies Record<string, Exclude<Verdict, "deliverable">>;
export type EmailReason = keyof typeof REASON_VERDICT;
export const EMAIL_REASONS = Object.keys(REASON_VERDICT) as EmailReason[];

/** The checks, cheapest first, in the order the spec fixes. */
export const CHECK_NAMES = [
  "syntax",
  "provider_rules",
  "typo",
  "disposable",
  "role",
  "mx",
  "smtp",
  "catch_all",
] as const;
export type CheckName = (typeof CHECK_NAMES)[number];

/** pass: ran, found nothing wrong; fail: found what it looks for; inconclusive: could not tell; skipped: never ran. */
export const CHECK_STATUSES = ["pass", "fail", "inconclusive", "skipped"] as const;
export type CheckStatus = (typeof CHECK_STATUSES)[number];

/** Every check with one status: the shape of an answer's `checks` member. */
export function allChecks(status: CheckStatus): Record<CheckName, CheckStatus> {
  return Object.fromEntries(CHECK_NAMES.map((name) => [name, status])) as Record<CheckName, CheckStatus>;
}
