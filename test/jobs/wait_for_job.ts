// Polls a job through the store until it reaches a state, as a client polling GET /v1/jobs/{id} would.
import assert from "node:assert/strict";
import type { Job, JobStore } from "../../src/jobs/job_store.ts";
import { eventually } from "../helpers/eventually.ts";

/** Polls until `done` holds for the job (by default: completed or failed), or fails after `timeoutMs`. */
export async function waitForJob(
  store: JobStore,
  ids: { account: string; jobId: string },
  options: { done?: (job: Job) => boolean; timeoutMs?: number } = {},
): Promise<Job> {
  const { done = (job) => job.status === "completed" || job.status === "failed", timeoutMs = 15_000 } = options;
  const job = await eventually(`job ${ids.jobId} to get there`, () => store.read(ids.account, ids.jobId), {
    until: (job) => job === undefined || done(job),
    timeoutMs,
    intervalMs: 10,
    describe: (job) => (job ? `${job.status} ${job.processed}/${job.total}` : "no such job"),
  });
  assert.ok(job, "the job exists");
  return job;
}
