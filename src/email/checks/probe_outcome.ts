// What an SMTP probe's answer means for the two checks that probe: smtp (the real recipient) and catch_all (a
// recipient no real mailbox has). Pure mappings, shared by both checks.
import type { ProbeOutcome } from "../smtp/prober.ts";
import { retryHintMs } from "../smtp/reply.ts";
import type { CheckOutcome } from "../types.ts";

/** Greylisting without a delay in the reply: the job runner retries after this (and never sooner). */
export const DEFAULT_GREYLIST_DELAY_MS = 60_000;

/** The smtp check's outcome for the real recipient's answer. */
export function recipientOutcome(outcome: ProbeOutcome): CheckOutcome {
  if (outcome.kind === "timeout") return { status: "inconclusive", reasons: ["probe_timeout"], settles: true };
  if (outcome.kind === "unavailable") return { status: "inconclusive", reasons: ["probe_unavailable"], settles: true };
  switch (outcome.category) {
    case "accepted":
      return { status: "pass" };
    case "mailbox_not_found":
      return { status: "fail", reasons: ["mailbox_not_found"], settles: true };
    case "mailbox_full":
      return { status: "fail", reasons: ["mailbox_full"], settles: true };
    case "greylisted":
      return {
        status: "inconclusive",
        reasons: ["greylisted"],
        settles: true,
        retryAfterMs: retryHintMs(outcome.reply) ?? DEFAULT_GREYLIST_DELAY_MS,
      };
    default:
      // A block of our address, an unexplained refusal: nothing is known about the mailbox.
      return { status: "inconclusive", reasons: ["probe_unavailable"], settles: true };
  }
}

/** The catch_all check's outcome for a known answer about the domain. */
export function knownCatchAll(catchAll: boolean): CheckOutcome {
  return catchAll ? { status: "fail", reasons: ["catch_all_domain"] } : { status: "pass" };
}

/**
 * The catch_all check's outcome for the random recipient's answer: accepted means the server accepts anything, so
 * the real recipient's acceptance proved nothing; refused as unknown means it checks its mailboxes. Anything else
 * (full, greylisted, blocked, timed out) tells nothing about the domain.
 */
export function catchAllOutcome(outcome: ProbeOutcome): CheckOutcome {
  if (outcome.kind === "reply" && outcome.category === "accepted") return knownCatchAll(true);
  if (outcome.kind === "reply" && outcome.category === "mailbox_not_found") return knownCatchAll(false);
  const failed = recipientOutcome(outcome);
  return { status: "inconclusive", reasons: failed.status === "fail" ? ["probe_unavailable"] : failed.reasons };
}
