// The first three refusals of every authenticated call, in the order of docs/contract.md §5: 401 (key), 403 (endpoint),
// 429 (rate). What it admits carries the rate headers that every later answer repeats.
import { bearerToken, parseApiKey } from "../auth/api_key.ts";
import type { Endpoint, KeyRecord } from "../auth/key_store.ts";
import type { Plan } from "../accounts/plans.ts";
import { JOB_READ_BUCKET, type RateDecision } from "../limits/rate_limiter.ts";
import type { Services } from "../services.ts";
import { HttpError } from "./errors.ts";

export interface Caller {
  key: KeyRecord;
  plan: Plan;
  /** X-RateLimit-* of the bucket this call drew from. */
  headers: Record<string, string>;
}

export function rateHeaders(decision: RateDecision): Record<string, string> {
  return {
    "x-ratelimit-limit": String(decision.limit),
    "x-ratelimit-remaining": String(decision.remaining),
    "x-ratelimit-reset": String(decision.reset),
  };
}

export interface AdmitOptions {
  endpoint: Endpoint;
  bucket: "verify" | "jobs";
}

export async function admit(request: Request, services: Services, options: AdmitOptions): Promise<Caller> {
  const token = bearerToken(request.headers.get("authorization"));
  if (token === undefined || parseApiKey(token) === undefined) {
    throw new HttpError(
      "invalid-api-key",
      "Cannot authenticate: send Authorization: Bearer vrai_live_<secret> or vrai_test_<secret>",
    );
  }
  const key = await services.keys.resolve(token);
  if (!key) throw new HttpError("invalid-api-key", "Cannot authenticate: the key is unknown");
  if (key.revokedAt) throw new HttpError("revoked-api-key", `Cannot authenticate: key ${key.prefix}… was revoked`);
  if (!key.endpoints.includes(options.endpoint)) {
    throw new HttpError(
      "endpoint-not-allowed",
      `Cannot call this endpoint: the key may call ${key.endpoints.join(", ") || "no endpoint"}, not ${options.endpoint}`,
    );
  }
  const plan = services.plans[key.plan];
  if (!plan) throw new Error(`Cannot admit call: account plan "${key.plan}" is not configured`);
  const spec = options.bucket === "jobs" ? JOB_READ_BUCKET : plan.rate;
  const decision = await services.rate.take(key.accountId, options.bucket, spec);
  const headers = rateHeaders(decision);
  if (!decision.allowed) {
    throw new HttpError(
      "rate-limit-exceeded",
      `Cannot accept call: more than ${decision.limit} calls a minute; retry in ${decision.retryAfter} s`,
      {
        headers: { ...headers, "retry-after": String(decision.retryAfter) },
      },
    );
  }
  return { key, plan, headers };
}
