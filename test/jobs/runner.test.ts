// The job runner on the local PostgreSQL, with a fake verifyMany injected at the boundary.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { createJobStore, FAILURE_VERIFIER, type JobStore } from "../../src/jobs/job_store.ts";
import {
  fallbackResult,
  interleaveDomains,
  overdueResult,
  startJobRunner,
  type JobRunner,
  type JobRunnerOptions,
} from "../../src/jobs/runner.ts";
import { silentLogger } from "../../src/log.ts";
import type { Sql } from "../../src/store/db.ts";
import { answer, createFakeVerifier } from "./fake_verifier.ts";
import { createAccount, openTestDatabase, type OpenTestDatabase, statementsSentBy } from "../helpers/database.ts";
import { waitForJob } from "./wait_for_job.ts";
import { eventually } from "../helpers/eventually.ts";

const FAST: Partial<JobRunnerOptions> = { pollMs: 10, log: silentLogger, greylist: { minDelayMs: 5, maxDelayMs: 50 } };

describe("startJobRunner() on PostgreSQL", () => {
  let db: OpenTestDatabase;
  let sql: Sql;
  let store: JobStore;
  let account: string;
  const runners: JobRunner[] = [];

  function run(options: Partial<JobRunnerOptions> & Pick<JobRunnerOptions, "verifier">): JobRunner {
    const runner = startJobRunner({ sql, log: silentLogger, ...FAST, ...options });
    runners.push(runner);
    return runner;
  }

  before(async () => {
    db = await openTestDatabase("postgres");
    sql = db.sql;
    store = createJobStore(sql);
  });
  after(async () => {
    await Promise.all(runners.splice(0).map((r) => r.stop()));
    await db?.close();
  });
  beforeEach(async () => {
    await Promise.all(runners.splice(0).map((r) => r.stop()));
    await sql`delete from jobs`;
    account = await createAccount(sql);
  });

  it("completes a job with one answer per address, in submission order, with the submitted spelling", async () => {
    const emails = ["a@one.test", "bad@two.test", "C@one.test", "d@three.test"];
    const { jobId } = await store.submit(account, emails);
    const verifier = createFakeVerifier();
    const runner = run({ verifier, batchSize: 3, lanes: 1 });
    const job = await waitForJob(store, { account, jobId });
    assert.equal(job.status, "completed");
    assert.equal(job.processed, 4);
    assert.deepEqual(
      job.results,
      emails.map((email) => answer(email)),
    );
    assert.deepEqual([...verifier.calls.values()], [1, 1, 1, 1]);
    // Within a batch the engine sees the domains in turn, so that its workers spread over the mail exchangers.
    assert.deepEqual(verifier.batches[0], ["a@one.test", "bad@two.test", "C@one.test"]);
    await runner.stop();
  });

  it("shows partial results in submission order while the job runs", async () => {
    const emails = Array.from({ length: 30 }, (_, i) => `u${String(i).padStart(2, "0")}@x.test`);
    const { jobId } = await store.submit(account, emails);
    run({ verifier: createFakeVerifier({ latencyMs: 25 }), batchSize: 4, lanes: 1 });
    const partial = await waitForJob(store, { account, jobId }, { done: (job) => job.processed >= 8 });
    assert.equal(partial.status, "running");
    assert.ok(partial.processed < partial.total);
    assert.equal(partial.results.length, partial.processed);
    assert.deepEqual(
      partial.results.map((r) => r.email),
      emails.slice(0, partial.processed),
    );
    const done = await waitForJob(store, { account, jobId });
    assert.deepEqual(
      done.results.map((r) => r.email),
      emails,
    );
  });

  it("retries a greylisted address after the server's delay and keeps the later answer", async () => {
    const { jobId } = await store.submit(account, ["grey@x.test", "ok@x.test"]);
    const verifier = createFakeVerifier({ greylistTimes: (e) => (e.startsWith("grey") ? 1 : 0), retryAfterMs: 20 });
    run({ verifier });
    const job = await waitForJob(store, { account, jobId });
    assert.deepEqual(job.results, [answer("grey@x.test"), answer("ok@x.test")]);
    assert.equal(verifier.calls.get("grey@x.test"), 2);
    assert.equal(verifier.calls.get("ok@x.test"), 1);
  });

  it("gives the greylisted answer as final after three tries", async () => {
    const { jobId } = await store.submit(account, ["grey@x.test"]);
    const verifier = createFakeVerifier({ greylistTimes: () => 99, retryAfterMs: 5 });
    run({ verifier });
    const job = await waitForJob(store, { account, jobId });
    assert.equal(verifier.calls.get("grey@x.test"), 3);
    assert.deepEqual(job.results, [answer("grey@x.test", { greylisted: true })]);
    assert.equal(job.status, "completed");
    assert.equal("retryAfterMs" in job.results[0]!, false);
  });

  it("does not retry a greylisted address past the retry window", async () => {
    const { jobId } = await store.submit(account, ["grey@x.test"]);
    const verifier = createFakeVerifier({ greylistTimes: () => 99, retryAfterMs: 40 });
    run({ verifier, greylist: { windowMs: 30, minDelayMs: 5, maxDelayMs: 100 } });
    const job = await waitForJob(store, { account, jobId });
    assert.equal(verifier.calls.get("grey@x.test"), 1);
    assert.deepEqual(job.results[0]?.reasons, ["greylisted"]);
  });

  it("retries an address whose probe timed out once, after the time-out delay, and keeps the later answer", async () => {
    const { jobId } = await store.submit(account, ["slow@x.test", "stuck@x.test", "ok@x.test"]);
    const verifier = createFakeVerifier({
      timeoutTimes: (e) => (e.startsWith("slow") ? 1 : e.startsWith("stuck") ? 99 : 0),
    });
    run({ verifier, timeoutRetryDelayMs: 20 });
    const job = await waitForJob(store, { account, jobId });
    assert.deepEqual(job.results, [
      answer("slow@x.test"),
      answer("stuck@x.test", { timedOut: true }),
      answer("ok@x.test"),
    ]);
    assert.equal(verifier.calls.get("slow@x.test"), 2);
    assert.equal(verifier.calls.get("stuck@x.test"), 2, "one retry, then the probe_timeout is final");
    assert.equal(verifier.calls.get("ok@x.test"), 1);
  });

  it("finishes items still unanswered at the hard bound as probe_timeout, and the job ends", async () => {
    const { jobId } = await store.submit(account, ["tarpit@x.test", "fast@y.test"]);
    const verifier = createFakeVerifier({ latencyMs: (e) => (e.startsWith("tarpit") ? 60_000 : 0) });
    const began = Date.now();
    run({ verifier, itemTimeoutMs: 300, leaseMs: 200 });
    const job = await waitForJob(store, { account, jobId });
    assert.ok(Date.now() - began < 5000, "the job ends soon after the bound");
    assert.equal(job.status, "completed");
    assert.deepEqual(job.results, [overdueResult("tarpit@x.test"), answer("fast@y.test")]);
    const [item] = await sql`select status, lease_owner from job_items where job_id = ${jobId} and position = 1`;
    assert.deepEqual([item!.status, item!.lease_owner], ["done", null], "its lease is no longer held or renewed");
    assert.equal(verifier.calls.get("tarpit@x.test"), 1, "an overdue item is not retried");
  });

  it("stop() aborts the probes in flight and hands the claimed items back to the queue", async () => {
    const { jobId } = await store.submit(account, ["a@x.test", "b@x.test", "c@x.test"]);
    let started = 0;
    const verifier = createFakeVerifier({ latencyMs: 30_000, onProbe: () => started++ });
    const runner = run({ verifier, batchSize: 2, lanes: 1 });
    await eventually("both probes of the first batch to start", () => started, { until: (n) => n >= 2, intervalMs: 5 });
    const began = Date.now();
    await runner.stop();
    assert.ok(Date.now() - began < 2000, "stop() does not wait for the probes to end");
    const items =
      await sql`select status, lease_owner, attempts from job_items where job_id = ${jobId} order by position`;
    assert.deepEqual(
      items.map((r) => [r.status, r.lease_owner, r.attempts]),
      [
        ["pending", null, 0],
        ["pending", null, 0],
        ["pending", null, 0],
      ],
    );
    // Another runner picks the job up from there.
    run({ verifier: createFakeVerifier() });
    const job = await waitForJob(store, { account, jobId });
    assert.equal(job.processed, 3);
  });

  it("claims the next batch as soon as answers make room, not once the slow items of earlier batches are done", async () => {
    // Two batches of two in flight at most; each of the first two batches holds one address that takes seconds.
    const emails = ["slow1@x.test", "a@y.test", "slow2@x.test", "b@y.test", "c@y.test", "d@y.test", "e@y.test"];
    const { jobId } = await store.submit(account, emails);
    const verifier = createFakeVerifier({ latencyMs: (e) => (e.startsWith("slow") ? 3000 : 5) });
    const began = Date.now();
    run({ verifier, batchSize: 2, lanes: 2 });
    const partial = await waitForJob(store, { account, jobId }, { done: (job) => job.processed >= 5 });
    assert.ok(
      Date.now() - began < 2500,
      `the fast addresses were answered before the slow ones (${Date.now() - began} ms)`,
    );
    assert.deepEqual(
      partial.results.map((r) => r.email).filter((e) => !e.startsWith("slow")),
      ["a@y.test", "b@y.test", "c@y.test", "d@y.test", "e@y.test"],
    );
    const job = await waitForJob(store, { account, jobId });
    assert.equal(job.processed, 7);
  });

  it("renews its leases, so a probe longer than the lease is not taken over by another runner", async () => {
    const { jobId } = await store.submit(account, ["slow@x.test"]);
    const calls: string[] = [];
    // The probe lasts three leases; renewals every third of a lease leave room for a loaded test machine.
    const slow = createFakeVerifier({ latencyMs: 1200, onProbe: (e) => calls.push(`first ${e}`) });
    run({ verifier: slow, leaseMs: 400 });
    await eventually("the first runner to probe", () => calls.length, { until: (n) => n > 0, intervalMs: 5 });
    run({ verifier: createFakeVerifier({ onProbe: (e) => calls.push(`second ${e}`) }), leaseMs: 400 });
    const job = await waitForJob(store, { account, jobId });
    assert.deepEqual(calls, ["first slow@x.test"]);
    assert.equal(job.processed, 1);
  });

  it("gives the fallback answer to an address the verifier keeps failing on, and verifies the others", async () => {
    const emails = ["a@x.test", "boom@x.test", "b@y.test", "c@z.test"];
    const { jobId } = await store.submit(account, emails);
    const verifier = createFakeVerifier({ failsOn: (e) => e.startsWith("boom") });
    run({ verifier, errorDelayMs: 1, maxFailures: 3, lanes: 1 });
    const job = await waitForJob(store, { account, jobId });
    assert.equal(job.status, "completed");
    assert.deepEqual(job.results, [
      answer("a@x.test"),
      fallbackResult("boom@x.test"),
      answer("b@y.test"),
      answer("c@z.test"),
    ]);
    assert.equal(verifier.calls.get("boom@x.test"), 3, "three failed tries, the first inside the whole batch");
    for (const email of ["a@x.test", "b@y.test", "c@z.test"]) assert.equal(verifier.calls.get(email), 1);
  });

  it("fails a job when no address of it could be verified, with a failure_reason", async () => {
    const { jobId } = await store.submit(account, ["boom@x.test"]);
    run({ verifier: createFakeVerifier({ failsOn: () => true }), errorDelayMs: 1, maxFailures: 2 });
    const job = await waitForJob(store, { account, jobId });
    assert.equal(job.status, "failed");
    assert.equal(job.failure_reason, FAILURE_VERIFIER);
    assert.deepEqual(job.results, [fallbackResult("boom@x.test")]);
  });

  it("probes an address present in two jobs once per batch and answers both jobs", async () => {
    const first = await store.submit(account, ["same@x.test"]);
    const second = await store.submit(account, ["SAME@x.test"]);
    const verifier = createFakeVerifier();
    run({ verifier, lanes: 1 }); // one claim takes both items
    const a = await waitForJob(store, { account, jobId: first.jobId });
    const b = await waitForJob(store, { account, jobId: second.jobId });
    assert.deepEqual(
      a.results.map((r) => r.email),
      ["same@x.test"],
    );
    assert.deepEqual(
      b.results.map((r) => r.email),
      ["SAME@x.test"],
    );
    assert.deepEqual(verifier.batches, [["same@x.test"]]);
  });

  it("two runners with their own connections never verify the same item twice", async () => {
    const emails = Array.from({ length: 300 }, (_, i) => `user${i}@domain${i % 7}.test`);
    const { jobId } = await store.submit(account, emails);
    const peer = await db.openPeer();
    try {
      const calls = new Map<string, number>();
      const count = (email: string) => calls.set(email, (calls.get(email) ?? 0) + 1);
      const latencyMs = () => Math.floor(Math.random() * 4);
      run({ verifier: createFakeVerifier({ latencyMs, onProbe: count }), batchSize: 7 });
      run({ verifier: createFakeVerifier({ latencyMs, onProbe: count }), batchSize: 5, sql: peer.sql });
      const job = await waitForJob(store, { account, jobId });
      assert.equal(job.processed, 300);
      assert.equal(calls.size, 300);
      assert.deepEqual(new Set(calls.values()), new Set([1]));
      assert.deepEqual(
        job.results.map((r) => r.email),
        emails,
      );
      await Promise.all(runners.splice(0).map((r) => r.stop()));
    } finally {
      await peer.close();
    }
  });

  it("writes the answers that arrive together in one statement, not one per item", async () => {
    const emails = Array.from({ length: 200 }, (_, i) => `user${i}@domain${i % 7}.test`);
    const { jobId } = await store.submit(account, emails);
    const { value: job, statements } = await statementsSentBy(sql, async () => {
      run({ verifier: createFakeVerifier(), batchSize: 100, lanes: 2 });
      return waitForJob(store, { account, jobId });
    });
    assert.equal(job.processed, 200);
    assert.deepEqual(
      job.results.map((r) => r.email),
      emails,
    );
    const writes = statements.filter((s) => /update job_items/.test(s) && /update jobs/.test(s));
    assert.ok(writes.length >= 1 && writes.length <= 10, `${writes.length} write statements for 200 answers`);
  });

  it("interleaveDomains() takes the domains in turn and keeps the order within each", () => {
    assert.deepEqual(interleaveDomains(["a@x", "b@x", "c@x", "d@y", "e@z", "f@y"]), [
      "a@x",
      "d@y",
      "e@z",
      "b@x",
      "f@y",
      "c@x",
    ]);
    assert.deepEqual(interleaveDomains([]), []);
  });

  it("rejects options that make no sense with a RangeError", () => {
    const verifier = createFakeVerifier();
    assert.throws(() => startJobRunner({ sql, verifier, log: silentLogger, batchSize: 0 }), RangeError);
    assert.throws(
      () => startJobRunner({ sql, verifier, log: silentLogger, greylist: { minDelayMs: 10, maxDelayMs: 5 } }),
      RangeError,
    );
  });
});
