import assert from "node:assert/strict";
import { test } from "node:test";
import { createSmtpPool } from "../../../src/email/smtp/pool.ts";
import { fakeSession, live } from "./fake_session.ts";

test("createSmtpPool() refuses a limit below one with RangeError", () => {
  assert.throws(() => createSmtpPool({ maxPerHost: 0 }), RangeError);
});

test("an idle session is handed to the next caller that reuses", async () => {
  const pool = createSmtpPool({ maxPerHost: 1 });
  const first = await pool.acquire("mx", { signal: live(), reuse: true, priority: "bulk" });
  const session = fakeSession([], "a");
  first.release(session, { keep: true });
  const second = await pool.acquire("mx", { signal: live(), reuse: true, priority: "bulk" });
  assert.equal(second.session, session);
  second.release(null, { keep: false });
});

test("an idle session is QUIT after idleMs and its permit comes back", async () => {
  const log: string[] = [];
  const pool = createSmtpPool({ maxPerHost: 1, idleMs: 20 });
  (await pool.acquire("mx", { signal: live(), reuse: true, priority: "bulk" })).release(fakeSession(log, "a"), {
    keep: true,
  });
  await new Promise((r) => setTimeout(r, 60));
  assert.deepEqual(log, ["a:QUIT", "a:closed"]);
  const next = await pool.acquire("mx", { signal: live(), reuse: true, priority: "bulk" });
  assert.equal(next.session, null);
});

test("a caller that does not reuse gets a permit only after the idle session is gone", async () => {
  const log: string[] = [];
  const pool = createSmtpPool({ maxPerHost: 1 });
  (await pool.acquire("mx", { signal: live(), reuse: true, priority: "bulk" })).release(fakeSession(log, "a"), {
    keep: true,
  });
  const slot = await pool.acquire("mx", { signal: live(), reuse: false, priority: "bulk" });
  assert.equal(slot.session, null);
  assert.deepEqual(log, ["a:QUIT", "a:closed"]);
});

test("a waiter is woken when a slot is released, and gives up with SMTP_TIMEOUT at its deadline", async () => {
  const pool = createSmtpPool({ maxPerHost: 1 });
  const held = await pool.acquire("mx", { signal: live(), reuse: false, priority: "bulk" });
  const waiting = pool.acquire("mx", { signal: live(), reuse: false, priority: "bulk" });
  held.release(null, { keep: false });
  const woken = await waiting;
  const keepAlive = setTimeout(() => {}, 200); // AbortSignal.timeout() does not keep the event loop alive
  await assert.rejects(pool.acquire("mx", { signal: AbortSignal.timeout(20), reuse: false, priority: "bulk" }), {
    code: "SMTP_TIMEOUT",
  });
  clearTimeout(keepAlive);
  woken.release(null, { keep: false });
});

test("drain() QUITs every idle session", async () => {
  const log: string[] = [];
  const pool = createSmtpPool({ maxPerHost: 2 });
  const a = await pool.acquire("mx", { signal: live(), reuse: true, priority: "bulk" });
  const b = await pool.acquire("mx", { signal: live(), reuse: true, priority: "bulk" });
  a.release(fakeSession(log, "a"), { keep: true });
  b.release(fakeSession(log, "b"), { keep: true });
  await pool.drain();
  assert.deepEqual(log.sort(), ["a:QUIT", "a:closed", "b:QUIT", "b:closed"]);
});

test("an interactive caller is served before every bulk waiter, whenever it came", async () => {
  const pool = createSmtpPool({ maxPerHost: 1 });
  const held = await pool.acquire("mx", { signal: live(), reuse: true, priority: "bulk" });
  const served: string[] = [];
  const ask = (name: string, priority: "bulk" | "interactive") =>
    pool.acquire("mx", { signal: live(), reuse: false, priority }).then((slot) => {
      served.push(name);
      return slot;
    });
  const bulkA = ask("bulk A", "bulk");
  const bulkB = ask("bulk B", "bulk");
  assert.equal(held.interactiveWaiting(), false, "only bulk waiters: the holder keeps going");
  const single = ask("single", "interactive");
  assert.equal(held.interactiveWaiting(), true, "the holder is told a single call waits");
  assert.deepEqual(pool.usage(), [{ host: "mx", open: 1, idle: 0, waiting: 3, interactive: 1 }]);
  held.release(null, { keep: false });
  (await single).release(null, { keep: false });
  (await bulkA).release(null, { keep: false });
  (await bulkB).release(null, { keep: false });
  assert.deepEqual(served, ["single", "bulk A", "bulk B"]);
});

test("a session a bulk holder gives back goes to the waiting single call as it is, without QUIT", async () => {
  const log: string[] = [];
  const pool = createSmtpPool({ maxPerHost: 1 });
  const held = await pool.acquire("mx", { signal: live(), reuse: true, priority: "bulk" });
  const bulk = pool.acquire("mx", { signal: live(), reuse: true, priority: "bulk" });
  const single = pool.acquire("mx", { signal: live(), reuse: false, priority: "interactive" });
  const session = fakeSession(log, "a");
  held.release(session, { keep: true });
  const got = await single;
  assert.equal(got.session, session);
  assert.equal(got.interactiveWaiting(), false);
  // The single call keeps no idle connection, but a waiting bulk drainer takes it over.
  got.release(session, { keep: true, idle: false });
  assert.equal((await bulk).session, session);
  assert.deepEqual(log, []);
});

test("a single call takes an idle session at once; one released with idle: false and nobody waiting is QUIT", async () => {
  const log: string[] = [];
  const pool = createSmtpPool({ maxPerHost: 1 });
  (await pool.acquire("mx", { signal: live(), reuse: true, priority: "bulk" })).release(fakeSession(log, "a"), {
    keep: true,
  });
  const single = await pool.acquire("mx", { signal: live(), reuse: false, priority: "interactive" });
  assert.notEqual(single.session, null);
  single.release(single.session, { keep: true, idle: false });
  const next = await pool.acquire("mx", { signal: live(), reuse: true, priority: "bulk" });
  assert.equal(next.session, null, "the permit came back only once the session was gone");
  assert.deepEqual(log, ["a:QUIT", "a:closed"]);
});

test("a single call that gives up stops asking the bulk holders to yield", async () => {
  const pool = createSmtpPool({ maxPerHost: 1 });
  const held = await pool.acquire("mx", { signal: live(), reuse: true, priority: "bulk" });
  const gone = new AbortController();
  const single = pool.acquire("mx", { signal: gone.signal, reuse: false, priority: "interactive" });
  assert.equal(held.interactiveWaiting(), true);
  gone.abort();
  await assert.rejects(single, { code: "SMTP_ABORTED" });
  assert.equal(held.interactiveWaiting(), false);
  held.release(null, { keep: false });
});
