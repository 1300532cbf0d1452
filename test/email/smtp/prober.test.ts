import assert from "node:assert/strict";
import { test } from "node:test";
import { silentLogger } from "../../../src/log.ts";
import { parseCidr } from "../../../src/email/net/cidr.ts";
import { createSmtpPool } from "../../../src/email/smtp/pool.ts";
import { createSmtpProber, type ProbeOptions } from "../../../src/email/smtp/prober.ts";
import type { MxHost } from "../../../src/email/types.ts";
import { createFakeDialer, type Responder } from "../fake_dialer.ts";

const HOSTS: MxHost[] = [{ exchange: "mx.d.fr", priority: 10, addresses: ["93.184.216.10"] }];

function setup(respond: Responder, options: { banner?: string; maxPerHost?: number } = {}) {
  const dialer = createFakeDialer({ respond, banner: options.banner });
  const pool = createSmtpPool({ maxPerHost: options.maxPerHost ?? 2 });
  const prober = createSmtpProber({
    dialer,
    pool,
    port: 25,
    heloName: "probe.example",
    mailFrom: "verify@probe.example",
    probeTimeoutMs: 1000,
    allow: [],
    log: silentLogger,
  });
  return { dialer, pool, prober };
}

const ok: Responder = (line) =>
  line.startsWith("RCPT") && line.includes("nobody") ? "550 5.1.1 User unknown" : "250 ok";
const opts = (extra: Partial<ProbeOptions> = {}): ProbeOptions => ({
  signal: new AbortController().signal,
  reuse: false,
  utf8: false,
  ...extra,
});

test("probe() speaks EHLO, MAIL FROM, RCPT TO and QUIT in that order", async () => {
  const { dialer, prober } = setup(ok);
  const { outcome } = await prober.probe(HOSTS, "jane@d.fr", opts());
  assert.equal(outcome.kind === "reply" && outcome.category, "accepted");
  await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(dialer.connections[0]!.commands, [
    "EHLO probe.example",
    "MAIL FROM:<verify@probe.example>",
    "RCPT TO:<jane@d.fr>",
    "QUIT",
  ]);
});

test("probe() falls back to HELO when EHLO is refused", async () => {
  const { dialer, prober } = setup((line) =>
    line.startsWith("EHLO") ? "502 5.5.1 Command not implemented" : "250 ok",
  );
  const { outcome } = await prober.probe(HOSTS, "jane@d.fr", opts());
  assert.equal(outcome.kind === "reply" && outcome.category, "accepted");
  assert.deepEqual(dialer.connections[0]!.commands.slice(0, 2), ["EHLO probe.example", "HELO probe.example"]);
});

test("probe() does not send a UTF-8 recipient to a server without SMTPUTF8", async () => {
  const { dialer, prober } = setup(ok);
  const { outcome } = await prober.probe(HOSTS, "josé@d.fr", opts({ utf8: true }));
  assert.deepEqual(outcome, { kind: "unavailable", why: "no SMTPUTF8" });
  assert.ok(!dialer.connections[0]!.commands.some((c) => c.startsWith("RCPT")));
});

test("probe() sends MAIL FROM with SMTPUTF8 to a server that offers it", async () => {
  const { dialer, prober } = setup((line) => (line.startsWith("EHLO") ? "250-mx\n250 SMTPUTF8" : "250 ok"));
  const { outcome } = await prober.probe(HOSTS, "josé@d.fr", opts({ utf8: true }));
  assert.equal(outcome.kind === "reply" && outcome.category, "accepted");
  assert.ok(dialer.connections[0]!.commands.includes("MAIL FROM:<verify@probe.example> SMTPUTF8"));
});

test("probe() tries the next MX host when the first refuses at the banner", async () => {
  const hosts: MxHost[] = [
    { exchange: "mx1.d.fr", priority: 10, addresses: ["93.184.216.1"] },
    { exchange: "mx2.d.fr", priority: 20, addresses: ["93.184.216.2"] },
  ];
  const dialer = createFakeDialer({ respond: ok, refuse: (t) => t.host === "mx1.d.fr" });
  const prober = createSmtpProber({
    dialer,
    pool: createSmtpPool({ maxPerHost: 1 }),
    port: 25,
    heloName: "h",
    mailFrom: "f@h.example",
    probeTimeoutMs: 1000,
    allow: [],
    log: silentLogger,
  });
  const { outcome } = await prober.probe(hosts, "jane@d.fr", opts());
  assert.equal(outcome.kind === "reply" && outcome.host, "mx2.d.fr");
});

test("probe() refuses an MX host on a private address unless its range is allowed", async () => {
  const hosts: MxHost[] = [{ exchange: "mx.d.fr", priority: 10, addresses: ["10.0.0.5"] }];
  const { dialer, prober } = setup(ok);
  assert.deepEqual((await prober.probe(hosts, "jane@d.fr", opts())).outcome, {
    kind: "unavailable",
    why: "target refused",
  });
  assert.equal(dialer.connections.length, 0);
  const allowed = createSmtpProber({
    dialer,
    pool: createSmtpPool({ maxPerHost: 1 }),
    port: 25,
    heloName: "h",
    mailFrom: "f@h.example",
    probeTimeoutMs: 1000,
    allow: [parseCidr("10.0.0.0/8")],
    log: silentLogger,
  });
  assert.equal((await allowed.probe(hosts, "jane@d.fr", opts())).outcome.kind, "reply");
});

test("probe() reuses an idle connection when reuse is on: the next recipient joins its open transaction", async () => {
  const { dialer, prober, pool } = setup(ok, { maxPerHost: 1 });
  await prober.probe(HOSTS, "a@d.fr", opts({ reuse: true }));
  await prober.probe(HOSTS, "b@d.fr", opts({ reuse: true }));
  assert.equal(dialer.connections.length, 1);
  assert.deepEqual(dialer.connections[0]!.commands.slice(3), ["RCPT TO:<b@d.fr>"], "no RSET, no new MAIL FROM");
  await pool.drain();
});

// A reused connection that will not take the next address is given up for a fresh one, whatever the refusal. The
// second recipient has a UTF-8 local part where RSET matters: it cannot join a transaction opened without SMTPUTF8.
const REUSE_REFUSALS: Array<[string, Responder, { utf8: boolean }]> = [
  [
    "the server refuses RSET",
    (line) => (line.startsWith("EHLO") ? "250 SMTPUTF8" : line === "RSET" ? "502 5.5.1 no" : "250 ok"),
    { utf8: true },
  ],
  [
    "a reused one refuses more recipients",
    (line, conn) =>
      line.startsWith("RCPT") && conn.commands.filter((c) => c.startsWith("RCPT")).length > 1
        ? "452 4.5.3 Error: too many recipients"
        : "250 ok",
    { utf8: false },
  ],
];
for (const [when, answer, second] of REUSE_REFUSALS) {
  test(`probe() opens a new connection when ${when}`, async () => {
    const { dialer, prober, pool } = setup(answer, { maxPerHost: 1 });
    await prober.probe(HOSTS, "a@d.fr", opts({ reuse: true }));
    const { outcome } = await prober.probe(HOSTS, "b@d.fr", opts({ reuse: true, ...second }));
    assert.equal(outcome.kind === "reply" && outcome.category, "accepted");
    assert.equal(dialer.connections.length, 2);
    await pool.drain();
  });
}

test("probe() asks the catch-all recipient on the accepting connection after RSET and returns both answers", async () => {
  const { dialer, prober } = setup(ok);
  const { outcome, catchAll } = await prober.probe(HOSTS, "jane@d.fr", opts({ catchAllRecipient: "nobody@d.fr" }));
  assert.equal(outcome.kind === "reply" && outcome.category, "accepted");
  assert.equal(catchAll?.kind === "reply" && catchAll.category, "mailbox_not_found");
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(dialer.connections.length, 1);
  assert.deepEqual(dialer.connections[0]!.commands.slice(2), [
    "RCPT TO:<jane@d.fr>",
    "RSET",
    "MAIL FROM:<verify@probe.example>",
    "RCPT TO:<nobody@d.fr>",
    "QUIT",
  ]);
});

test("probe() asks the catch-all recipient on a fresh connection when the server refuses RSET", async () => {
  const { dialer, prober } = setup((line) => (line === "RSET" ? "502 5.5.1 no" : ok(line, { id: 0, commands: [] })));
  const { catchAll } = await prober.probe(HOSTS, "jane@d.fr", opts({ catchAllRecipient: "nobody@d.fr" }));
  assert.equal(catchAll?.kind === "reply" && catchAll.category, "mailbox_not_found");
  assert.equal(dialer.connections.length, 2);
  assert.ok(dialer.connections[1]!.commands.includes("RCPT TO:<nobody@d.fr>"));
});

test("probe() does not ask the catch-all recipient when the real one is refused", async () => {
  const { dialer, prober } = setup(ok);
  const { outcome, catchAll } = await prober.probe(HOSTS, "nobody@d.fr", opts({ catchAllRecipient: "random@d.fr" }));
  assert.equal(outcome.kind === "reply" && outcome.category, "mailbox_not_found");
  assert.equal(catchAll, null);
  assert.ok(!dialer.connections.some((c) => c.commands.includes("RCPT TO:<random@d.fr>")));
});

test("the pool never opens more than maxPerHost connections to one MX host", async () => {
  let open = 0;
  let max = 0;
  const { prober, pool } = setup(
    (line) => {
      if (line.startsWith("EHLO")) max = Math.max(max, ++open);
      if (line === "QUIT") open--;
      return "250 ok";
    },
    { maxPerHost: 2 },
  );
  await Promise.all(Array.from({ length: 8 }, (_, i) => prober.probe(HOSTS, `u${i}@d.fr`, opts())));
  assert.ok(max <= 2, `max ${max}`);
  await pool.drain();
});
