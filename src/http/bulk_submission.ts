// What every bulk route (email and address lists) does with a list once read, whatever its kind: the 202 of its job,
// the replay of an Idempotency-Key (400 request-failed when the key was used for another list), the callback_url
// judged once before anything is charged, and the job stored, with a request under the same key that committed
// meanwhile answered as a replay and uncharged. Each request's callback, fingerprint and key are computed once and
// shared by the steps of verification_call.ts (check, replay, charges, run).
import { IdempotencyKeyTaken } from "../jobs/idempotency_key_taken.ts";
import type { Idempotency } from "../jobs/job_store.ts";
import type { AcceptedJob, Services } from "../services.ts";
import { callbackPolicy } from "../callbacks/callback_target.ts";
import { callbackUrlOf, callbackUrlSent, fingerprintWithCallback } from "./callback_url.ts";
import { HttpError } from "./errors.ts";
import { idempotencyKeyOf, REPLAYED_HEADER } from "./idempotency.ts";
import type { Answer } from "./verification_call.ts";

export const RETENTION_NOTE = "Submitted addresses and results are deleted 48 hours after submission.";

/** What a bulk route's submission needs of its kind of list. */
export interface BulkKind<B extends { callback_url?: string }, T> {
  /** What the list asks for, as one hash (without its callback URL, added here). */
  fingerprint(body: B): string;
  /** Stores the job: answered already when `answers` are given (test keys). */
  submit(
    accountId: string,
    body: B,
    options: { answers?: T[]; idempotency?: Idempotency; callbackUrl?: string },
  ): Promise<AcceptedJob>;
}

export interface BulkSubmission<B, T> {
  /** 400 invalid-request when the callback_url is refused (called before anything is charged). */
  checkCallback(body: B, request: Request): void;
  /** The job an earlier request under this Idempotency-Key created, answered again; undefined when none. */
  replay(body: B, accountId: string, request: Request): Promise<Answer | undefined>;
  /** Stores the job and answers its 202. */
  accepted(accountId: string, body: B, request: Request, answers?: T[]): Promise<Answer>;
}

export function bulkSubmission<B extends { callback_url?: string }, T>(
  services: Services,
  kind: BulkKind<B, T>,
): BulkSubmission<B, T> {
  const policy = callbackPolicy({
    allowCidrs: services.config.callbackAllowCidrs,
    allowHttpHosts: services.config.callbackAllowHttpHosts,
  });
  /** The 202 of a job, new or replayed. */
  const acceptedAnswer = (job: AcceptedJob, headers: Record<string, string> = {}): Answer => {
    const poll = `${services.config.publicUrl}/v1/jobs/${job.jobId}`;
    return {
      status: 202,
      headers: { location: poll, ...headers },
      data: {
        job_id: job.jobId,
        status: job.status,
        total: job.total,
        poll,
        expires_at: job.expiresAt,
        retention_note: RETENTION_NOTE,
      },
    };
  };
  const replayOf = async (accountId: string, idempotency: Idempotency): Promise<Answer | undefined> => {
    const job = await services.jobs.findIdempotent(accountId, idempotency.key);
    if (job === undefined) return undefined;
    if (job.requestHash !== idempotency.requestHash) {
      throw new HttpError(
        "request-failed",
        "Cannot accept batch: this Idempotency-Key was sent before with another list; send a new key with this one",
        { extensions: { errors: [{ member: "Idempotency-Key", message: "used before for another list" }] } },
      );
    }
    return acceptedAnswer(job, { [REPLAYED_HEADER]: "true" });
  };
  // The callback URL, from the body or the query, judged once per request.
  const callbacks = new WeakMap<object, string | undefined>();
  const callbackOf = (body: B, request: Request) => {
    if (!callbacks.has(body)) callbacks.set(body, callbackUrlOf(request, body.callback_url, policy));
    return callbacks.get(body);
  };
  const keyed = new WeakMap<object, Idempotency | undefined>();
  const idempotencyOf = (body: B, request: Request) => {
    if (!keyed.has(body)) {
      const key = idempotencyKeyOf(request);
      const sent = callbackUrlSent(request, body.callback_url);
      keyed.set(
        body,
        key === undefined ? undefined : { key, requestHash: fingerprintWithCallback(kind.fingerprint(body), sent) },
      );
    }
    return keyed.get(body);
  };
  return {
    checkCallback(body, request) {
      callbackOf(body, request);
    },
    async replay(body, accountId, request) {
      const idempotency = idempotencyOf(body, request);
      return idempotency === undefined ? undefined : replayOf(accountId, idempotency);
    },
    async accepted(accountId, body, request, answers) {
      const idempotency = idempotencyOf(body, request);
      let job: AcceptedJob;
      try {
        job = await kind.submit(accountId, body, { answers, idempotency, callbackUrl: callbackOf(body, request) });
      } catch (error) {
        // A request under the same key committed its job since this one looked: that job is the answer, paid once.
        if (!(error instanceof IdempotencyKeyTaken) || idempotency === undefined) throw error;
        const replayed = await replayOf(accountId, idempotency);
        if (replayed === undefined) throw error;
        return { ...replayed, uncharged: true };
      }
      return acceptedAnswer(job);
    },
  };
}
