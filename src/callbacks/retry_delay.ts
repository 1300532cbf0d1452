// When a failed callback is tried again: exponential back-off, as webhook senders do (Stripe: "up to three days with
// an exponential back off"). 30 s, 1 min, 2 min, … doubled up to one hour between attempts, for a day after the first
// attempt (about 30 attempts); a receiver down for a night still gets its callback in the morning.

export interface CallbackRetryPolicy {
  /** Wait after the first failed attempt. */
  firstDelayMs: number;
  /** Longest wait between two attempts. */
  maxDelayMs: number;
  /** No attempt is made later than this after the first one: the callback is then failed. */
  giveUpAfterMs: number;
}

export const DEFAULT_CALLBACK_RETRY: CallbackRetryPolicy = {
  firstDelayMs: 30_000,
  maxDelayMs: 3_600_000,
  giveUpAfterMs: 24 * 3_600_000,
};

/** The wait before the next attempt once `attempts` attempts have failed (1 after the first). */
export function callbackRetryDelay(attempts: number, policy: CallbackRetryPolicy = DEFAULT_CALLBACK_RETRY): number {
  const { firstDelayMs, maxDelayMs } = policy;
  const doublings = Math.min(Math.max(0, attempts - 1), 40);
  return Math.min(firstDelayMs * 2 ** doublings, maxDelayMs);
}
