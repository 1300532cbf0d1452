// Test keys never touch the network: the reserved local parts at vrai.test answer as the spec's table says, with the
// checks and flags a live pipeline would report for that outcome (docs/contract.md §4).
import type { EmailVerification } from "../email/types.ts";
import { CHECK_NAMES, type CheckName, type CheckStatus, type EmailReason, type Verdict } from "../email/vocabulary.ts";

export const TEST_DOMAIN = "vrai.test";

interface Reserved {
  verdict: Verdict;
  reasons: EmailReason[];
  /** The check that failed or was inconclusive; every earlier check passed. */
  last?: { check: CheckName; status: CheckStatus };
  /** Checks after `last`: skipped when it settled the answer. */
}

const RESERVED: Record<string, Reserved> = {
  deliverable: { verdict: "deliverable", reasons: [] },
  undeliverable: { verdict: "undeliverable", reasons: ["mailbox_not_found"], last: { check: "smtp", status: "fail" } },
  catchall: { verdict: "unknown", reasons: ["catch_all_domain"], last: { check: "catch_all", status: "fail" } },
  disposable: { verdict: "risky", reasons: ["disposable_domain"], last: { check: "disposable", status: "fail" } },
  greylisted: { verdict: "unknown", reasons: ["greylisted"], last: { check: "smtp", status: "inconclusive" } },
};

export const RESERVED_EMAILS = Object.keys(RESERVED).map((local) => `${local}@${TEST_DOMAIN}`);

type ReservedAnswer = Omit<EmailVerification, "duration_ms" | "email">;

function answerOf(reserved: Reserved): ReservedAnswer {
  const stop = reserved.last ? CHECK_NAMES.indexOf(reserved.last.check) : CHECK_NAMES.length;
  const checks = {} as Record<CheckName, CheckStatus>;
  CHECK_NAMES.forEach((name, i) => {
    checks[name] = i < stop ? "pass" : i === stop ? reserved.last!.status : "skipped";
  });
  const flag = (check: CheckName) => (checks[check] === "pass" ? false : checks[check] === "fail" ? true : null);
  // Frozen: every call shares these objects.
  return Object.freeze({
    verdict: reserved.verdict,
    reasons: Object.freeze([...reserved.reasons]) as EmailReason[],
    suggestion: null,
    flags: Object.freeze({ disposable: flag("disposable"), role: flag("role"), catch_all: flag("catch_all") }),
    checks: Object.freeze(checks),
  });
}

// Built once: test-mode calls are the benchmark of the HTTP stack, and the answers never change.
const ANSWERS = new Map(Object.entries(RESERVED).map(([local, reserved]) => [local, answerOf(reserved)]));

/** The answer for a reserved address (case-insensitive), or undefined for any other input. */
export function testEmailAnswer(email: string): Omit<EmailVerification, "duration_ms"> | undefined {
  const normalized = email.trim().toLowerCase();
  const at = normalized.lastIndexOf("@");
  if (at < 0 || normalized.slice(at + 1) !== TEST_DOMAIN) return undefined;
  const answer = ANSWERS.get(normalized.slice(0, at));
  return answer ? { email: email.trim(), ...answer } : undefined;
}
