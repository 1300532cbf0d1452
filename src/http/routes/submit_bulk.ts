// POST /v1/email/bulk: a JSON list (the spec's contract), or a CSV file (text/csv, an extension) whose rows are stored
// with the job so that the results go back out as the same rows. Both go through the same refusals, in the same order.
import * as v from "valibot";
import { SPEC_BATCH_MAX } from "../../accounts/plans.ts";
import { CsvReadError, CsvTable, parseCsvTable } from "../../jobs/csv_table.ts";
import { dedupeEmails } from "../../jobs/dedupe.ts";
import type { Services } from "../../services.ts";
import { BULK_BODY_LIMIT } from "../body.ts";
import { HttpError } from "../errors.ts";
import { BulkRequestSchema, EMAIL_MAX_LENGTH, isStorableText } from "../schemas.ts";
import { verificationHandler, type Answer } from "../verification_call.ts";
import { idempotencyKeyOf, REPLAYED_HEADER, requestFingerprint } from "../idempotency.ts";
import { IdempotencyKeyTaken } from "../../jobs/job_store.ts";
import type { AcceptedJob } from "../../services.ts";
import { countedTestAnswer, testEmailOrRefuse } from "./verify_email.ts";
import { EMAIL_INPUTS, assertInputsFitKey, listPlaces } from "../test_inputs.ts";
import { callbackPolicy } from "../../callbacks/callback_target.ts";
import { callbackUrlOf, callbackUrlSent, fingerprintWithCallback } from "../callback_url.ts";

/**
 * The bulk body as the route sees it: the spec's members, plus the parsed CSV when the body was one. Only the CSV
 * decoder can put a CsvTable there (JSON cannot make one); a `csv` member sent in JSON is dropped like any unknown one.
 */
const BulkBodySchema = v.object({
  ...BulkRequestSchema.entries,
  csv: v.optional(
    v.pipe(
      v.unknown(),
      v.transform((value) => (value instanceof CsvTable ? value : undefined)),
    ),
  ),
});

/** text/csv bodies: the rows, or 400 invalid-request naming the line that cannot be read. */
function decodeCsv(bytes: Uint8Array): { emails: string[]; csv: CsvTable } {
  try {
    const csv = parseCsvTable(bytes, { maxAddressLength: EMAIL_MAX_LENGTH, isStorable: isStorableText });
    return { emails: csv.emails, csv };
  } catch (error) {
    if (!(error instanceof CsvReadError)) throw error;
    const message = `line ${error.line}: ${error.message}`;
    throw new HttpError("invalid-request", `Cannot read CSV: ${message}`, {
      extensions: { line: error.line, errors: [{ member: `line ${error.line}`, message: error.message }] },
    });
  }
}

export const RETENTION_NOTE = "Submitted addresses and results are deleted 48 hours after submission.";

export function submitBulkRoute(services: Services) {
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
  /**
   * The job an earlier request under this Idempotency-Key created, answered again; 400 request-failed when that
   * request asked for another list.
   */
  const replay = async (accountId: string, key: string, fingerprint: string): Promise<Answer | undefined> => {
    const job = await services.jobs.findIdempotent(accountId, key);
    if (job === undefined) return undefined;
    if (job.requestHash !== fingerprint) {
      throw new HttpError(
        "request-failed",
        "Cannot accept batch: this Idempotency-Key was sent before with another list; send a new key with this one",
        { extensions: { errors: [{ member: "Idempotency-Key", message: "used before for another list" }] } },
      );
    }
    return acceptedAnswer(job, { [REPLAYED_HEADER]: "true" });
  };
  // The deduplicated list, and the request's Idempotency-Key with its fingerprint, are computed once per request and
  // shared by check, replay, charges and run.
  const deduped = new WeakMap<object, string[]>();
  const unique = (body: { emails: string[] }) => {
    let list = deduped.get(body);
    if (!list) deduped.set(body, (list = dedupeEmails(body.emails)));
    return list;
  };
  // The callback URL, from the body or (CSV) the query, judged once: 400 before anything is charged.
  const callbacks = new WeakMap<object, string | undefined>();
  const callbackOf = (body: v.InferOutput<typeof BulkBodySchema>, request: Request) => {
    if (!callbacks.has(body)) callbacks.set(body, callbackUrlOf(request, body.callback_url, policy));
    return callbacks.get(body);
  };
  const keyed = new WeakMap<object, { key: string; requestHash: string } | undefined>();
  const idempotencyOf = (body: v.InferOutput<typeof BulkBodySchema>, request: Request) => {
    if (!keyed.has(body)) {
      const key = idempotencyKeyOf(request);
      const sent = callbackUrlSent(request, body.callback_url);
      const requestHash = fingerprintWithCallback(requestFingerprint(body.emails, body.csv), sent);
      keyed.set(body, key === undefined ? undefined : { key, requestHash });
    }
    return keyed.get(body);
  };
  const accepted = async (
    accountId: string,
    body: v.InferOutput<typeof BulkBodySchema>,
    request: Request,
    answers?: ReturnType<typeof testEmailOrRefuse>[],
  ): Promise<Answer> => {
    const table = body.csv === undefined ? undefined : { columns: body.csv.columns, rows: body.csv.rows };
    const idempotency = idempotencyOf(body, request);
    let job: AcceptedJob;
    try {
      const callbackUrl = callbackOf(body, request);
      job = await services.jobs.submit(accountId, body.emails, { answers, table, idempotency, callbackUrl });
    } catch (error) {
      // A request under the same key committed its job since this one looked: that job is the answer, paid once.
      if (!(error instanceof IdempotencyKeyTaken) || idempotency === undefined) throw error;
      const replayed = await replay(accountId, idempotency.key, idempotency.requestHash);
      if (replayed === undefined) throw error;
      return { ...replayed, uncharged: true };
    }
    if (answers === undefined) services.metrics?.bulkQueued(job.total);
    else for (const answer of answers) countedTestAnswer(services, answer);
    return acceptedAnswer(job);
  };
  return verificationHandler(services, {
    endpoint: "email",
    meters: ["email"],
    schema: BulkBodySchema,
    body: { limit: BULK_BODY_LIMIT, oversized: "batch-too-large", decoders: { "text/csv": decodeCsv } },
    inputsFitKey: (body, mode) =>
      assertInputsFitKey(mode, EMAIL_INPUTS, body.emails, listPlaces("emails", body.csv?.lines), "accept batch"),
    check(body, caller, request) {
      callbackOf(body, request);
      const limit = Math.min(caller.plan.batch_max, SPEC_BATCH_MAX);
      if (body.emails.length > limit) {
        throw new HttpError(
          "batch-too-large",
          `Cannot accept batch: ${body.emails.length} ${body.csv ? "rows" : "addresses"}, the plan allows ${limit} per job`,
          {
            extensions: { limit, received: body.emails.length },
          },
        );
      }
    },
    replay: async (body, caller, request) => {
      const idempotency = idempotencyOf(body, request);
      if (idempotency === undefined) return undefined;
      return replay(caller.key.accountId, idempotency.key, idempotency.requestHash);
    },
    // Test keys: every item must be reserved; the job is stored already answered, offline.
    testAnswer: (body, caller, request) => {
      return accepted(caller.key.accountId, body, request, unique(body).map(testEmailOrRefuse));
    },
    charges: (body) => [{ endpoint: "email", amount: unique(body).length }],
    run: (body, caller, request) => accepted(caller.key.accountId, body, request),
  });
}
