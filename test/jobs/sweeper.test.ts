// The sweeper deletes every row of a job 48 hours after its submission, on the local PostgreSQL.
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import { createJobStore } from "../../src/jobs/job_store.ts";
import { startSweeper } from "../../src/jobs/sweeper.ts";
import { silentLogger } from "../../src/log.ts";
import { createAccount, openTestDatabase, type OpenTestDatabase } from "../helpers/database.ts";
import { eventually } from "../helpers/eventually.ts";

const HOUR = 3600_000;
let db: OpenTestDatabase;
before(async () => {
  db = await openTestDatabase("postgres");
});
after(async () => {
  await db?.close();
});

it("startSweeper() deletes every row of a job once 48 hours have passed since its submission", async () => {
  const store = createJobStore(db.sql);
  const account = await createAccount(db.sql);
  const submitted = new Date();
  const { jobId } = await store.submit(account, ["a@x.test", "b@x.test"], { now: submitted });
  const young = await store.submit(account, ["c@x.test"], { now: new Date(submitted.getTime() + HOUR) });
  let clock = new Date(submitted.getTime() + 47 * HOUR);
  const sweeper = startSweeper({ sql: db.sql, log: silentLogger, intervalMs: 60_000, now: () => clock });
  try {
    assert.equal(await sweeper.sweepNow(), 0);
    assert.ok(await store.read(account, jobId, { now: clock }));
    clock = new Date(submitted.getTime() + 48 * HOUR);
    assert.equal(await sweeper.sweepNow(), 1);
    assert.equal(await store.read(account, jobId, { now: clock }), undefined);
    const rows = await db.sql`select count(*)::int as n from job_items where job_id = ${jobId}`;
    assert.equal(rows[0]!.n, 0);
    assert.ok(await store.read(account, young.jobId, { now: clock }));
  } finally {
    await sweeper.stop();
  }
});

it("startSweeper() sweeps at start and then on its interval", async () => {
  const store = createJobStore(db.sql);
  const account = await createAccount(db.sql);
  let clock = new Date();
  // Expired at start: the sweep at start deletes it.
  const old = await store.submit(account, ["a@x.test"], { now: new Date(clock.getTime() - 49 * HOUR) });
  // Young at start, expired once the clock moves on: only a later sweep can delete it.
  const later = await store.submit(account, ["b@x.test"], { now: new Date(clock.getTime() - 47 * HOUR) });
  const exists = async (jobId: string) =>
    (await db.sql`select count(*)::int as n from jobs where id = ${jobId}`)[0]!.n === 1;
  const intervalMs = 400;
  /** When each sweep began, in ms after the start: the sweeper reads the clock once per sweep, as it begins. */
  const sweeps: number[] = [];
  /** Which sweep (1 = the first) deleted how many jobs: sweeps run one at a time, so the last begun is the one. */
  const deletions: Array<{ sweep: number; jobs: unknown }> = [];
  const log = {
    ...silentLogger,
    info: (msg: string, fields?: Record<string, unknown>) => {
      if (msg === "expired jobs deleted") deletions.push({ sweep: sweeps.length, jobs: fields?.jobs });
    },
  };
  const began = performance.now();
  const sweeper = startSweeper({
    sql: db.sql,
    log,
    intervalMs,
    now: () => {
      sweeps.push(performance.now() - began);
      return clock;
    },
  });
  try {
    await eventually("the expired job to be deleted", () => exists(old.jobId), { until: (there) => !there });
    assert.deepEqual(deletions, [{ sweep: 1, jobs: 1 }], "the first sweep deleted it");
    assert.ok(sweeps[0]! < intervalMs, `the first sweep began ${sweeps[0]} ms after the start, before any interval`);
    assert.ok(await exists(later.jobId), "the young job is still there");

    clock = new Date(clock.getTime() + 2 * HOUR);
    await eventually("the job that has now expired to be deleted", () => exists(later.jobId), {
      until: (there) => !there,
    });
    const second = deletions[1]!;
    assert.deepEqual(second.jobs, 1);
    assert.ok(second.sweep >= 2, `a later sweep deleted it: ${JSON.stringify(deletions)}`);
    await eventually("a third sweep", () => sweeps.length, { until: (n) => n >= 3 });
    // Sweep i (from 0) waits for the i-th tick; setInterval may fire a millisecond early against performance.now().
    for (let i = 1; i < sweeps.length; i++) {
      assert.ok(sweeps[i]! >= i * intervalMs - 5, `sweep ${i} began ${sweeps[i]} ms after the start: ${sweeps}`);
    }
  } finally {
    await sweeper.stop();
  }
});

it("startSweeper() rejects a non-positive interval with a RangeError", () => {
  assert.throws(() => startSweeper({ sql: db.sql, log: silentLogger, intervalMs: 0 }), RangeError);
});
