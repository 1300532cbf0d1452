// The life of every verification call (email, address, signup, bulk), in the order of refusals of docs/contract.md §5:
// 401, 403, 429 (guard.ts), 415, 400, then a replay (bulk's Idempotency-Key: the answer already paid for), 413 (route
// check), then inputs of the other key mode (400 request-failed, test_inputs.ts), then test mode or 402 (quota), then
// the work. Quota is charged before the work and given back if the
// work fails or turns out to be a replay, so only a 200/202 that did new work costs anything.
// A bulk upload is read as it arrives (http/bulk_upload.ts): the 413 of a list past the plan's rows comes while it is
// read, so before a 400 of a later row and before a replay.
import type * as v from "valibot";
import type { KeyMode } from "../auth/api_key.ts";
import type { Endpoint } from "../auth/key_store.ts";
import type { QuotaCharge } from "../limits/quota.ts";
import type { MeteredEndpoint } from "../accounts/plans.ts";
import { quotaHeaders } from "../limits/quota.ts";
import type { Services } from "../services.ts";
import { acceptedMediaTypes, assertJsonContentType, readJson, type ReadJsonOptions } from "./body.ts";
import { HttpError } from "./errors.ts";
import { admit, type Caller } from "./guard.ts";
import { json } from "./problem.ts";

export interface Answer {
  data: unknown;
  status?: number;
  headers?: Record<string, string>;
  /** The work found its answer already paid for (a replay racing the first request): the charge is given back. */
  uncharged?: boolean;
}

export interface VerificationCall<S extends v.GenericSchema> {
  /** The permission the key needs. */
  endpoint: Endpoint;
  /** The quotas this call can draw from: their state is shown on refusals too. */
  meters: MeteredEndpoint[];
  schema: S;
  /** How the body is read; a function of the caller where the plan bounds it (the rows a bulk upload may hold). */
  body: ReadJsonOptions | ((caller: Caller) => ReadJsonOptions);
  /**
   * 400 request-failed for inputs that do not fit the key (test_inputs.ts): on a test key any input that is not a
   * reserved test input, on a live key any that is. Every route that takes inputs says where they stand. After the
   * route's check: a list too large is a 413 whatever it holds, and is not read row by row first.
   */
  inputsFitKey: (body: v.InferOutput<S>, mode: KeyMode) => void;
  /** Refusals that depend on the validated body and the plan (400 beyond the schema, 413). */
  check?: (body: v.InferOutput<S>, caller: Caller, request: Request) => void;
  /** The answer of an earlier request this one repeats (before 413, test mode and quota: a replay is never charged). */
  replay?: (body: v.InferOutput<S>, caller: Caller, request: Request) => Promise<Answer | undefined>;
  /** Test keys: the offline answer, or an HttpError request-failed naming the reserved inputs. */
  testAnswer: (body: v.InferOutput<S>, caller: Caller, request: Request) => Answer | Promise<Answer>;
  charges: (body: v.InferOutput<S>, caller: Caller) => QuotaCharge[];
  /**
   * The work; `request` for what its headers ask (Prefer: wait=N) and for `request.signal`, aborted when the client
   * goes away. A call that can be cancelled reads the signal; one that cannot leaves it unbuilt (on Node 20 an
   * AbortController and its listeners cost ~8 µs, more than half an address match).
   */
  run: (body: v.InferOutput<S>, caller: Caller, request: Request) => Promise<Answer>;
}

export function verificationHandler<S extends v.GenericSchema>(services: Services, call: VerificationCall<S>) {
  return async (request: Request): Promise<Response> => {
    const caller = await admit(request, services, { endpoint: call.endpoint, bucket: "verify" });
    const metered = caller.key.mode === "live" && caller.plan.quota !== null;
    let headers = caller.headers;
    let charged: QuotaCharge[] = [];
    /** The quota headers of what is left now, uncharged. */
    const quotaState = async () =>
      quotaHeaders(await services.quota.status(caller.key.accountId, caller.plan, call.meters));
    try {
      const reading = typeof call.body === "function" ? call.body(caller) : call.body;
      assertJsonContentType(request, acceptedMediaTypes(reading));
      const body = await readJson(request, call.schema, reading);
      // A replay answers what the first request got, whatever changed since (the plan's batch_max, the quota).
      const replayed = await call.replay?.(body, caller, request);
      if (replayed !== undefined) return reply(replayed, metered ? { ...headers, ...(await quotaState()) } : headers);
      call.check?.(body, caller, request);
      call.inputsFitKey(body, caller.key.mode);
      if (caller.key.mode === "test") return reply(await call.testAnswer(body, caller, request), headers);
      const charges = call.charges(body, caller).filter((c) => c.amount > 0);
      const result = await services.quota.charge(caller.key.accountId, caller.plan, charges);
      if (!result.ok) {
        // A request under the same Idempotency-Key may have committed its job since the first look: no 402 for it.
        const replayedNow = await call.replay?.(body, caller, request);
        if (replayedNow !== undefined) return reply(replayedNow, { ...headers, ...quotaHeaders(result.states) });
        headers = { ...headers, ...quotaHeaders(result.states) };
        const { endpoint, limit, remaining } = result.refused;
        services.metrics?.quotaRefusal(endpoint);
        throw new HttpError(
          "quota-exceeded",
          `Cannot verify: the ${endpoint} quota of ${limit} calls this month is spent` +
            (remaining > 0 ? ` (${remaining} left, fewer than this call needs)` : "") +
            "; it renews on the first day of next month (X-Quota-Reset)",
        );
      }
      charged = charges;
      headers = { ...headers, ...quotaHeaders(result.states) };
      const answer = await call.run(body, caller, request);
      if (answer.uncharged) {
        await services.quota.refund(caller.key.accountId, caller.plan, charged);
        charged = [];
        headers = { ...headers, ...(await quotaState()) };
      }
      return reply(answer, headers);
    } catch (error) {
      if (charged.length > 0) await services.quota.refund(caller.key.accountId, caller.plan, charged).catch(() => {});
      // A refused call shows what is left, uncharged (a 402 already carries the state that refused it).
      if (metered && !(error instanceof HttpError && error.slug === "quota-exceeded")) {
        headers = { ...headers, ...(await quotaState().catch(() => ({}))) };
      }
      if (error instanceof HttpError) {
        throw new HttpError(error.slug, error.detail, {
          extensions: error.extensions,
          headers: { ...headers, ...error.headers },
          cause: error.cause,
        });
      }
      // app.ts answers 500 or 503 for anything else; it still owes the client the headers of this call.
      const fault = error instanceof Error ? error : new Error(String(error));
      throw Object.assign(fault, { responseHeaders: headers });
    }
  };
}

function reply(answer: Answer, headers: Record<string, string>): Response {
  return json(answer.data, { status: answer.status ?? 200, headers: { ...headers, ...answer.headers } });
}
