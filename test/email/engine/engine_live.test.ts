// The engine over real sockets: dnsmasq for DNS and smtp-server peers on 127.0.3.x:25 (this file's range).
// Every reason of the spec's Reason enumeration is produced here at least once.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { EmailEngine, EmailResult } from "../../../src/email/engine.ts";
import type { EmailReason, EmailVerification } from "../../../src/email/types.ts";
import { REASON_VERDICT } from "../../../src/email/vocabulary.ts";
import { createLogger } from "../../../src/log.ts";
import {
  livePeersSkip,
  REPLIES,
  startDnsmasq,
  startSilentDns,
  startSmtpPeer,
  type Dnsmasq,
  type SmtpPeer,
} from "../peers.ts";
import { liveEngines } from "./live_engines.ts";

const skip = livePeersSkip("live email tests (127.0.3.x)");
const Z = "vrai-peers.net";
const IP = {
  ok: "127.0.3.10",
  catchAll: "127.0.3.11",
  silent: "127.0.3.12",
  drop: "127.0.3.13",
  closed: "127.0.3.14",
  blocked: "127.0.3.15",
  bulk: "127.0.3.16",
  bulkAll: "127.0.3.17",
};

let dns: Dnsmasq;
const peers: Record<string, SmtpPeer> = {};
const stops: Array<() => Promise<void>> = [];

const { engine, closeAll } = liveEngines(() => dns.server, { probeTimeoutMs: 800 });

/** Reasons seen in answers over real sockets (checked against the spec's enumeration at the end). */
const produced = new Set<EmailReason>();

function expectAnswer(result: EmailVerification, expected: { verdict: string; reasons: EmailReason[] }) {
  const { verdict, reasons } = expected;
  for (const reason of result.reasons) produced.add(reason);
  assert.equal(result.verdict, verdict, JSON.stringify(result));
  assert.deepEqual(result.reasons, reasons, JSON.stringify(result));
}

before(async () => {
  if (skip) return;
  const mx = (name: string, ip: string, priority = 10, exchange = `mx.${name}.${Z}`) => ({
    domain: `${name}.${Z}`,
    exchange,
    priority,
    ip,
  });
  const records = [
    mx("ok", IP.ok),
    mx("catchall", IP.catchAll),
    mx("silent", IP.silent),
    mx("drop", IP.drop),
    mx("closed", IP.closed),
    mx("blocked", IP.blocked),
    mx("bulk", IP.bulk),
    mx("bulkall", IP.bulkAll),
    mx("backup", IP.closed, 10, `mx1.backup.${Z}`),
    mx("backup", IP.ok, 20, `mx2.backup.${Z}`),
    mx("private", "10.255.255.1"),
  ];
  dns = await startDnsmasq({
    zones: [Z],
    mx: records.map(({ domain, exchange, priority }) => ({ domain, exchange, priority })),
    hosts: [
      ...records.map((r) => ({ name: r.exchange, address: r.ip })),
      { name: `nomx.${Z}`, address: "127.0.3.200" },
    ],
    nullMx: [`nullmx.${Z}`],
  });
  stops.push(() => dns.stop());
  peers.ok = await startSmtpPeer({
    host: IP.ok,
    mailboxes: ["alice", "info", "josé"],
    onRcpt: (address, peer) => {
      const local = address.slice(0, address.indexOf("@"));
      if (local === "grey") return peer.seen(address) === 1 ? REPLIES.greylisted : null;
      if (local === "full4") return REPLIES.full4xx;
      if (local === "full5") return REPLIES.full5xx;
      return undefined;
    },
  });
  peers.catchAll = await startSmtpPeer({ host: IP.catchAll, mailboxes: ["*"] });
  peers.silent = await startSmtpPeer({ host: IP.silent, banner: "silent" });
  peers.drop = await startSmtpPeer({ host: IP.drop, banner: "drop" });
  peers.blocked = await startSmtpPeer({ host: IP.blocked, banner: REPLIES.spamhausBlock });
  peers.bulk = await startSmtpPeer({
    host: IP.bulk,
    mailboxes: Array.from({ length: 40 }, (_, i) => `u${i}`),
    onRcpt: (address, peer) =>
      address.startsWith("grey") ? (peer.seen(address) === 1 ? REPLIES.greylisted : null) : undefined,
  });
  peers.bulkAll = await startSmtpPeer({ host: IP.bulkAll, mailboxes: ["*"] });
  for (const p of Object.values(peers)) stops.push(() => p.stop());
});

after(async () => {
  await closeAll();
  await Promise.all(stops.map((stop) => stop()));
});

describe("verify() over real sockets", { skip }, () => {
  test("verify() answers deliverable with all eight checks pass for an existing mailbox", async () => {
    const r = await engine().verify(`alice@ok.${Z}`);
    expectAnswer(r, { verdict: "deliverable", reasons: [] });
    assert.ok(
      Object.values(r.checks).every((s) => s === "pass"),
      JSON.stringify(r.checks),
    );
    assert.deepEqual(r.flags, { disposable: false, role: false, catch_all: false });
    assert.equal(r.suggestion, null);
    assert.ok(Number.isInteger(r.duration_ms));
  });

  test("verify() delivers a UTF-8 local part through SMTPUTF8", async () => {
    expectAnswer(await engine().verify(`josé@ok.${Z}`), { verdict: "deliverable", reasons: [] });
  });

  test("verify() answers undeliverable mailbox_not_found for an unknown user (550 5.1.1)", async () => {
    const r = await engine().verify(`zoe.martin@ok.${Z}`);
    expectAnswer(r, { verdict: "undeliverable", reasons: ["mailbox_not_found"] });
    assert.equal(r.checks.smtp, "fail");
    assert.equal(r.checks.catch_all, "skipped");
    assert.equal(r.flags.catch_all, null);
  });

  test("verify() answers unknown greylisted on a 450, then deliverable once the server accepts", async () => {
    const e = engine();
    const first = await e.verify(`grey@ok.${Z}`);
    expectAnswer(first, { verdict: "unknown", reasons: ["greylisted"] });
    assert.equal(first.checks.smtp, "inconclusive");
    assert.equal("retryAfterMs" in first, false);
    expectAnswer(await e.verify(`grey@ok.${Z}`), { verdict: "deliverable", reasons: [] });
  });

  test("verify() answers risky mailbox_full for 452 4.2.2 and for 552 5.2.2", async () => {
    const e = engine();
    for (const local of ["full4", "full5"]) {
      const r = await e.verify(`${local}@ok.${Z}`);
      expectAnswer(r, { verdict: "risky", reasons: ["mailbox_full"] });
      assert.equal(r.checks.smtp, "fail");
    }
  });

  test("verify() answers unknown catch_all_domain when the server accepts a random recipient too", async () => {
    const r = await engine().verify(`anyone@catchall.${Z}`);
    expectAnswer(r, { verdict: "unknown", reasons: ["catch_all_domain"] });
    assert.equal(r.checks.smtp, "pass");
    assert.equal(r.checks.catch_all, "fail");
    assert.equal(r.flags.catch_all, true);
  });

  test("verify() answers risky role_address for an existing role mailbox", async () => {
    const r = await engine().verify(`info@ok.${Z}`);
    expectAnswer(r, { verdict: "risky", reasons: ["role_address"] });
    assert.equal(r.checks.role, "fail");
    assert.equal(r.flags.role, true);
    assert.equal(r.checks.catch_all, "pass");
  });

  test("verify() answers unknown probe_timeout when the MX never sends its banner", async () => {
    const r = await engine().verify(`jane@silent.${Z}`);
    expectAnswer(r, { verdict: "unknown", reasons: ["probe_timeout"] });
    assert.equal(r.checks.smtp, "inconclusive");
  });

  test("verify() answers unknown probe_unavailable when the MX drops the connection", async () => {
    expectAnswer(await engine().verify(`jane@drop.${Z}`), { verdict: "unknown", reasons: ["probe_unavailable"] });
  });

  test("verify() answers unknown probe_unavailable when the MX port is closed", async () => {
    expectAnswer(await engine().verify(`jane@closed.${Z}`), { verdict: "unknown", reasons: ["probe_unavailable"] });
  });

  test("verify() answers probe_unavailable, never undeliverable, when the MX blocks our IP", async () => {
    const r = await engine().verify(`jane@blocked.${Z}`);
    expectAnswer(r, { verdict: "unknown", reasons: ["probe_unavailable"] });
    assert.equal(r.checks.smtp, "inconclusive");
  });

  test("verify() falls back to the next MX host when the preferred one is closed", async () => {
    expectAnswer(await engine().verify(`alice@backup.${Z}`), { verdict: "deliverable", reasons: [] });
  });

  test("verify() answers no_mx_record for a null MX and for a domain with only an A record", async () => {
    const e = engine();
    for (const domain of [`nullmx.${Z}`, `nomx.${Z}`]) {
      const r = await e.verify(`jane@${domain}`);
      expectAnswer(r, { verdict: "undeliverable", reasons: ["no_mx_record"] });
      assert.equal(r.checks.mx, "fail");
      assert.equal(r.checks.smtp, "skipped");
    }
  });

  test("verify() answers domain_does_not_resolve for a name that does not exist", async () => {
    expectAnswer(await engine().verify(`jane@nowhere.${Z}`), {
      verdict: "undeliverable",
      reasons: ["domain_does_not_resolve"],
    });
  });

  test("verify() answers probe_timeout when the DNS server never answers", async () => {
    const silent = await startSilentDns("127.0.3.53");
    stops.push(() => silent.stop());
    const r = await engine({ dnsServers: [silent.server], probeTimeoutMs: 300 }).verify(`jane@ok.${Z}`);
    expectAnswer(r, { verdict: "unknown", reasons: ["probe_timeout"] });
    assert.equal(r.checks.mx, "inconclusive");
  });

  test("verify() answers probe_unavailable when the DNS server refuses", async () => {
    const r = await engine({ dnsServers: ["127.0.3.54:9"] }).verify(`jane@ok.${Z}`);
    expectAnswer(r, { verdict: "unknown", reasons: ["probe_unavailable"] });
    assert.equal(r.checks.mx, "inconclusive");
  });

  test("verify() refuses a loopback MX when probeAllowCidrs is empty, without connecting", async () => {
    const before = peers.ok!.connections;
    const r = await engine({ probeAllowCidrs: [] }).verify(`alice@ok.${Z}`);
    expectAnswer(r, { verdict: "unknown", reasons: ["probe_unavailable"] });
    assert.equal(peers.ok!.connections, before);
  });

  test("verify() refuses a private MX address even when loopback is allowed", async () => {
    expectAnswer(await engine().verify(`jane@private.${Z}`), { verdict: "unknown", reasons: ["probe_unavailable"] });
  });

  test("verify() answers within emailDeadlineMs with probe_timeout", async () => {
    const started = Date.now();
    const r = await engine({ emailDeadlineMs: 300, probeTimeoutMs: 5000 }).verify(`jane@silent.${Z}`);
    expectAnswer(r, { verdict: "unknown", reasons: ["probe_timeout"] });
    assert.ok(Date.now() - started < 1500, `took ${Date.now() - started} ms`);
  });

  test("verify() rejects with the caller's reason when the caller aborts", async () => {
    const controller = new AbortController();
    const pending = engine({ probeTimeoutMs: 5000, emailDeadlineMs: 5000 }).verify(`jane@silent.${Z}`, {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(new Error("client went away")), 100);
    await assert.rejects(pending, /client went away/);
  });

  const settled: Array<[string, string, EmailReason, string | null]> = [
    ["not an address", "not-an-address", "invalid_syntax", null],
    ["a local part over 64 octets", `${"a".repeat(65)}@ok.${Z}`, "local_part_too_long", null],
    [
      "a domain over 253 characters",
      `jane@${Array.from({ length: 5 }, () => "a".repeat(60)).join(".")}.net`,
      "domain_too_long",
      null,
    ],
    ["a Gmail username under 6 characters", "jo@gmail.com", "provider_rule_violation", null],
    ["a slip of gmail.com", "jane.doe@gmial.com", "domain_typo", "jane.doe@gmail.com"],
  ];
  for (const [what, input, reason, suggestion] of settled) {
    test(`verify() answers undeliverable ${reason} for ${what} without a DNS query`, async () => {
      let queries = 0;
      const counting = {
        resolveMx: async () => {
          queries++;
          return [];
        },
        resolveAddresses: async () => {
          queries++;
          return [];
        },
      };
      const r = await engine({}, { resolver: counting }).verify(input);
      expectAnswer(r, { verdict: "undeliverable", reasons: [reason] });
      assert.equal(r.suggestion, suggestion);
      assert.equal(r.checks.mx, "skipped");
      assert.deepEqual(r.flags, { disposable: null, role: null, catch_all: null });
      assert.equal(queries, 0);
    });
  }

  test("verify() answers risky disposable_domain without probing", async () => {
    const r = await engine().verify("jane@mailinator.com");
    expectAnswer(r, { verdict: "risky", reasons: ["disposable_domain"] });
    assert.equal(r.checks.disposable, "fail");
    assert.equal(r.flags.disposable, true);
    assert.equal(r.checks.role, "skipped");
    assert.equal(r.flags.role, null);
  });

  test("verify() never logs a full email address", async () => {
    const lines: string[] = [];
    const log = createLogger({ level: "debug", write: (l) => lines.push(l) });
    const e = engine({}, { log });
    await e.verify(`alice@ok.${Z}`);
    await e.verify(`jane@private.${Z}`);
    assert.ok(lines.length > 0);
    assert.ok(!lines.some((l) => /alice@|jane@/.test(l)), lines.join(""));
  });
});

describe("verifyMany() over real sockets", { skip }, () => {
  async function many(e: EmailEngine, emails: string[], reuseConnections?: boolean): Promise<EmailResult[]> {
    const results: EmailResult[] = [];
    await e.verifyMany(emails, {
      reuseConnections,
      onResult: (r) => {
        results.push(r);
      },
    });
    return results;
  }

  test("verifyMany() reuses one connection for several recipients of the same MX", async () => {
    const before = peers.bulk!.connections;
    const e = engine({}, { maxConnectionsPerMx: 2 });
    const emails = Array.from({ length: 12 }, (_, i) => `u${i}@bulk.${Z}`);
    const results = await many(e, emails);
    assert.equal(results.length, 12);
    assert.ok(
      results.every((r) => r.verdict === "deliverable"),
      JSON.stringify(results.filter((r) => r.verdict !== "deliverable")),
    );
    assert.ok(peers.bulk!.connections - before <= 2, `opened ${peers.bulk!.connections - before}`);
    assert.equal(e.stats().smtpConnections, peers.bulk!.connections - before);
  });

  test("verifyMany() opens a connection per address when reuseConnections is false", async () => {
    const before = peers.bulk!.connections;
    const results = await many(
      engine({}, { maxConnectionsPerMx: 2 }),
      Array.from({ length: 6 }, (_, i) => `u${i}@bulk.${Z}`),
      false,
    );
    assert.equal(results.length, 6);
    assert.ok(peers.bulk!.connections - before >= 6, `opened ${peers.bulk!.connections - before}`);
  });

  test("verifyMany() keeps at most maxConnectionsPerMx connections open to one MX", async () => {
    const peer = await startSmtpPeer({ host: "127.0.3.18", mailboxes: ["*"] });
    stops.push(() => peer.stop());
    // Ten domains sharing one MX host: the limit is per MX host, not per domain.
    const resolver = {
      resolveMx: async () => [{ exchange: "mx.limit.example", priority: 10 }],
      resolveAddresses: async () => ["127.0.3.18"],
    };
    const limited = engine({}, { maxConnectionsPerMx: 2, concurrency: 10, resolver });
    await many(
      limited,
      Array.from({ length: 10 }, (_, i) => `u${i}@limit-${i}.fr`),
      false,
    );
    assert.ok(peer.connections >= 10);
    assert.ok(peer.maxConcurrent <= 2, `max concurrent ${peer.maxConcurrent}`);
  });

  test("verifyMany() probes a catch-all domain once for the whole chunk", async () => {
    let n = 0;
    const e = engine({}, { randomLocal: () => `random-probe-${n++}` });
    const results = await many(
      e,
      Array.from({ length: 8 }, (_, i) => `person${i}@bulkall.${Z}`),
    );
    assert.ok(
      results.every((r) => r.verdict === "unknown" && r.reasons.includes("catch_all_domain")),
      JSON.stringify(results),
    );
    assert.equal(peers.bulkAll!.recipients.filter((r) => r.startsWith("random-probe-")).length, 1);
  });

  test("verifyMany() returns greylisted results with the server's retry delay", async () => {
    const results = await many(engine(), [`grey1@bulk.${Z}`, `u1@bulk.${Z}`]);
    const grey = results.find((r) => r.email.startsWith("grey1"))!;
    expectAnswer(grey, { verdict: "unknown", reasons: ["greylisted"] });
    assert.equal(grey.retryAfterMs, 120_000);
    assert.equal(results.find((r) => r.email.startsWith("u1"))!.retryAfterMs, undefined);
  });
});

test("every reason of the spec's Reason enumeration was produced by a test of this file", { skip }, () => {
  const all = Object.keys(REASON_VERDICT) as EmailReason[];
  assert.deepEqual(
    all.filter((r) => !produced.has(r)),
    [],
  );
});
