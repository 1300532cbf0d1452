// The hold of a job read under `Prefer: wait=N` (http/job_wait.ts) without a server: which preferences hold, the
// bound on reads held at once, news from this process's runners, and the periodic re-read that sees a job ended by
// another process. Fake status functions stand in for the database.
import { test } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { createJobWaits, jobWaitSeconds, MAX_JOB_WAIT_S } from "../../src/http/job_wait.ts";
import { createJobProgress } from "../../src/jobs/job_progress.ts";
import type { JobStatus } from "../../src/jobs/job_store.ts";

const JOB = "6f1c1f1e-0000-4000-8000-000000000001";

test("jobWaitSeconds() holds for whole seconds above 0, capped, and ignores anything else", () => {
  assert.equal(jobWaitSeconds(null), null);
  assert.equal(jobWaitSeconds("wait=5"), 5);
  assert.equal(jobWaitSeconds("respond-async, wait=7"), 7);
  assert.equal(jobWaitSeconds("wait=3600"), MAX_JOB_WAIT_S);
  for (const malformed of ["wait=0", "wait=soon", "wait", "wait=-2", "wait=1.5", "", "handling=lenient"]) {
    assert.equal(jobWaitSeconds(malformed), null, malformed);
  }
});

test("a job already ended is not held; a running one is held until the runner's news shows it ended", async () => {
  const progress = createJobProgress();
  const waits = createJobWaits({ progress, recheckMs: 60_000 });
  const signal = new AbortController().signal;
  const ended = await waits.wait({ accountId: "a", jobId: JOB, seconds: 5, signal, status: async () => "completed" });
  assert.equal(ended, "not-running");
  let status: JobStatus = "running";
  const start = performance.now();
  const held = waits.wait({ accountId: "a", jobId: JOB, seconds: 20, signal, status: async () => status });
  await sleep(100);
  assert.equal(waits.holding, 1);
  status = "completed";
  progress.wrote(JOB);
  assert.equal(await held, "ended");
  assert.ok(performance.now() - start < 5000, "the news woke the hold, not its periodic re-read");
  assert.equal(waits.holding, 0);
});

test("a job ended by another process (no news here) is seen at the periodic re-read", async () => {
  const waits = createJobWaits({ progress: createJobProgress(), recheckMs: 100 });
  let status: JobStatus = "queued";
  setTimeout(() => {
    status = "failed";
  }, 300).unref();
  const outcome = await waits.wait({
    accountId: "a",
    jobId: JOB,
    seconds: 20,
    signal: new AbortController().signal,
    status: async () => status,
  });
  assert.equal(outcome, "ended");
});

test("reads held at once are bounded per account and overall: beyond, answered at once", async () => {
  const waits = createJobWaits({ progress: createJobProgress(), perAccount: 2, overall: 3, recheckMs: 50 });
  const leave = new AbortController();
  const running = async (): Promise<JobStatus> => "running";
  const hold = (accountId: string) =>
    waits.wait({ accountId, jobId: JOB, seconds: 20, signal: leave.signal, status: running }).catch((e) => e);
  const held = [hold("a"), hold("a")];
  assert.equal(
    await waits.wait({ accountId: "a", jobId: JOB, seconds: 20, signal: leave.signal, status: running }),
    "busy",
  );
  held.push(hold("b"));
  assert.equal(
    await waits.wait({ accountId: "c", jobId: JOB, seconds: 20, signal: leave.signal, status: running }),
    "busy",
  );
  assert.equal(waits.holding, 3);
  leave.abort();
  for (const outcome of await Promise.all(held)) assert.equal((outcome as Error).name, "AbortError");
  assert.equal(waits.holding, 0, "every hold gave its place back");
});

test("a hold times out after its seconds with the job still running", async () => {
  const waits = createJobWaits({ progress: createJobProgress(), recheckMs: 200 });
  const start = performance.now();
  const outcome = await waits.wait({
    accountId: "a",
    jobId: JOB,
    seconds: 1,
    signal: new AbortController().signal,
    status: async () => "running",
  });
  assert.equal(outcome, "timed-out");
  assert.ok(performance.now() - start >= 950);
});

test("release() (the server stops) ends every hold at once and holds no new read", async () => {
  const waits = createJobWaits({ progress: createJobProgress(), recheckMs: 60_000 });
  const signal = new AbortController().signal;
  const running = async (): Promise<JobStatus> => "running";
  const start = performance.now();
  const held = waits.wait({ accountId: "a", jobId: JOB, seconds: 20, signal, status: running });
  await sleep(100);
  waits.release();
  assert.equal(await held, "released");
  assert.ok(performance.now() - start < 5000);
  assert.equal(await waits.wait({ accountId: "a", jobId: JOB, seconds: 20, signal, status: running }), "released");
  assert.equal(waits.holding, 0);
});
