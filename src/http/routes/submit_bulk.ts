// POST /v1/email/bulk: a JSON list (the spec's contract), or a CSV file (text/csv, issue 13) whose rows are stored
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
import { countedTestAnswer, testEmailOrRefuse } from "./verify_email.ts";

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
  const accepted = async (
    accountId: string,
    body: v.InferOutput<typeof BulkBodySchema>,
    answers?: ReturnType<typeof testEmailOrRefuse>[],
  ): Promise<Answer> => {
    const table = body.csv === undefined ? undefined : { columns: body.csv.columns, rows: body.csv.rows };
    const job = await services.jobs.submit(accountId, body.emails, { answers, table });
    if (answers === undefined) services.metrics?.bulkQueued(job.total);
    else for (const answer of answers) countedTestAnswer(services, answer);
    const poll = `${services.config.publicUrl}/v1/jobs/${job.jobId}`;
    return {
      status: 202,
      headers: { location: poll },
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
  // The deduplicated list is computed once per request and shared by check, charges and run.
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
    body: { limit: BULK_BODY_LIMIT, oversized: "batch-too-large", decoders: { "text/csv": decodeCsv } },
    check(body, caller) {
      const limit = Math.min(caller.plan.batch_max, SPEC_BATCH_MAX);
      if (body.emails.length > limit) {
        throw new HttpError(
          "batch-too-large",
          `Cannot accept batch: ${body.emails.length} addresses, the plan allows ${limit} per job`,
          {
            extensions: { limit, received: body.emails.length },
          },
        );
      }
    },
    // Test keys: every item must be reserved; the job is stored already answered, offline.
    testAnswer: (body, caller) => {
      return accepted(caller.key.accountId, body, unique(body).map(testEmailOrRefuse));
    },
    charges: (body) => [{ endpoint: "email", amount: unique(body).length }],
    run: (body, caller) => accepted(caller.key.accountId, body),
  });
}
