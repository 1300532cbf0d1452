// The life of every verification call (email, address, signup, bulk), in the order of refusals of docs/contract.md §5:
// 401, 403, 429 (guard.ts), 415, 400, 413 (route check), then test mode or 402 (quota), then the work. Quota is
// charged before the work and given back if the work fails, so only a 200/202 costs anything.
import type * as v from "valibot";
import type { Endpoint } from "../auth/key_store.ts";
import type { QuotaCharge } from "../limits/quota.ts";
import type { MeteredEndpoint } from "../accounts/plans.ts";
import { quotaHeaders } from "../limits/quota.ts";
import type { Services } from "../services.ts";
import { assertJsonContentType, readJson, type ReadJsonOptions } from "./body.ts";
import { HttpError } from "./errors.ts";
import { admit, type Caller } from "./guard.ts";
import { json } from "./problem.ts";

export interface Answer {
  data: unknown;
  status?: number;
  headers?: Record<string, string>;
}

export interface VerificationCall<S extends v.GenericSchema> {
  /** The permission the key needs. */
  endpoint: Endpoint;
  /** The quotas this call can draw from: their state is shown on refusals too. */
  meters: MeteredEndpoint[];
  schema: S;
  body: ReadJsonOptions;
  /** Refusals that depend on the validated body and the plan (400 beyond the schema, 413). */
  check?: (body: v.InferOutput<S>, caller: Caller) => void;
  /** Test keys: the offline answer, or an HttpError request-failed naming the reserved inputs. */
  testAnswer: (body: v.InferOutput<S>, caller: Caller) => Answer | Promise<Answer>;
  charges: (body: v.InferOutput<S>, caller: Caller) => QuotaCharge[];
  /** The work; `request` for what its headers ask (Prefer: wait=N). */
  run: (body: v.InferOutput<S>, caller: Caller, signal: AbortSignal, request: Request) => Promise<Answer>;
}

export function verificationHandler<S extends v.GenericSchema>(services: Services, call: VerificationCall<S>) {
  return async (request: Request): Promise<Response> => {
    const caller = await admit(request, services, { endpoint: call.endpoint, bucket: "verify" });
    const metered = caller.key.mode === "live" && caller.plan.quota !== null;
    let headers = caller.headers;
    let charged: QuotaCharge[] = [];
    try {
      assertJsonContentType(request);
      const body = await readJson(request, call.schema, call.body);
      call.check?.(body, caller);
      if (caller.key.mode === "test") return reply(await call.testAnswer(body, caller), headers);
      const charges = call.charges(body, caller).filter((c) => c.amount > 0);
      const result = await services.quota.charge(caller.key.accountId, caller.plan, charges);
      if (!result.ok) {
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
      return reply(await call.run(body, caller, request.signal, request), headers);
    } catch (error) {
      if (charged.length > 0) await services.quota.refund(caller.key.accountId, caller.plan, charged).catch(() => {});
      // A refused call shows what is left, uncharged (a 402 already carries the state that refused it).
      if (metered && !(error instanceof HttpError && error.slug === "quota-exceeded")) {
        const states = await services.quota.status(caller.key.accountId, caller.plan, call.meters).catch(() => []);
        headers = { ...headers, ...quotaHeaders(states) };
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
