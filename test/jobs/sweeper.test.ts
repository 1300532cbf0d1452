// The sweeper deletes every row of a job 48 hours after its submission, on the local PostgreSQL.
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import { createJobStore } from "../../src/jobs/job_store.ts";
import { startSweeper } from "../../src/jobs/sweeper.ts";
import { silentLogger } from "../../src/log.ts";
import { createAccount, openTestDatabase, type OpenTestDatabase } from "./test_database.ts";

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
  const old = new Date(Date.now() - 49 * HOUR);
  await store.submit(account, ["a@x.test"], { now: old });
  const sweeper = startSweeper({ sql: db.sql, log: silentLogger, intervalMs: 20 });
  try {
    for (let i = 0; i < 100; i++) {
      const [row] = await db.sql`select count(*)::int as n from jobs where account_id = ${account}`;
      if (row!.n === 0) break;
      await new Promise((done) => setTimeout(done, 10));
    }
    const [row] = await db.sql`select count(*)::int as n from jobs where account_id = ${account}`;
    assert.equal(row!.n, 0);
  } finally {
    await sweeper.stop();
  }
});

it("startSweeper() rejects a non-positive interval with a RangeError", () => {
  assert.throws(() => startSweeper({ sql: db.sql, log: silentLogger, intervalMs: 0 }), RangeError);
});
