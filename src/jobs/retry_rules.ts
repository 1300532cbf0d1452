// When a bulk item is tried again, and when its answer is final: pure rules, apart from the runner's loop, so that
// each can be read and tested as a table (test/jobs/retry_rules.test.ts).
//
// - Greylisting (4xx "try again later"): retried after the server's delay, doubled at each further try, at most
//   `maxTries` probes within `windowMs` of the first greylisted answer (docs/contract.md §6).
// - A probe that timed out: retried once after the MX cool-off (a server that was slow for a moment gets a second
//   chance; a tarpit costs one more budget, not a job that never ends).
// - A hand-out that produced no answer (verifier error, crashed worker): retried with exponential backoff; after
//   `maxFailures` such hand-outs the item gets the fallback answer instead of looping for ever.
import { DEFAULT_GREYLIST_DELAY_MS } from "../email/checks/probe_outcome.ts";
import type { EmailReason } from "../email/types.ts";

export interface RetryPolicy {
  greylist: {
    /** Probes of a greylisted address, the first included, before its greylisted answer is final. */
    maxTries: number;
    /** Retries happen within this time from the first greylisted answer. */
    windowMs: number;
    /** Bounds of the delay before a retry (the server's delay, doubled at each further try). */
    minDelayMs: number;
    maxDelayMs: number;
  };
  timeout: {
    /** Retries of an address whose probe timed out before its probe_timeout is final. */
    maxRetries: number;
    delayMs: number;
  };
  failure: {
    /** Hand-outs without an answer before the item gets the fallback answer. */
    maxFailures: number;
    /** Delay before the first retry after a failed hand-out, doubled at each further one. */
    delayMs: number;
    maxDelayMs: number;
  };
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  greylist: { maxTries: 3, windowMs: 30 * 60_000, minDelayMs: DEFAULT_GREYLIST_DELAY_MS, maxDelayMs: 5 * 60_000 },
  timeout: { maxRetries: 1, delayMs: 60_000 },
  failure: { maxFailures: 3, delayMs: 5000, maxDelayMs: 5 * 60_000 },
};

/** What the rules need to know of an item's history. */
export interface ItemHistory {
  /** Hand-outs so far, this one included. */
  attempts: number;
  greylistTries: number;
  /** When the first greylisted answer came. */
  greylistedAt: Date | null;
  timeoutTries: number;
}

/** What one verification said, as far as retries go. */
export interface AnswerSummary {
  reasons: readonly EmailReason[];
  /** The server's greylisting delay, when it gave one. */
  retryAfterMs?: number;
}

export type AnswerDecision = { action: "final" } | { action: "retry"; delayMs: number; counts: "greylist" | "timeout" };

/** After an answer: write it, or try the address again later. */
export function afterAnswer(
  item: ItemHistory,
  answer: AnswerSummary,
  policy: RetryPolicy,
  now: number,
): AnswerDecision {
  if (answer.reasons.includes("greylisted") && item.greylistTries + 1 < policy.greylist.maxTries) {
    const { minDelayMs, maxDelayMs, windowMs } = policy.greylist;
    const base = answer.retryAfterMs ?? minDelayMs;
    const delayMs = Math.min(maxDelayMs, Math.max(minDelayMs, base * 2 ** item.greylistTries));
    const firstAt = item.greylistedAt?.getTime() ?? now;
    if (now + delayMs <= firstAt + windowMs) return { action: "retry", delayMs, counts: "greylist" };
  }
  if (answer.reasons.includes("probe_timeout") && item.timeoutTries < policy.timeout.maxRetries) {
    return { action: "retry", delayMs: policy.timeout.delayMs, counts: "timeout" };
  }
  return { action: "final" };
}

/** Hand-outs of the item that produced no answer, this one included (deferred retries are not failures). */
export function failedHandOuts(item: ItemHistory): number {
  return item.attempts - item.greylistTries - item.timeoutTries;
}

/** Before a hand-out: true when the item failed too often already and gets the fallback answer instead. */
export function exhausted(item: ItemHistory, policy: RetryPolicy): boolean {
  return failedHandOuts(item) - 1 >= policy.failure.maxFailures;
}

/** After a hand-out without an answer: how long until the item is tried again. */
export function failureDelay(item: ItemHistory, policy: RetryPolicy): number {
  const { delayMs, maxDelayMs } = policy.failure;
  return Math.min(maxDelayMs, delayMs * 2 ** (failedHandOuts(item) - 1));
}
