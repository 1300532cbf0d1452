// Buckets in process memory: exact for the embedded database, which one process owns (the STATE_DIR lock).
import { decide, refill, type BucketSpec, type RateDecision, type RateLimiter } from "./rate_limiter.ts";

export function createMemoryRateLimiter(options: { now?: () => number } = {}): RateLimiter {
  const { now = Date.now } = options;
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    async take(accountId: string, bucket: string, spec: BucketSpec): Promise<RateDecision> {
      const key = `${accountId}:${bucket}`;
      const at = now();
      const state = buckets.get(key);
      const tokens = state ? refill(state.tokens, state.at, at, spec) : spec.per_minute + spec.burst;
      const result = decide(tokens, spec, at);
      buckets.set(key, { tokens: result.tokens, at });
      return result.decision;
    },
  };
}
