// GET /v1/jobs/{id}: its own 60/min bucket, no quota, and one 404 for unknown, expired and foreign jobs alike (the
// store answers all three through the same query, so neither body nor timing tells them apart).
import * as v from "valibot";
import type { Services } from "../../services.ts";
import { HttpError } from "../errors.ts";
import { admit } from "../guard.ts";
import { json } from "../problem.ts";
import { JobIdSchema } from "../schemas.ts";

export function readJobRoute(services: Services) {
  return async (request: Request, params: Record<string, string>): Promise<Response> => {
    const caller = await admit(request, services, { endpoint: "email", bucket: "jobs" });
    const id = params.id.toLowerCase();
    // A malformed id is just another job that does not exist: the job read never answers 400.
    const job = v.is(JobIdSchema, id) ? await services.jobs.read(caller.key.accountId, id) : undefined;
    if (!job) {
      throw new HttpError("job-not-found", "Cannot read job: no such job for this account (unknown, expired or another account's)", {
        headers: caller.headers,
      });
    }
    return json(job, { headers: caller.headers });
  };
}
