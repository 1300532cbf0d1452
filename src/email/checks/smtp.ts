// smtp: ask the domain's MX hosts whether they accept the recipient, without sending anything.
import type { CheckOutcome } from "../types.ts";
import type { ProbeOutcome } from "../smtp/prober.ts";
import { retryHintMs } from "../smtp/reply.ts";
import type { CheckContext } from "./context.ts";

/** Greylisting without a hint in the reply: the job runner retries after this. */
export const DEFAULT_RETRY_AFTER_MS = 60_000;

/** Pure mapping of a probe outcome to a check outcome (shared with the catch-all probe for its failures). */
export function probeOutcome(outcome: ProbeOutcome): CheckOutcome {
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
        retryAfterMs: retryHintMs(outcome.reply) ?? DEFAULT_RETRY_AFTER_MS,
      };
    default:
      // A block of our address, an unexplained refusal: nothing is known about the mailbox.
      return { status: "inconclusive", reasons: ["probe_unavailable"], settles: true };
  }
}

export async function smtp(ctx: CheckContext): Promise<CheckOutcome> {
  const email = ctx.state.parsed!;
  const { outcome, held } = await ctx.deps.prober.probe(ctx.state.mx!, `${email.local}@${email.domain}`, {
    signal: ctx.signal,
    reuse: ctx.reuseConnections,
    // Keep the connection for the catch-all probe unless the domain's answer is already known.
    hold: !ctx.deps.catchAll.known(email.domain),
    utf8: email.utf8Local,
  });
  ctx.state.accepted = held;
  return probeOutcome(outcome);
}
