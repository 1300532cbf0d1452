// POST /v1/email/bulk: a JSON list (the spec's contract), or a CSV file (text/csv, or one file part of a
// multipart/form-data upload: extensions) whose rows are stored with the job so that the results go back out as the
// same rows. Every form is read as it arrives (http/bulk_upload.ts) and goes through the same refusals, in the same
// order; the job itself is stored as every bulk list is (http/bulk_submission.ts).
import * as v from "valibot";
import { SPEC_BATCH_MAX } from "../../accounts/plans.ts";
import { CsvTable, csvTableOf } from "../../jobs/csv_table.ts";
import { dedupeEmails } from "../../jobs/dedupe.ts";
import type { Services } from "../../services.ts";
import { BULK_BODY_LIMIT } from "../body.ts";
import { bulkSubmission } from "../bulk_submission.ts";
import { bulkUploadDecoders } from "../bulk_upload.ts";
import { HttpError } from "../errors.ts";
import { requestFingerprint } from "../idempotency.ts";
import { BulkRequestSchema, EMAIL_MAX_LENGTH } from "../schemas.ts";
import { verificationHandler } from "../verification_call.ts";
import { countedTestAnswer, testEmailOrRefuse } from "./verify_email.ts";
import { EMAIL_INPUTS, assertInputsFitKey, listPlaces } from "../test_inputs.ts";

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
type BulkBody = v.InferOutput<typeof BulkBodySchema>;

export function submitBulkRoute(services: Services) {
  const submission = bulkSubmission<BulkBody, ReturnType<typeof testEmailOrRefuse>>(services, {
    fingerprint: (body) => requestFingerprint(body.emails, body.csv),
    async submit(accountId, body, { answers, idempotency, callbackUrl }) {
      const table = body.csv === undefined ? undefined : { columns: body.csv.columns, rows: body.csv.rows };
      const job = await services.jobs.submit(accountId, body.emails, { answers, table, idempotency, callbackUrl });
      if (answers === undefined) services.metrics?.bulkQueued(job.total);
      else for (const answer of answers) countedTestAnswer(services, answer);
      return job;
    },
  });
  // The deduplicated list is computed once per request and shared by the test answer and the charges.
  const deduped = new WeakMap<object, string[]>();
  const unique = (body: { emails: string[] }) => {
    let list = deduped.get(body);
    if (!list) deduped.set(body, (list = dedupeEmails(body.emails)));
    return list;
  };
  return verificationHandler(services, {
    endpoint: "email",
    meters: ["email"],
    schema: BulkBodySchema,
    body: (caller) => {
      const limit = Math.min(caller.plan.batch_max, SPEC_BATCH_MAX);
      return {
        limit: BULK_BODY_LIMIT,
        oversized: "batch-too-large",
        streamed: bulkUploadDecoders({
          list: "emails",
          maxRows: limit,
          tooMany: (received, unit) =>
            new HttpError(
              "batch-too-large",
              `Cannot accept batch: more than ${limit} ${unit}, the plan allows ${limit} per job`,
              { extensions: { limit, received } },
            ),
          fromCsv: (records) => {
            const csv = csvTableOf(records, { maxAddressLength: EMAIL_MAX_LENGTH });
            return { emails: csv.emails, csv };
          },
        }),
      };
    },
    inputsFitKey: (body, mode) =>
      assertInputsFitKey(mode, EMAIL_INPUTS, body.emails, listPlaces("emails", body.csv?.lines), "accept batch"),
    check: (body, _caller, request) => submission.checkCallback(body, request),
    replay: (body, caller, request) => submission.replay(body, caller.key.accountId, request),
    // Test keys: every item must be reserved; the job is stored already answered, offline.
    testAnswer: (body, caller, request) =>
      submission.accepted(caller.key.accountId, body, request, unique(body).map(testEmailOrRefuse)),
    charges: (body) => [{ endpoint: "email", amount: unique(body).length }],
    run: (body, caller, request) => submission.accepted(caller.key.accountId, body, request),
  });
}
