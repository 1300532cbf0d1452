import assert from "node:assert/strict";
import { test } from "node:test";
import type { SmtpConnection } from "../../../src/email/smtp/dialer.ts";
import { createSmtpPool, type SmtpSession } from "../../../src/email/smtp/pool.ts";
import { parseReply } from "../../../src/email/smtp/reply.ts";

function fakeSession(log: string[], name: string): SmtpSession {
  let closed = false;
  const conn: SmtpConnection = {
    get closed() {
      return closed;
    },
    read: async () => parseReply(["220 hi"])!,
    command: async (line) => {
      log.push(`${name}:${line}`);
      return parseReply(["221 bye"])!;
    },
    close: () => {
      if (!closed) log.push(`${name}:closed`);
      closed = true;
    },
    waitClosed: async () => {},
  };
  return { conn, target: { host: "mx", address: "93.184.216.34", port: 25 }, smtpUtf8: false };
}

const live = () => new AbortController().signal;

test("createSmtpPool() refuses a limit below one with RangeError", () => {
  assert.throws(() => createSmtpPool({ maxPerHost: 0 }), RangeError);
});

test("an idle session is handed to the next caller that reuses", async () => {
  const pool = createSmtpPool({ maxPerHost: 1 });
  const first = await pool.acquire("mx", { signal: live(), reuse: true });
  const session = fakeSession([], "a");
  first.release(session, { keep: true });
  const second = await pool.acquire("mx", { signal: live(), reuse: true });
  assert.equal(second.session, session);
  second.release(null, { keep: false });
});

test("an idle session is QUIT after idleMs and its permit comes back", async () => {
  const log: string[] = [];
  const pool = createSmtpPool({ maxPerHost: 1, idleMs: 20 });
  (await pool.acquire("mx", { signal: live(), reuse: true })).release(fakeSession(log, "a"), { keep: true });
  await new Promise((r) => setTimeout(r, 60));
  assert.deepEqual(log, ["a:QUIT", "a:closed"]);
  const next = await pool.acquire("mx", { signal: live(), reuse: true });
  assert.equal(next.session, null);
});

test("a caller that does not reuse gets a permit only after the idle session is gone", async () => {
  const log: string[] = [];
  const pool = createSmtpPool({ maxPerHost: 1 });
  (await pool.acquire("mx", { signal: live(), reuse: true })).release(fakeSession(log, "a"), { keep: true });
  const slot = await pool.acquire("mx", { signal: live(), reuse: false });
  assert.equal(slot.session, null);
  assert.deepEqual(log, ["a:QUIT", "a:closed"]);
});

test("a waiter is woken when a slot is released, and gives up with SMTP_TIMEOUT at its deadline", async () => {
  const pool = createSmtpPool({ maxPerHost: 1 });
  const held = await pool.acquire("mx", { signal: live(), reuse: false });
  const waiting = pool.acquire("mx", { signal: live(), reuse: false });
  held.release(null, { keep: false });
  const woken = await waiting;
  const keepAlive = setTimeout(() => {}, 200); // AbortSignal.timeout() does not keep the event loop alive
  await assert.rejects(pool.acquire("mx", { signal: AbortSignal.timeout(20), reuse: false }), { code: "SMTP_TIMEOUT" });
  clearTimeout(keepAlive);
  woken.release(null, { keep: false });
});

test("drain() QUITs every idle session", async () => {
  const log: string[] = [];
  const pool = createSmtpPool({ maxPerHost: 2 });
  const a = await pool.acquire("mx", { signal: live(), reuse: true });
  const b = await pool.acquire("mx", { signal: live(), reuse: true });
  a.release(fakeSession(log, "a"), { keep: true });
  b.release(fakeSession(log, "b"), { keep: true });
  await pool.drain();
  assert.deepEqual(log.sort(), ["a:QUIT", "a:closed", "b:QUIT", "b:closed"]);
});
