// Multi-recipient SMTP transactions in bulk, against loopback peers on 127.0.13.x:25: recipients of one MX
// share one MAIL FROM, RCPT TO are pipelined when the server offers PIPELINING, RSET comes only between transactions,
// the catch-all probe rides in the same transaction, and a 452 or a dropped connection sends the rest on.
// Run inside a private network namespace (see README): the peers bind port 25.
import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { silentLogger } from "../../../src/log.ts";
import { parseCidr } from "../../../src/email/net/cidr.ts";
import { createNetDialer } from "../../../src/email/smtp/dialer.ts";
import { createSmtpPool } from "../../../src/email/smtp/pool.ts";
import { createSmtpProber, type RecipientProbe } from "../../../src/email/smtp/prober.ts";
import type { MxHost } from "../../../src/email/types.ts";
import { startFastSmtpPeer, type FastSmtpPeer, type RawSmtpPeerOptions } from "../peers.ts";

let nextHost = 10;

async function setup(
  t: TestContext,
  peerOptions: Omit<RawSmtpPeerOptions, "host" | "mailboxes">,
  options: { connections?: number; probeTimeoutMs?: number; recipientsPerTransaction?: number } = {},
) {
  const address = `127.0.13.${nextHost++}`;
  const peer = await startFastSmtpPeer({
    host: address,
    mailboxes: (local) => local.startsWith("ok"),
    ...peerOptions,
  });
  const pool = createSmtpPool({ maxPerHost: options.connections ?? 1 });
  const prober = createSmtpProber({
    dialer: createNetDialer({ idleTimeoutMs: 5000 }),
    pool,
    port: 25,
    heloName: "probe.example",
    mailFrom: "verify@probe.example",
    probeTimeoutMs: options.probeTimeoutMs ?? 2000,
    allow: [parseCidr("127.0.0.0/8")],
    log: silentLogger,
    connectionsPerHost: options.connections ?? 1,
    recipientsPerTransaction: options.recipientsPerTransaction,
  });
  t.after(async () => {
    await pool.drain();
    await prober.settled();
    await peer.stop();
  });
  const hosts: MxHost[] = [{ exchange: `mx.${address}`, priority: 10, addresses: [address] }];
  const signal = new AbortController().signal;
  /** Probes every recipient at once, as a bulk chunk does; the first asks the catch-all recipient too. */
  const probeAll = (recipients: string[], catchAll?: string) =>
    Promise.all(
      recipients.map((r, i) =>
        prober.probe(hosts, r, {
          signal,
          reuse: true,
          utf8: false,
          skipFailingHosts: true,
          catchAllRecipient: i === 0 ? (catchAll ?? null) : null,
        }),
      ),
    );
  return { peer, prober, probeAll, hosts };
}

const recipients = (n: number) =>
  Array.from({ length: n }, (_, i) => (i % 3 === 2 ? `nobody${i}@d.fr` : `ok${i}@d.fr`));

function categories(results: RecipientProbe[]): string[] {
  return results.map((r) => (r.outcome.kind === "reply" ? r.outcome.category : r.outcome.kind));
}

const expected = (n: number) => recipients(n).map((r) => (r.startsWith("ok") ? "accepted" : "mailbox_not_found"));

const verbs = (peer: FastSmtpPeer) => peer.lines.map((l) => l.line.slice(0, 4).toUpperCase());
const count = (peer: FastSmtpPeer, verb: string) => verbs(peer).filter((v) => v === verb).length;

test("probe() in bulk asks a host's waiting recipients in one transaction: one MAIL FROM, no RSET, no PIPELINING", async (t) => {
  const { peer, probeAll } = await setup(t, { pipelining: false, delayMs: 5 });
  const results = await probeAll(recipients(20));
  assert.deepEqual(categories(results), expected(20));
  assert.equal(peer.connections, 1);
  assert.equal(count(peer, "MAIL"), 1);
  assert.equal(count(peer, "RCPT"), 20);
  assert.equal(count(peer, "RSET"), 0, "RSET only between transactions");
  // Without PIPELINING each RCPT waits for the previous reply (5 ms at least).
  const rcpts = peer.lines.filter((l) => l.line.startsWith("RCPT"));
  for (let i = 1; i < rcpts.length; i++) assert.ok(rcpts[i]!.at - rcpts[i - 1]!.at >= 4, `RCPT ${i} waited`);
});

test("probe() in bulk: recipients that come after a transaction's replies join it, with no RSET and no new MAIL FROM", async (t) => {
  for (const pipelining of [false, true]) {
    const { peer, probeAll } = await setup(t, { pipelining, delayMs: 5 });
    // Two chunks one after the other, as a job's claims come: the second finds the session idle, its transaction open.
    assert.deepEqual(categories(await probeAll(recipients(6))), expected(6));
    assert.deepEqual(categories(await probeAll(recipients(9).slice(6))), expected(9).slice(6));
    assert.equal(peer.connections, 1, `pipelining=${pipelining}`);
    assert.equal(count(peer, "MAIL"), 1);
    assert.equal(count(peer, "RSET"), 0);
    assert.equal(count(peer, "RCPT"), 9);
  }
});

test("probe() in bulk: a transaction with no room left for the next recipients is RSET and a new one takes them", async (t) => {
  const { peer, probeAll } = await setup(t, { pipelining: true }, { recipientsPerTransaction: 6 });
  assert.deepEqual(categories(await probeAll(recipients(4))), expected(4));
  // Two more fit in the open transaction (6 at most), the last two go in a new one.
  assert.deepEqual(categories(await probeAll(recipients(8).slice(4))), expected(8).slice(4));
  assert.deepEqual(verbs(peer), ["EHLO", "MAIL", ...Array(6).fill("RCPT"), "RSET", "MAIL", "RCPT", "RCPT"]);
});

test("probe() in bulk: a UTF-8 recipient does not join a transaction opened without SMTPUTF8", async (t) => {
  const { peer, probeAll, prober, hosts } = await setup(t, { pipelining: true });
  await probeAll(recipients(2));
  const result = await prober.probe(hosts, "ok\u00e9@d.fr", {
    signal: new AbortController().signal,
    reuse: true,
    utf8: true,
  });
  assert.equal(result.outcome.kind === "reply" && result.outcome.category, "accepted");
  assert.deepEqual(verbs(peer), ["EHLO", "MAIL", "RCPT", "RCPT", "RSET", "MAIL", "RCPT"]);
  assert.match(peer.lines.filter((l) => l.line.startsWith("MAIL")).at(-1)!.line, /SMTPUTF8$/);
});

test("probe() in bulk pipelines RCPT TO when the server offers PIPELINING (RFC 2920)", async (t) => {
  const { peer, probeAll } = await setup(t, { pipelining: true, delayMs: 50 });
  const started = performance.now();
  const results = await probeAll(recipients(20));
  const seconds = (performance.now() - started) / 1000;
  assert.deepEqual(categories(results), expected(20));
  assert.equal(count(peer, "MAIL"), 1);
  const rcpts = peer.lines.filter((l) => l.line.startsWith("RCPT"));
  assert.equal(rcpts.length, 20);
  // The server never waited for a line: each RCPT TO came before the reply to the one before it left.
  const late = rcpts.slice(1).filter((line, k) => line.at >= rcpts[k]!.repliedAt!);
  assert.deepEqual(
    late.map((l) => l.line),
    [],
    "RCPT TO lines that came only once the previous one was answered",
  );
  assert.ok(seconds < 3, `took ${seconds}s`);
});

for (const pipelining of [false, true]) {
  test(`a single call gets the connection a bulk transaction holds at the next recipient (pipelining=${pipelining})`, async (t) => {
    // One connection allowed, and a server that takes 100 ms a reply: 30 bulk recipients hold it for 3 s.
    const { peer, probeAll, prober, hosts } = await setup(t, { pipelining, delayMs: 100 });
    const bulk = probeAll(recipients(30));
    const rcptLines = () => peer.lines.filter((l) => l.line.startsWith("RCPT"));
    while (rcptLines().length < 6) await new Promise((resolve) => setTimeout(resolve, 5));
    const askedAt = rcptLines().length;
    const single = await prober.probe(hosts, "okSingle@d.fr", {
      signal: new AbortController().signal,
      reuse: false,
      utf8: false,
      priority: "interactive",
    });
    assert.equal(categories([single])[0], "accepted");
    const lines = rcptLines().map((l) => l.line);
    const at = lines.indexOf("RCPT TO:<okSingle@d.fr>");
    const bulkBefore = at - askedAt;
    // Without PIPELINING the RCPT in flight is answered first; with it, the few lines already out (the server's pace
    // learnt: 100 ms a reply, so 3 lines ahead at most).
    assert.ok(bulkBefore <= (pipelining ? 4 : 1), `${bulkBefore} bulk RCPT TO lines went before the single call's`);
    assert.deepEqual(categories(await bulk), expected(30), "every bulk recipient answered as well");
    assert.equal(peer.maxConcurrent, 1, "never more connections than the pool allows");
    assert.equal(peer.connections, 1, "the session changed hands, and back, without a new connection");
  });
}

test("probe() in bulk asks the catch-all recipient in the same transaction, right after its owner", async (t) => {
  for (const pipelining of [false, true]) {
    const { peer, probeAll } = await setup(t, { pipelining });
    const results = await probeAll(recipients(5), "vrai-random@d.fr");
    assert.deepEqual(categories(results), expected(5));
    assert.equal(results[0]!.catchAll?.kind === "reply" && results[0]!.catchAll.category, "mailbox_not_found");
    for (const r of results.slice(1)) assert.equal(r.catchAll, null);
    assert.equal(count(peer, "MAIL"), 1, `pipelining=${pipelining}`);
    const rcpts = peer.lines.filter((l) => l.line.startsWith("RCPT")).map((l) => l.line);
    assert.deepEqual(rcpts.slice(0, 2), ["RCPT TO:<ok0@d.fr>", "RCPT TO:<vrai-random@d.fr>"]);
  }
});

test("probe() in bulk: after 452 too many recipients the rest goes in the next transaction, with or without PIPELINING", async (t) => {
  for (const pipelining of [false, true]) {
    const { peer, probeAll } = await setup(t, { pipelining, maxRecipients: 10 });
    const results = await probeAll(recipients(35));
    assert.deepEqual(categories(results), expected(35), `pipelining=${pipelining}`);
    assert.equal(peer.connections, 1, "the same connection serves the next transactions");
    assert.equal(count(peer, "MAIL"), 4, "10 + 10 + 10 + 5");
    assert.equal(count(peer, "RSET"), 3, "one RSET between two transactions");
    // Once the server said 452 after 10, it is asked 10 at a time: the 452 comes once (pipelined, for each line sent).
    const refused = peer.lines.filter((l) => l.line.startsWith("RCPT")).length - 35;
    assert.ok(refused <= (pipelining ? 25 : 1), `${refused} recipients refused`);
    assert.deepEqual(peer.recipients.sort(), recipients(35).sort(), "each recipient accepted into a transaction once");
  }
});

test("probe() in bulk: a connection dropped mid-transaction sends the unanswered recipients to a new one", async (t) => {
  for (const pipelining of [false, true]) {
    const { peer, probeAll } = await setup(t, { pipelining, dropAtRecipient: 6 });
    const results = await probeAll(recipients(15));
    assert.deepEqual(categories(results), expected(15), `pipelining=${pipelining}`);
    assert.equal(peer.connections, 2);
    const second = peer.lines.filter((l) => l.connection === 2 && l.line.startsWith("RCPT"));
    assert.equal(second.length, 10, "the 5 answered before the drop are not asked again");
  }
});

test("probe() in bulk shares a host's recipients over its connections; a single call keeps one dialogue each", async (t) => {
  const { peer, probeAll, prober, hosts } = await setup(t, { pipelining: true, delayMs: 20 }, { connections: 3 });
  const results = await probeAll(recipients(30));
  assert.deepEqual(categories(results), expected(30));
  assert.equal(peer.connections, 3);
  assert.equal(count(peer, "MAIL"), 3, "three transactions of ten, at once");
  const before = peer.connections;
  const single = await prober.probe(hosts, "ok1@d.fr", {
    signal: new AbortController().signal,
    reuse: false,
    utf8: false,
  });
  assert.equal(single.outcome.kind === "reply" && single.outcome.category, "accepted");
  assert.equal(peer.connections, before + 1, "a single call dials its own connection");
});

test("probe() in bulk: a recipient whose caller gives up leaves the others' transaction alone", async (t) => {
  const { peer, hosts, prober } = await setup(t, { pipelining: false, delayMs: 20 });
  const quitter = new AbortController();
  const stays = new AbortController().signal;
  const probes = recipients(6).map((r, i) =>
    prober.probe(hosts, r, { signal: i === 3 ? quitter.signal : stays, reuse: true, utf8: false }),
  );
  setTimeout(() => quitter.abort(new Error("gave up")), 30);
  const settled = await Promise.allSettled(probes);
  assert.equal(settled[3]!.status, "rejected");
  const kept = settled.filter((_s, i) => i !== 3).map((s) => (s as PromiseFulfilledResult<RecipientProbe>).value);
  assert.deepEqual(
    categories(kept),
    expected(6).filter((_, i) => i !== 3),
  );
  assert.equal(peer.connections, 1);
});
