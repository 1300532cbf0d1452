// Polls a job through the store until it reaches a state, as a client polling GET /v1/jobs/{id} would.
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import type { Job, JobStore } from "../../src/jobs/job_store.ts";

/** Polls until `done` holds for the job, or fails after `timeoutMs`. */
export async function waitForJob(
  store: JobStore,
  ids: { account: string; jobId: string },
  options: { done?: (job: Job) => boolean; timeoutMs?: number } = {},
): Promise<Job> {
  const { done = (job) => job.status === "completed" || job.status === "failed", timeoutMs = 15_000 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await store.read(ids.account, ids.jobId);
    assert.ok(job, "the job exists");
    if (done(job)) return job;
    if (Date.now() > deadline) assert.fail(`job did not get there in time: ${job.status} ${job.processed}/${job.total}`);
    await sleep(10);
  }
}

