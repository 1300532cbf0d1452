// The first three refusals of every authenticated call, in the order of docs/contract.md §5: 401 (key), 403 (endpoint),
// 429 (rate). What it admits carries the rate headers that every later answer repeats.
//
// Before the key is even looked at, a client address that failed to authenticate too often (AUTH_FAILURES_PER_MINUTE,
// limits/failed_auth_limiter.ts) is refused 429, unless its key may verify (found valid recently, or its hash is an
// unrevoked key's, auth/key_directory.ts): a flood of guessed keys costs a hash each and no query, and a valid key
// from the same address (a shared NAT) is answered. Every 401 says how to authenticate (RFC 6750 §3): `WWW-Authenticate: Bearer
// realm="vrai"`, with `error="invalid_token"` when a key was sent and is wrong.
import { bearerToken, parseApiKey } from "../auth/api_key.ts";
import type { Endpoint, KeyRecord } from "../auth/key_store.ts";
import type { Plan } from "../accounts/plans.ts";
import { JOB_READ_BUCKET, type RateDecision } from "../limits/rate_limiter.ts";
import type { Services } from "../services.ts";
import { HttpError, type ProblemSlug } from "./errors.ts";
import { scopeOf } from "./request_scope.ts";

export const WWW_AUTHENTICATE = 'Bearer realm="vrai"';
export const WWW_AUTHENTICATE_INVALID_TOKEN = 'Bearer realm="vrai", error="invalid_token"';

/** The socket's client address of a request that came through serve.ts; undefined for any other Request. */
function remoteAddressOf(request: Request): string | undefined {
  return (request as { remoteAddress?: string }).remoteAddress;
}

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
  /**
   * The permission the key needs; of a list, any one (a job read: the key's jobs are email or address jobs); unset:
   * any key of the account (its own settings, such as the callback secret).
   */
  endpoint?: Endpoint | readonly Endpoint[];
  bucket: "verify" | "jobs";
}

export async function admit(request: Request, services: Services, options: AdmitOptions): Promise<Caller> {
  const token = bearerToken(request.headers.get("authorization"));
  const address = remoteAddressOf(request);
  const failures = services.failedAuth;
  if (address !== undefined) {
    const wait = failures.retryAfter(address);
    // Failed attempts are limited, valid keys are not: one that may verify is looked up and answered, whoever else
    // shares its address; a guess is refused here, for a hash and a set lookup.
    if (wait > 0 && (token === undefined || !(await services.keys.mayBeValid(token)))) {
      throw new HttpError(
        "rate-limit-exceeded",
        `Cannot authenticate: too many failed authentications from this address; retry in ${wait} s`,
        { headers: { "retry-after": String(wait) } },
      );
    }
  }
  if (token === undefined) {
    // No bearer token at all: RFC 6750 §3.1 wants no error code, and nothing was tried, so nothing is counted.
    throw new HttpError(
      "invalid-api-key",
      "Cannot authenticate: send Authorization: Bearer vrai_live_<secret> or vrai_test_<secret>",
      { headers: { "www-authenticate": WWW_AUTHENTICATE } },
    );
  }
  const refuse = (slug: ProblemSlug, detail: string) => {
    if (address !== undefined) failures.fail(address);
    return new HttpError(slug, detail, { headers: { "www-authenticate": WWW_AUTHENTICATE_INVALID_TOKEN } });
  };
  if (parseApiKey(token) === undefined) {
    throw refuse(
      "invalid-api-key",
      "Cannot authenticate: the key is malformed; send Authorization: Bearer vrai_live_<secret> or vrai_test_<secret>",
    );
  }
  const key = await services.keys.resolve(token);
  if (!key) throw refuse("invalid-api-key", "Cannot authenticate: the key is unknown");
  // The request line names who called: the account and the key's public prefix, never the key.
  const scope = scopeOf(request);
  if (scope !== undefined) {
    scope.account = key.account;
    scope.keyPrefix = key.prefix;
  }
  if (key.revokedAt) throw refuse("revoked-api-key", `Cannot authenticate: key ${key.prefix}… was revoked`);
  const wanted: readonly Endpoint[] | undefined =
    typeof options.endpoint === "string" ? [options.endpoint] : options.endpoint;
  if (wanted !== undefined && !wanted.some((endpoint) => key.endpoints.includes(endpoint))) {
    throw new HttpError(
      "endpoint-not-allowed",
      `Cannot call this endpoint: the key may call ${key.endpoints.join(", ") || "no endpoint"}, not ${wanted.join(" or ")}`,
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
