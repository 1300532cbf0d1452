// A worker process killed with SIGKILL mid-job loses nothing: on PostgreSQL another runner finishes the job once the
// dead one's lease runs out; on the embedded database a restart on the same STATE_DIR takes the job back at once.
// Either way each address ends with exactly one result.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { createJobStore, type JobStore } from "../../src/jobs/job_store.ts";
import { startJobRunner } from "../../src/jobs/runner.ts";
import { silentLogger } from "../../src/log.ts";
import { openDatabase, type Sql } from "../../src/store/db.ts";
import { createFakeVerifier } from "./fake_verifier.ts";
import { createAccount, openTestDatabase, TEST_DATABASE_URL, testDatabase } from "../helpers/database.ts";
import { waitForJob } from "./wait_for_job.ts";

const FIXTURE = fileURLToPath(new URL("./fixtures/slow_runner.ts", import.meta.url));
const KILLED_TAG = 111;
const SURVIVOR_TAG = 222;
const EMAILS = Array.from({ length: 60 }, (_, i) => `user${i}@domain${i % 5}.test`);

/**
 * Runs the fixture until it has written `minDone` answers and has probes in flight, then kills it with SIGKILL;
 * returns what it probed.
 */
async function runAndKill(args: object, minDone: number): Promise<string[]> {
  const child = spawn(process.execPath, ["--import", "tsx", FIXTURE, JSON.stringify(args)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const probes: string[] = [];
  let buffered = "";
  let ready: () => void;
  const started = new Promise<void>((done) => (ready = done));
  let answered = 0;
  let enough: () => void;
  const progressed = new Promise<void>((done) => (enough = done));
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    buffered += chunk;
    const lines = buffered.split("\n");
    buffered = lines.pop()!;
    for (const line of lines) {
      if (line === "ready") ready();
      if (line.startsWith("probe ")) probes.push(line.slice(6));
      if (line.startsWith("answered ")) answered++;
      // Killed mid-batch: some answers written, some probes in flight.
      if (answered >= minDone && probes.length > answered) enough();
    }
  });
  const exited = new Promise<NodeJS.Signals | null>((done) => child.once("exit", (_code, signal) => done(signal)));
  try {
    const died = exited.then(() => assert.fail("the worker process exited on its own"));
    await Promise.race([started, died]);
    await Promise.race([
      progressed,
      died,
      sleep(30_000, undefined, { ref: false }).then(() => assert.fail("the worker process made no progress")),
    ]);
  } finally {
    child.kill("SIGKILL");
  }
  assert.equal(await exited, "SIGKILL");
  return probes;
}

/** Finishes the job with a survivor runner and checks that each address got exactly one result. */
async function finishAndCheck(
  sql: Sql,
  job: { store: JobStore; account: string; jobId: string; killedProbes: string[] },
  options: { leaseMs?: number; exclusive?: boolean },
): Promise<void> {
  const { store, account, jobId, killedProbes } = job;
  const atKill = await store.read(account, jobId);
  assert.ok(atKill && atKill.processed < EMAILS.length, "the job was cut mid-way");
  const [held] = await sql`select count(*)::int as n from job_items where job_id = ${jobId} and status = 'claimed'`;
  assert.ok(held!.n > 0, "the dead runner still held items");

  const survivorCalls = new Map<string, number>();
  const verifier = createFakeVerifier({
    durationMs: SURVIVOR_TAG,
    onProbe: (email) => survivorCalls.set(email, (survivorCalls.get(email) ?? 0) + 1),
  });
  const survivor = startJobRunner({ sql, verifier, log: silentLogger, pollMs: 20, ...options });
  try {
    const done = await waitForJob(store, { account, jobId });
    assert.equal(done.status, "completed");
    assert.equal(done.processed, EMAILS.length);
    assert.deepEqual(
      done.results.map((r) => r.email),
      EMAILS,
      "exactly one result per address, in order",
    );
    const byKilled = done.results.filter((r) => r.duration_ms === KILLED_TAG).map((r) => r.email);
    const bySurvivor = done.results.filter((r) => r.duration_ms === SURVIVOR_TAG).map((r) => r.email);
    assert.equal(byKilled.length + bySurvivor.length, EMAILS.length);
    assert.ok(byKilled.length >= atKill.processed);
    for (const email of byKilled) assert.ok(killedProbes.includes(email));
    // The survivor verified each remaining address once, and none that the dead runner had finished.
    assert.deepEqual([...survivorCalls.keys()].sort(), [...bySurvivor].sort());
    assert.deepEqual(new Set(survivorCalls.values()), new Set([1]));
  } finally {
    await survivor.stop();
  }
}

it("a runner killed with SIGKILL on PostgreSQL loses nothing: another runner finishes once the lease ends", async () => {
  const db = await openTestDatabase("postgres");
  try {
    const store = createJobStore(db.sql);
    const account = await createAccount(db.sql);
    const { jobId } = await store.submit(account, EMAILS);
    const args = { databaseUrl: TEST_DATABASE_URL, schema: db.schema, leaseMs: 500 };
    const killedProbes = await runAndKill(args, 12);
    await finishAndCheck(db.sql, { store, account, jobId, killedProbes }, { leaseMs: 200 });
  } finally {
    await db.close();
  }
});

it("a runner killed with SIGKILL on the embedded database loses nothing: a restart on the same STATE_DIR finishes", async () => {
  const place = testDatabase("embedded");
  const { stateDir } = place;
  try {
    let db = await openDatabase({ databaseUrl: undefined, stateDir });
    const store = createJobStore(db.sql);
    const account = await createAccount(db.sql);
    const { jobId } = await store.submit(account, EMAILS);
    await db.close(); // the worker process owns the directory alone
    const killedProbes = await runAndKill({ stateDir, leaseMs: 60_000 }, 12);
    // The lease is a minute long: only the restart's reclaim lets the job finish within the test.
    db = await openDatabase({ databaseUrl: undefined, stateDir });
    try {
      await finishAndCheck(
        db.sql,
        { store: createJobStore(db.sql), account, jobId, killedProbes },
        { exclusive: true },
      );
    } finally {
      await db.close();
    }
  } finally {
    await place.dispose();
  }
});
