// test-scope: once
// A process alone on the PostgreSQL: it knows it within one presence interval, stops being alone the moment another
// process says "here", and while alone its catch-all claims stay off the probe's path (the first probe of a domain
// does not wait for the database); with another process there, claims are agreed through the table again. Each
// process is played by its own connection pool and channel on one schema.
import assert from "node:assert/strict";
import { test } from "node:test";
import { createCatchAllMemo } from "../../src/email/checks/catch_all_memo.ts";
import { createClusterChannel } from "../../src/email/cluster/cluster_channel.ts";
import { createClusterPresence } from "../../src/email/cluster/cluster_presence.ts";
import { shareCatchAll } from "../../src/email/cluster/shared_catch_all.ts";
import { silentLogger } from "../../src/log.ts";
import { openTestDatabase } from "../helpers/database.ts";
import { eventually } from "../helpers/eventually.ts";

/**
 * The presence interval: a process counts another gone after three of them without a word. 100 ms (a peer gone after
 * 300 ms of silence) failed once on a doubly loaded two-core machine, A taking B for gone between two claims.
 */
const INTERVAL_MS = 500;

test("alone, a process claims a catch-all probe without waiting for the database; not alone, it agrees", async (t) => {
  const db = await openTestDatabase("postgres");
  t.after(() => db.close());
  /** A process: its own pool on the schema, channel, presence and shared catch-all memo. */
  const startProcess = async () => {
    const own = await db.openPeer();
    const channel = createClusterChannel(own.sql, { log: silentLogger });
    await channel.open();
    const presence = createClusterPresence(channel, { intervalMs: INTERVAL_MS });
    t.after(async () => {
      presence.close();
      await channel.close();
      await own.close();
    });
    const memo = shareCatchAll(createCatchAllMemo(), {
      channel,
      ttlMs: 60_000,
      log: silentLogger,
      alone: presence.alone,
    });
    return { presence, memo };
  };

  const a = await startProcess();
  assert.equal(a.presence.alone(), false, "not before it has listened for one interval");
  await eventually("A to know it is alone", () => a.presence.alone(), { timeoutMs: 2000 });

  // Another transaction holds the domain's row: a claim made through the table would wait for it.
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let holding = false;
  const blocker = db.sql
    .begin(async (tx) => {
      await tx`insert into catch_all_answers (domain, catch_all, holder, expires_at)
               values ('alone.test', null, 'someone', now() + interval '1 minute')`;
      holding = true;
      await held;
      throw new Error("rolled back on purpose");
    })
    .catch(() => {});
  await eventually("the row to be held", () => holding, { timeoutMs: 2000 });
  // Let go after a while whatever happens: a claim through the table waits until then (and the test fails).
  const letGo = setTimeout(release, 1500);
  const started = performance.now();
  const claimed = await a.memo.claim!("alone.test", { bulk: true });
  const waitedMs = performance.now() - started;
  clearTimeout(letGo);
  release();
  await blocker;
  assert.equal(claimed, true, "alone: this process asks the catch-all recipient");
  assert.ok(waitedMs < 500, `the claim waited ${Math.round(waitedMs)} ms for the database`);
  assert.equal(a.memo.pending("alone.test"), true, "a second caller here does not ask it again");
  assert.equal(await a.memo.claim!("alone.test", { bulk: true }), false);
  // The claim reaches the table meanwhile, for a process that joins later.
  await eventually(
    "the claim to be written",
    async () => (await db.sql`select holder from catch_all_answers where domain = 'alone.test'`).length === 1,
    { timeoutMs: 3000 },
  );

  // A second process: both know at once, and claims go through the table again.
  const b = await startProcess();
  await eventually("A to hear of B", () => !a.presence.alone() && a.presence.others() === 1, { timeoutMs: 2000 });
  await eventually("B to hear of A", () => b.presence.others() === 1, { timeoutMs: 2000 });
  assert.equal(b.presence.alone(), false);
  assert.equal(await b.memo.claim!("alone.test", { bulk: true }), false, "B sees A's claim written while alone");
  assert.equal(await b.memo.claim!("two.test", { bulk: true }), true);
  assert.equal(await a.memo.claim!("two.test", { bulk: true }), false, "one probe per domain for both");

  // B says it is gone: A is alone again, without waiting for B's silence to run out.
  b.presence.close();
  await eventually("A to be alone again", () => a.presence.alone(), { timeoutMs: 1000 });
});
