// How bulk recipients are shared over an MX host's connections, against loopback peers on 127.0.70.x:25:
// without PIPELINING a connection takes one recipient at a time from its host's queue, so a slow connection keeps none
// that the others could ask; with PIPELINING the recipients waiting join a transaction before its last replies are in,
// so the server never waits a round trip between chunks. Run as root (the peers bind port 25).
import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { parseCidr } from "../../../src/email/net/cidr.ts";
import { createNetDialer } from "../../../src/email/smtp/dialer.ts";
import { createSmtpPool } from "../../../src/email/smtp/pool.ts";
import { createSmtpProber, type RecipientProbe } from "../../../src/email/smtp/prober.ts";
import type { MxHost } from "../../../src/email/types.ts";
import { silentLogger } from "../../../src/log.ts";
import { type ReceivedLine, startFastSmtpPeer } from "../peers.ts";

const skip = process.getuid?.() !== 0 ? "SMTP peers bind port 25, which needs root" : false;

let nextHost = 10;

/**
 * A loopback peer (test/email/peers.ts) whose connection n answers each command `delayOf(n)` ms after the previous
 * reply, in order, as a real server reads pipelined lines; mailboxes whose local part starts with "ok" exist.
 */
async function startPeer(
  t: TestContext,
  options: { pipelining: boolean; delayOf: (connection: number) => number },
): Promise<{ host: MxHost; lines: ReceivedLine[] }> {
  const address = `127.0.70.${nextHost++}`;
  const peer = await startFastSmtpPeer({
    host: address,
    mailboxes: (local) => local.startsWith("ok"),
    pipelining: options.pipelining,
    delayMs: options.delayOf,
  });
  t.after(() => peer.stop());
  return { host: { exchange: `mx.${address}`, priority: 10, addresses: [address] }, lines: peer.lines };
}

function bulkProber(t: TestContext, connections: number) {
  const pool = createSmtpPool({ maxPerHost: connections });
  const prober = createSmtpProber({
    dialer: createNetDialer({ idleTimeoutMs: 5000 }),
    pool,
    port: 25,
    heloName: "probe.example",
    mailFrom: "verify@probe.example",
    probeTimeoutMs: 3000,
    allow: [parseCidr("127.0.0.0/8")],
    log: silentLogger,
    connectionsPerHost: connections,
  });
  t.after(async () => {
    await pool.drain();
    await prober.settled();
  });
  const signal = new AbortController().signal;
  const probe = (host: MxHost, recipient: string) =>
    prober.probe([host], recipient, { signal, reuse: true, utf8: false, skipFailingHosts: true });
  return { probe };
}

const categories = (results: RecipientProbe[]) =>
  results.map((r) => (r.outcome.kind === "reply" ? r.outcome.category : r.outcome.kind));
const rcpts = (lines: ReceivedLine[], connection?: number) =>
  lines.filter((l) => l.line.startsWith("RCPT") && (connection === undefined || l.connection === connection));

test("bulk without PIPELINING: a slow connection keeps no recipients the host's other connections could ask", {
  skip,
}, async (t) => {
  // Connection 1 answers every command after 150 ms, the two others after 5 ms.
  const { host, lines } = await startPeer(t, { pipelining: false, delayOf: (n) => (n === 1 ? 150 : 5) });
  const { probe } = bulkProber(t, 3);
  const recipients = Array.from({ length: 30 }, (_, i) => (i % 3 === 2 ? `nobody${i}@d.fr` : `ok${i}@d.fr`));
  const started = performance.now();
  const results = await Promise.all(recipients.map((r) => probe(host, r)));
  const ms = performance.now() - started;
  assert.deepEqual(
    categories(results),
    recipients.map((r) => (r.startsWith("ok") ? "accepted" : "mailbox_not_found")),
  );
  assert.equal(rcpts(lines).length, 30, "each recipient asked once");
  assert.equal(lines.filter((l) => l.line.startsWith("MAIL")).length, 3, "one transaction per connection");
  assert.equal(lines.filter((l) => l.line.startsWith("RSET")).length, 0);
  // A share of ten taken up front would hold the slow connection for ten replies (1.5 s).
  const slow = rcpts(lines, 1).length;
  assert.ok(slow <= 4, `the slow connection asked ${slow} recipients`);
  assert.ok(ms < 1200, `took ${Math.round(ms)} ms`);
});

test("bulk with PIPELINING: recipients that arrive while a transaction's replies are read join it before its last reply", {
  skip,
}, async (t) => {
  const { host, lines } = await startPeer(t, { pipelining: true, delayOf: () => 50 });
  const { probe } = bulkProber(t, 1);
  const first = Array.from({ length: 12 }, (_, i) => `ok${i}@d.fr`);
  const firstResults = Promise.all(first.map((r) => probe(host, r)));
  // Wait until the first recipients are on the wire, then queue more while their replies come in.
  while (rcpts(lines).length < 12) await new Promise((resolve) => setTimeout(resolve, 5));
  const later = Array.from({ length: 6 }, (_, i) => `nobody${i}@d.fr`);
  const laterResults = Promise.all(later.map((r) => probe(host, r)));
  const results = [...(await firstResults), ...(await laterResults)];
  assert.deepEqual(categories(results), [...first.map(() => "accepted"), ...later.map(() => "mailbox_not_found")]);
  const sent = rcpts(lines);
  assert.equal(sent.length, 18);
  assert.equal(lines.filter((l) => l.line.startsWith("MAIL")).length, 1, "the later recipients joined the transaction");
  // The server was not left idle between the two groups: the 13th line came before the 12th was answered.
  const lastOfFirst = sent[11]!;
  const firstOfLater = sent[12]!;
  assert.ok(lastOfFirst.repliedAt !== undefined);
  assert.ok(
    firstOfLater.at < lastOfFirst.repliedAt!,
    `the later recipients came ${Math.round(firstOfLater.at - lastOfFirst.repliedAt!)} ms after the last reply`,
  );
});
