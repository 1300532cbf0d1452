// Buckets in PostgreSQL, so that every process sharing DATABASE_URL draws from the same tokens. The row lock of one
// UPDATE serialises concurrent takes; the database clock is the only clock, so processes need not agree on time.
import type { Sql } from "../store/db.ts";
import { decide, refill, type BucketSpec, type RateDecision, type RateLimiter } from "./rate_limiter.ts";

export function createPostgresRateLimiter(sql: Sql): RateLimiter {
  return {
    async take(accountId: string, bucket: string, spec: BucketSpec): Promise<RateDecision> {
      const capacity = spec.per_minute + spec.burst;
      return sql.begin(async (tx) => {
        await tx`
          insert into rate_buckets (account_id, bucket, tokens, updated_at)
          values (${accountId}, ${bucket}, ${capacity}, clock_timestamp())
          on conflict (account_id, bucket) do nothing`;
        const [row] = await tx`
          select tokens, (extract(epoch from updated_at) * 1000)::float8 as last_ms,
                 (extract(epoch from clock_timestamp()) * 1000)::float8 as now_ms
          from rate_buckets where account_id = ${accountId} and bucket = ${bucket} for update`;
        const nowMs = Number(row.now_ms);
        const result = decide(refill(Number(row.tokens), Number(row.last_ms), nowMs, spec), spec, nowMs);
        await tx`
          update rate_buckets set tokens = ${result.tokens}, updated_at = to_timestamp(${nowMs / 1000})
          where account_id = ${accountId} and bucket = ${bucket}`;
        return result.decision;
      });
    },
  };
}
