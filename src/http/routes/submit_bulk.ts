import { SPEC_BATCH_MAX } from "../../accounts/plans.ts";
import { dedupeEmails } from "../../jobs/dedupe.ts";
import type { Services } from "../../services.ts";
import { BULK_BODY_LIMIT } from "../body.ts";
import { HttpError } from "../errors.ts";
import { BulkRequestSchema } from "../schemas.ts";
import { verificationHandler, type Answer } from "../verification_call.ts";
import { testEmailOrRefuse } from "./verify_email.ts";

export const RETENTION_NOTE = "Submitted addresses and results are deleted 48 hours after submission.";

export function submitBulkRoute(services: Services) {
  const accepted = async (accountId: string, emails: string[], answers?: ReturnType<typeof testEmailOrRefuse>[]): Promise<Answer> => {
    const job = await services.jobs.submit(accountId, emails, { answers });
    const poll = `${services.config.publicUrl}/v1/jobs/${job.jobId}`;
    return {
      status: 202,
      headers: { location: poll },
      data: { job_id: job.jobId, status: job.status, total: job.total, poll, expires_at: job.expiresAt, retention_note: RETENTION_NOTE },
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
    schema: BulkRequestSchema,
    body: { limit: BULK_BODY_LIMIT, oversized: "batch-too-large" },
    check(body, caller) {
      const limit = Math.min(caller.plan.batch_max, SPEC_BATCH_MAX);
      if (body.emails.length > limit) {
        throw new HttpError("batch-too-large", `Cannot accept batch: ${body.emails.length} addresses, the plan allows ${limit} per job`, {
          extensions: { limit, received: body.emails.length },
        });
      }
    },
    // Test keys: every item must be reserved; the job is stored already answered, offline.
    testAnswer: (body, caller) => {
      const emails = unique(body);
      return accepted(caller.key.accountId, emails, emails.map(testEmailOrRefuse));
    },
    charges: (body) => [{ endpoint: "email", amount: unique(body).length }],
    run: (body, caller) => accepted(caller.key.accountId, unique(body)),
  });
}
