// Token buckets per account (docs/contract.md §5): capacity = per_minute + burst, refilled at per_minute / 60 tokens a second.
// One bucket for verification calls, another of 60/min for job reads.

export interface BucketSpec {
  per_minute: number;
  burst: number;
}

export interface RateDecision {
  allowed: boolean;
  /** per_minute + burst: the ceiling actually enforced. */
  limit: number;
  /** Whole tokens left after this call. */
  remaining: number;
  /** Unix seconds when the bucket is full again. */
  reset: number;
  /** Seconds until a token is available (at least 1); meaningful when refused. */
  retryAfter: number;
}

export interface RateLimiter {
  take(accountId: string, bucket: "verify" | "jobs", spec: BucketSpec): Promise<RateDecision>;
}

export const JOB_READ_BUCKET: BucketSpec = { per_minute: 60, burst: 0 };

/** The decision for a bucket that holds `tokens` (after refill) at `nowMs`, of which one is taken when possible. */
export function decide(tokens: number, spec: BucketSpec, nowMs: number): { tokens: number; decision: RateDecision } {
  const capacity = spec.per_minute + spec.burst;
  const perSecond = spec.per_minute / 60;
  const allowed = tokens >= 1;
  const left = allowed ? tokens - 1 : tokens;
  return {
    tokens: left,
    decision: {
      allowed,
      limit: capacity,
      remaining: Math.floor(left),
      reset: Math.ceil(nowMs / 1000 + (capacity - left) / perSecond),
      retryAfter: Math.max(1, Math.ceil((1 - left) / perSecond)),
    },
  };
}

/** Tokens of a bucket last left at `tokens` at `lastMs`, refilled until `nowMs`. */
export function refill(tokens: number, lastMs: number, nowMs: number, spec: BucketSpec): number {
  const capacity = spec.per_minute + spec.burst;
  return Math.min(capacity, tokens + (Math.max(0, nowMs - lastMs) / 60_000) * spec.per_minute);
}
