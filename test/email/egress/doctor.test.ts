// `npm run doctor` as an operator runs it (a child process), against loopback peers in 127.0.12.x: an SMTP peer that
// echoes our address in its EHLO reply, dnsmasq holding the HELO name and PTR records (or not), a closed port and a
// SOCKS5 proxy. The lines it prints and its exit code are checked.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { after, before, describe, test } from "node:test";
import { echoedAddress, isFqdn } from "../../../src/email/egress/self_check.ts";
import { ROOT } from "../../helpers/process.ts";
import { startEchoSmtpPeer, type EchoSmtpPeer } from "../echo_peer.ts";
import { livePeersSkip, startDnsmasq, type Dnsmasq } from "../peers.ts";
import { startSocksProxy, type TestSocksProxy } from "../socks_proxy.ts";

const skip = livePeersSkip("doctor tests (127.0.12.20)");
const Z = "vrai-doctor.net";
const HELO = `probe.${Z}`;
const PEER = "127.0.12.20";
const CLOSED = "127.0.12.21";
// Source addresses: one whose PTR names HELO (which resolves back to it), one without a PTR, one whose PTR names
// HELO although HELO resolves elsewhere.
const WITH_PTR = "127.0.12.40";
const NO_PTR = "127.0.12.41";
const WRONG_PTR = "127.0.12.42";

let dns: Dnsmasq;
let peer: EchoSmtpPeer;
let proxy: TestSocksProxy;

const arpa = (ip: string) => `${ip.split(".").reverse().join(".")}.in-addr.arpa`;

before(async () => {
  if (skip) return;
  dns = await startDnsmasq({
    zones: [Z, "12.0.127.in-addr.arpa"],
    hosts: [{ name: `mx.${Z}`, address: PEER }],
    extra: [
      // An A record only: host-record would publish a PTR too.
      `address=/${HELO}/${WITH_PTR}`,
      `ptr-record=${arpa(WITH_PTR)},${HELO}`,
      `ptr-record=${arpa(WRONG_PTR)},${HELO}`,
    ],
  });
  peer = await startEchoSmtpPeer({ host: PEER });
  proxy = await startSocksProxy({ host: "127.0.12.5", auth: { user: "doc", pass: "hunter2" } });
});

after(async () => {
  await peer?.stop();
  await proxy?.stop();
  await dns?.stop();
});

async function doctor(env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli/doctor.ts"], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      DNS_SERVERS: dns.server,
      SMTP_HELO_NAME: HELO,
      SMTP_SELFTEST_HOST: `mx.${Z}`,
      PROBE_TIMEOUT_MS: "1500",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr.on("data", (c: Buffer) => (out += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { code, out };
}

function line(out: string, check: string): string {
  return out.split("\n").find((l) => l.includes(` ${check} `)) ?? `(no ${check} line in)\n${out}`;
}

describe("npm run doctor", { skip }, () => {
  test("doctor passes every check when the echoed address has a PTR resolving back to it (exit 0)", async () => {
    const { code, out } = await doctor({ SMTP_LOCAL_ADDRESS: WITH_PTR });
    assert.equal(code, 0, out);
    assert.match(
      line(out, "outbound_port_25"),
      /^ok +outbound_port_25 +connected to mx\.vrai-doctor\.net \(127\.0\.12\.20\):25 directly: 220/,
    );
    assert.match(line(out, "helo_name"), new RegExp(`^ok +helo_name +${HELO} resolves to ${WITH_PTR}`));
    assert.match(
      line(out, "reverse_dns"),
      new RegExp(`^ok +reverse_dns +${WITH_PTR} → ${HELO} → ${WITH_PTR}, the HELO name`),
    );
    assert.match(out, /probes can work from here/);
    assert.equal(peer.clients.at(-1), WITH_PTR);
  });

  test("doctor fails reverse_dns with its fix when the echoed address has no PTR (exit 1)", async () => {
    const { code, out } = await doctor({ SMTP_LOCAL_ADDRESS: NO_PTR });
    assert.equal(code, 1, out);
    assert.match(line(out, "outbound_port_25"), /^ok /);
    assert.match(line(out, "reverse_dns"), new RegExp(`^FAIL reverse_dns +${NO_PTR} .*has no PTR record`));
    assert.match(out, new RegExp(`fix: Ask whoever owns ${NO_PTR} .* set its reverse DNS \\(PTR\\) to ${HELO}`));
  });

  test("doctor fails reverse_dns when the PTR does not resolve back to the address (exit 1)", async () => {
    const { code, out } = await doctor({ SMTP_LOCAL_ADDRESS: WRONG_PTR });
    assert.equal(code, 1, out);
    assert.match(
      line(out, "reverse_dns"),
      new RegExp(`^FAIL reverse_dns +${WRONG_PTR} has PTR ${HELO}, which does not resolve back`),
    );
  });

  test("doctor fails outbound_port_25 on a closed port with the proxy as the fix, and skips reverse DNS (exit 1)", async () => {
    const { code, out } = await doctor({ SMTP_SELFTEST_HOST: CLOSED });
    assert.equal(code, 1, out);
    assert.match(
      line(out, "outbound_port_25"),
      /^FAIL outbound_port_25 +cannot reach 127\.0\.12\.21:25 directly: .*ECONNREFUSED/,
    );
    assert.match(out, /fix: Outbound port 25 looks blocked .* SMTP_PROXY=socks5:\/\//);
    assert.match(line(out, "helo_name"), /^ok /);
    assert.match(line(out, "reverse_dns"), /^skip reverse_dns/);
  });

  test("doctor blames DNS, not port 25, when the self-test host cannot be looked up (exit 1)", async () => {
    const { code, out } = await doctor({ SMTP_SELFTEST_HOST: `nowhere.${Z}` });
    assert.equal(code, 1, out);
    assert.match(
      line(out, "outbound_port_25"),
      new RegExp(`^FAIL outbound_port_25 +cannot reach nowhere\\.${Z.replace(".", "\\.")}`),
    );
    assert.match(out, /fix: The target's name could not be looked up, so port 25 was not tried: check that DNS works/);
    assert.doesNotMatch(out, /looks blocked/);
  });

  test("doctor goes through SMTP_PROXY, names the proxy without its password, and fails on a wrong one", async () => {
    const before = proxy.connections;
    const through = await doctor({ SMTP_PROXY: proxy.url });
    assert.match(line(through.out, "outbound_port_25"), /through socks5:\/\/doc@127\.0\.12\.5:\d+: 220/);
    assert.equal(proxy.connections, before + 1);
    assert.doesNotMatch(through.out, /hunter2/);

    const wrong = await doctor({ SMTP_PROXY: proxy.url.replace("hunter2", "nope") });
    assert.equal(wrong.code, 1, wrong.out);
    assert.match(
      line(wrong.out, "outbound_port_25"),
      /^FAIL .*through socks5:\/\/doc@127\.0\.12\.5:\d+: .*authentication failed/i,
    );
    assert.match(wrong.out, /fix: Check SMTP_PROXY/);
    assert.doesNotMatch(wrong.out, /nope/);
  });

  test("doctor fails a HELO name that is not fully qualified", async () => {
    const { code, out } = await doctor({ SMTP_HELO_NAME: "localhost", SMTP_LOCAL_ADDRESS: WITH_PTR });
    assert.equal(code, 1, out);
    assert.match(
      line(out, "helo_name"),
      /^FAIL helo_name +SMTP_HELO_NAME "localhost" is not a fully qualified host name/,
    );
  });
});

describe("egress self-check helpers", () => {
  test("echoedAddress() finds the address a server's EHLO reply names", () => {
    const cases: Array<[string, string | null]> = [
      ["mx.google.com at your service, [203.0.113.5]\nSIZE 157286400", "203.0.113.5"],
      ["mail.example Hello client.example [IPv6:2001:db8::5]", "2001:db8::5"],
      ["smtp.example Hello 198.51.100.7, pleased to meet you", "198.51.100.7"],
      ["mx.example Hello there\nPIPELINING", null],
      ["mx.example version 1.2.3.4.5", null],
    ];
    for (const [text, expected] of cases) assert.equal(echoedAddress(text), expected, text);
  });

  test("isFqdn() accepts fully qualified names only", () => {
    for (const name of ["mail.example.com", "probe.vrai.example.", "a-b.example"]) assert.ok(isFqdn(name), name);
    for (const name of ["localhost", "203.0.113.5", "-bad.example", "host.123", "a..example"])
      assert.ok(!isFqdn(name), name);
  });
});
