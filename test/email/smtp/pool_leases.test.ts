// The SMTP pool in a cluster, against slot leases kept in memory (the real ones are PostgreSQL's, tested in
// test/cluster/): a permit is leased before a connection is opened and given back when nobody here needs it, waiters
// get a slot freed elsewhere, and bulk work yields to another process's single call.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { SlotLeases } from "../../../src/email/cluster/slot_leases.ts";
import { createSmtpPool, type SlotPriority } from "../../../src/email/smtp/pool.ts";
import { fakeSession, live } from "./fake_session.ts";

/** A cluster's slots in memory: `free` of them for this process; what the others wish is set by the test. */
function memoryLeases(free: number) {
  let available = free;
  let others: SlotPriority | null = null;
  const listeners: Array<(host: string) => void> = [];
  const wishes: Array<SlotPriority | null> = [];
  const leases: SlotLeases = {
    take: async () => {
      if (available === 0) return false;
      available--;
      return true;
    },
    give: () => {
      available++;
    },
    want: (_host, priority) => {
      // As the real ones: only a change is told (and nothing before a first wish).
      if ((wishes.at(-1) ?? null) !== priority) wishes.push(priority);
    },
    othersWant: () => others,
    onChange: (fn) => listeners.push(fn),
    held: () => new Map(),
    close: async () => {},
  };
  return {
    leases,
    wishes,
    available: () => available,
    /** Another process frees a slot (announced). */
    freeElsewhere() {
      available++;
      for (const fn of listeners) fn("mx");
    },
    /** Another process starts or stops waiting. */
    othersWait(priority: SlotPriority | null) {
      others = priority;
      for (const fn of listeners) fn("mx");
    },
  };
}

const turn = () => new Promise((resolve) => setTimeout(resolve, 10));

test("a permit is a leased slot: none beyond the cluster's, given back once nobody here needs it", async () => {
  const cluster = memoryLeases(1);
  const pool = createSmtpPool({ maxPerHost: 3, leases: cluster.leases });
  const first = await pool.acquire("mx", { signal: live(), reuse: false, priority: "bulk" });
  assert.equal(cluster.available(), 0);
  let second: unknown;
  void pool.acquire("mx", { signal: live(), reuse: false, priority: "bulk" }).then((s) => (second = s));
  await turn();
  assert.equal(second, undefined, "no slot left in the cluster: it waits");
  assert.deepEqual(cluster.wishes, ["bulk"], "and says so to the others");
  // Handed over here without the database: the slot stays leased.
  first.release(null, { keep: false });
  await turn();
  assert.ok(second !== undefined);
  assert.equal(cluster.available(), 0);
  assert.equal(cluster.wishes.at(-1), null, "no longer waiting");
  (second as { release: (s: null, o: { keep: boolean }) => void }).release(null, { keep: false });
  await turn();
  assert.equal(cluster.available(), 1, "given back once nobody here waits");
});

test("a waiter gets a slot another process frees, at once", async () => {
  const cluster = memoryLeases(0);
  const pool = createSmtpPool({ maxPerHost: 3, leases: cluster.leases });
  const started = performance.now();
  const waiting = pool.acquire("mx", { signal: live(), reuse: false, priority: "interactive" });
  await turn();
  assert.deepEqual(cluster.wishes, ["interactive"]);
  cluster.freeElsewhere();
  const slot = await waiting;
  assert.ok(performance.now() - started < 500, "not at the next retry");
  slot.release(null, { keep: false });
});

test("bulk work yields to another process's single call: its slot goes back rather than to bulk here", async () => {
  const log: string[] = [];
  const cluster = memoryLeases(1);
  const pool = createSmtpPool({ maxPerHost: 3, leases: cluster.leases });
  const bulk = await pool.acquire("mx", { signal: live(), reuse: true, priority: "bulk" });
  let next: unknown;
  void pool.acquire("mx", { signal: live(), reuse: true, priority: "bulk" }).then((s) => (next = s));
  assert.equal(bulk.interactiveWaiting(), false);
  cluster.othersWait("interactive");
  assert.equal(bulk.interactiveWaiting(), true, "the bulk holder sees the call of the other process");
  bulk.release(fakeSession(log, "a"), { keep: true });
  await turn();
  assert.deepEqual(log, ["a:QUIT", "a:closed"], "QUIT rather than handed to the bulk waiter here");
  assert.equal(next, undefined);
  assert.equal(cluster.available(), 1, "the slot is the other process's to take");
  cluster.othersWait(null);
  await turn();
  assert.ok(next !== undefined, "bulk goes on once the call is served");
});

test("idle connections go when another process waits for the host", async () => {
  const log: string[] = [];
  const cluster = memoryLeases(1);
  const pool = createSmtpPool({ maxPerHost: 3, leases: cluster.leases, idleMs: 60_000 });
  (await pool.acquire("mx", { signal: live(), reuse: true, priority: "bulk" })).release(fakeSession(log, "a"), {
    keep: true,
  });
  assert.deepEqual(log, []);
  cluster.othersWait("bulk");
  await turn();
  assert.deepEqual(log, ["a:QUIT", "a:closed"]);
  assert.equal(cluster.available(), 1);
});
