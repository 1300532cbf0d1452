// Probes through a SOCKS5 proxy, per-MX routing rules and a bound source address, over real sockets: dnsmasq for DNS,
// SMTP peers on 127.0.12.x:25 (this file's range) and a small SOCKS5 proxy (../socks_proxy.ts) in front of them.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { loadConfig, type Config } from "../../../src/config.ts";
import { createEmailEngine } from "../../../src/email/engine.ts";
import type { EmailVerification } from "../../../src/email/types.ts";
import { createLogger } from "../../../src/log.ts";
import { startEchoSmtpPeer, type EchoSmtpPeer } from "../echo_peer.ts";
import { livePeersSkip, startDnsmasq, startSmtpPeer, type Dnsmasq, type SmtpPeer } from "../peers.ts";
import { liveEngines } from "./live_engines.ts";
import { startSocksProxy, type TestSocksProxy } from "../socks_proxy.ts";

const skip = livePeersSkip("live egress tests (127.0.12.x)");
const Z = "vrai-egress.net";
const IP = { ok: "127.0.12.10", any: "127.0.12.11", bulk: "127.0.12.12", echo: "127.0.12.13" };

let dns: Dnsmasq;
let ok: SmtpPeer;
let any: SmtpPeer;
let bulk: SmtpPeer;
let echo: EchoSmtpPeer;
let open: TestSocksProxy;
let guarded: TestSocksProxy;
let gssapi: TestSocksProxy;
const stops: Array<() => Promise<void>> = [];
let dir: string;

const { config, engine, closeAll } = liveEngines(() => dns.server, { probeTimeoutMs: 1500 });

function logged(): { lines: string[]; log: ReturnType<typeof createLogger> } {
  const lines: string[] = [];
  return { lines, log: createLogger({ write: (line) => lines.push(line) }) };
}

const answer = (r: EmailVerification) => [r.verdict, r.reasons];

before(async () => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), "vrai-egress-"));
  const names = { ok: `mx.ok.${Z}`, any: `mx.any.${Z}`, bulk: `mx.bulk.${Z}`, echo: `mx.echo.${Z}` };
  dns = await startDnsmasq({
    zones: [Z],
    mx: [
      { domain: `ok.${Z}`, exchange: names.ok, priority: 10 },
      { domain: `any.${Z}`, exchange: names.any, priority: 10 },
      { domain: `bulk.${Z}`, exchange: names.bulk, priority: 10 },
      { domain: `echo.${Z}`, exchange: names.echo, priority: 10 },
      { domain: `private.${Z}`, exchange: `mx.private.${Z}`, priority: 10 },
    ],
    hosts: [
      { name: names.ok, address: IP.ok },
      { name: names.any, address: IP.any },
      { name: names.bulk, address: IP.bulk },
      { name: names.echo, address: IP.echo },
      { name: `mx.private.${Z}`, address: "10.255.255.1" },
    ],
  });
  stops.push(() => dns.stop());
  ok = await startSmtpPeer({ host: IP.ok, mailboxes: ["jane", "john"] });
  any = await startSmtpPeer({ host: IP.any, mailboxes: ["*"] });
  bulk = await startSmtpPeer({ host: IP.bulk, mailboxes: Array.from({ length: 30 }, (_, i) => `u${i}`) });
  echo = await startEchoSmtpPeer({ host: IP.echo, mailboxes: ["jane"] });
  open = await startSocksProxy({ host: "127.0.12.1" });
  guarded = await startSocksProxy({ host: "127.0.12.2", auth: { user: "probe", pass: "s3cret:/@" } });
  gssapi = await startSocksProxy({ host: "127.0.12.3", forceMethod: 0x01 });
  for (const s of [ok, any, bulk, echo, open, guarded, gssapi]) stops.push(() => s.stop());
});

after(async () => {
  await closeAll();
  await Promise.all(stops.map((stop) => stop()));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const CASES: Array<[string, [string, string[]]]> = [
  [`jane@ok.${Z}`, ["deliverable", []]],
  [`ghost.user@ok.${Z}`, ["undeliverable", ["mailbox_not_found"]]],
  [`pat@any.${Z}`, ["unknown", ["catch_all_domain"]]],
];

describe("SMTP probes through a SOCKS5 proxy", { skip }, () => {
  for (const [label, proxy] of [
    ["without authentication", () => open],
    ["with username and password (RFC 1929)", () => guarded],
  ] as const) {
    test(`verify() gives the same verdicts through a proxy ${label} as direct, every connection through it`, async () => {
      const direct = engine();
      const viaProxy = engine({ smtpProxy: proxy().url });
      for (const [email, expected] of CASES) assert.deepEqual(answer(await direct.verify(email)), expected, email);
      const before = {
        proxy: proxy().connections,
        requests: proxy().requests.length,
        peers: ok.connections + any.connections,
      };
      for (const [email, expected] of CASES) assert.deepEqual(answer(await viaProxy.verify(email)), expected, email);
      const peersOpened = ok.connections + any.connections - before.peers;
      assert.ok(peersOpened >= 3, `peers saw ${peersOpened} connections`);
      assert.equal(
        proxy().connections - before.proxy,
        peersOpened,
        "every connection the peers saw came through the proxy",
      );
      const requests = proxy().requests.slice(before.requests);
      assert.equal(requests.length, peersOpened);
      for (const request of requests) {
        assert.equal(request.atyp, 1, "CONNECT names an IPv4 address, never a host name");
        assert.ok([IP.ok, IP.any].includes(request.host), request.host);
        assert.equal(request.port, 25);
      }
    });
  }

  test("verify() answers probe_unavailable on a wrong password, with one log line naming the proxy without it", async () => {
    const { lines, log } = logged();
    const url = guarded.url.replace("s3cret", "wrong");
    const e = engine({ smtpProxy: url }, { log });
    const failures = guarded.authFailures;
    assert.deepEqual(answer(await e.verify(`jane@ok.${Z}`)), ["unknown", ["probe_unavailable"]]);
    assert.equal(guarded.authFailures, failures + 1);
    const proxyLines = lines.filter((l) => l.includes("smtp proxy failed"));
    assert.equal(proxyLines.length, 1, lines.join(""));
    assert.match(proxyLines[0]!, /socks5:\/\/probe@127\.0\.12\.2:\d+/);
    assert.match(proxyLines[0]!, /authentication failed/i);
    assert.doesNotMatch(lines.join(""), /wrong|s3cret/);
  });

  test("verify() answers probe_unavailable when the proxy is down, and logs it once per burst", async () => {
    const dead = await startSocksProxy({ host: "127.0.12.4" });
    await dead.stop();
    const { lines, log } = logged();
    const e = engine({ smtpProxy: `socks5://who:pw@127.0.12.4:${dead.port}` }, { log });
    const started = performance.now();
    assert.deepEqual(answer(await e.verify(`jane@ok.${Z}`)), ["unknown", ["probe_unavailable"]]);
    assert.deepEqual(answer(await e.verify(`john@ok.${Z}`)), ["unknown", ["probe_unavailable"]]);
    assert.ok(performance.now() - started < 1000, "a refused connection is not waited out");
    const proxyLines = lines.filter((l) => l.includes("smtp proxy failed"));
    assert.equal(proxyLines.length, 1, lines.join(""));
    assert.match(proxyLines[0]!, /socks5:\/\/who@127\.0\.12\.4:\d+.*ECONNREFUSED/);
    assert.doesNotMatch(proxyLines[0]!, /pw/);
  });

  test("verify() answers probe_unavailable when the proxy asks for a method we did not offer", async () => {
    const { lines, log } = logged();
    const e = engine({ smtpProxy: gssapi.url }, { log });
    assert.deepEqual(answer(await e.verify(`jane@ok.${Z}`)), ["unknown", ["probe_unavailable"]]);
    assert.equal(lines.filter((l) => l.includes("smtp proxy failed") && l.includes(gssapi.url)).length, 1);
  });

  test("verify() answers probe_unavailable, not probe_timeout, when the proxy accepts and never answers", async () => {
    const held = new Set<Socket>();
    const silent = createServer((socket) => {
      held.add(socket);
      socket.on("error", () => {});
      socket.resume();
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.12.6", resolve));
    const port = (silent.address() as { port: number }).port;
    const { lines, log } = logged();
    try {
      const e = engine({ smtpProxy: `socks5://127.0.12.6:${port}`, probeTimeoutMs: 500 }, { log });
      const started = performance.now();
      assert.deepEqual(answer(await e.verify(`jane@ok.${Z}`)), ["unknown", ["probe_unavailable"]]);
      assert.ok(performance.now() - started < 1500);
      assert.equal(
        lines.filter((l) => l.includes("smtp proxy failed") && l.includes("no answer from the proxy")).length,
        1,
      );
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  test("the SSRF guard still refuses a private or loopback MX through the proxy: nothing reaches the proxy", async () => {
    const before = open.connections;
    const e = engine({ smtpProxy: open.url, probeAllowCidrs: [] });
    assert.deepEqual(answer(await e.verify(`jane@private.${Z}`)), ["unknown", ["probe_unavailable"]]);
    assert.deepEqual(answer(await e.verify(`jane@ok.${Z}`)), ["unknown", ["probe_unavailable"]]);
    assert.equal(open.connections, before, "the proxy was never asked");
  });

  test("verifyMany() keeps connection reuse and the per-MX limit through the proxy", async () => {
    const e = engine({ smtpProxy: open.url }, { maxConnectionsPerMx: 2, concurrency: 16 });
    const before = { proxy: open.connections, peer: bulk.connections };
    const emails = Array.from({ length: 30 }, (_, i) => `u${i}@bulk.${Z}`);
    const results: EmailVerification[] = [];
    await e.verifyMany(emails, { onResult: (r) => void results.push(r) });
    assert.equal(results.length, 30);
    assert.ok(
      results.every((r) => r.verdict === "deliverable"),
      JSON.stringify(results.map((r) => r.reasons)),
    );
    const opened = bulk.connections - before.peer;
    assert.ok(opened <= 4, `30 addresses over ${opened} connections: reused`);
    assert.ok(bulk.maxConcurrent <= 2, `at most 2 at once, saw ${bulk.maxConcurrent}`);
    assert.equal(open.connections - before.proxy, opened);
  });

  test("SMTP_PROXY_RULES sends one domain direct and another through the proxy", async () => {
    const rules = join(dir, "rules.json");
    writeFileSync(
      rules,
      JSON.stringify({
        _comment: "ok.* direct by its recipient domain; mx.any.* through the proxy by MX host suffix",
        rules: [
          { domain: `ok.${Z}`, via: "direct" },
          { mx_suffix: `any.${Z}`, via: open.url },
        ],
        default: "direct",
      }),
    );
    const e = engine({ smtpProxyRules: rules });
    const before = { requests: open.requests.length, ok: ok.connections, any: any.connections };
    assert.deepEqual(answer(await e.verify(`jane@ok.${Z}`)), ["deliverable", []]);
    assert.deepEqual(answer(await e.verify(`pat@any.${Z}`)), ["unknown", ["catch_all_domain"]]);
    const requests = open.requests.slice(before.requests).map((r) => r.host);
    assert.ok(ok.connections > before.ok && any.connections > before.any);
    assert.deepEqual(new Set(requests), new Set([IP.any]), "only the proxied domain's MX went through the proxy");
    assert.equal(requests.length, any.connections - before.any);
  });

  test("SMTP_PROXY_RULES routes the rest through SMTP_PROXY when it is set, and refuses a bad file at start", async () => {
    const rules = join(dir, "rules-default.json");
    writeFileSync(rules, JSON.stringify({ rules: [{ mx_suffix: `.ok.${Z}`, via: "direct" }] }));
    const e = engine({ smtpProxy: open.url, smtpProxyRules: rules });
    const before = open.requests.length;
    assert.deepEqual(answer(await e.verify(`jane@ok.${Z}`)), ["deliverable", []]);
    assert.equal(open.requests.length, before);
    assert.deepEqual(answer(await e.verify(`pat@any.${Z}`)), ["unknown", ["catch_all_domain"]]);
    assert.ok(open.requests.length > before);

    const bad = join(dir, "rules-bad.json");
    writeFileSync(bad, JSON.stringify({ rules: [{ mx_suffix: "x.example", via: "http://proxy" }] }));
    assert.throws(() => createEmailEngine(config({ smtpProxyRules: bad })), /SMTP_PROXY_RULES.*via/);
    writeFileSync(bad, JSON.stringify({ rules: [{ mx_suffix: "x.example", via: "proxy" }] }));
    assert.throws(() => createEmailEngine(config({ smtpProxyRules: bad })), /SMTP_PROXY is not set/);
  });
});

describe("SMTP_LOCAL_ADDRESS", { skip }, () => {
  test("direct probes leave from SMTP_LOCAL_ADDRESS: the peer sees 127.0.0.50", async () => {
    const e = engine(loadConfigSubset({ SMTP_LOCAL_ADDRESS: "127.0.0.50" }));
    assert.deepEqual(answer(await e.verify(`jane@echo.${Z}`)), ["deliverable", []]);
    assert.ok(echo.clients.length > 0);
    assert.ok(
      echo.clients.every((c) => c === "127.0.0.50"),
      echo.clients.join(","),
    );
  });
});

/** The configuration members loadConfig derives from these variables (so the test goes through its parsing). */
function loadConfigSubset(env: Record<string, string>): Partial<Config> {
  const { smtpLocalAddresses, smtpProxy, smtpProxyRules } = loadConfig(env);
  return { smtpLocalAddresses, smtpProxy, smtpProxyRules };
}
