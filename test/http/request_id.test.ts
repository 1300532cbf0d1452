// X-Request-Id and the request log (docs/decisions.md "Logs"): the id a client sends when it is sane, else a generated
// one, echoed on every answer and carried by every log line of the request, its SMTP probe lines included; the
// request line names the account and key prefix, never the key; health and metrics probes are logged at debug only.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger, type LogLevel } from "../../src/log.ts";
import { createEmailEngine } from "../../src/email/engine.ts";
import { RESERVED_EMAILS } from "../../src/testmode/email.ts";
import { startTestServer, type StartOptions } from "../helpers/server.ts";
import { startChildServer } from "../helpers/process.ts";
import { eventually } from "../helpers/eventually.ts";
import { livePeersSkip, startDnsmasq, startSmtpPeer } from "../email/peers.ts";
import { rawRequest } from "./raw_http.ts";

type Line = Record<string, unknown> & { level: string; msg: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function loggedServer(t: Parameters<typeof startTestServer>[0], level: LogLevel, options: StartOptions = {}) {
  const lines: Line[] = [];
  const log = createLogger({ level, write: (line) => lines.push(JSON.parse(line)) });
  const server = await startTestServer(t, { ...options, log });
  return { server, lines };
}

const requestLines = (lines: Line[], id: string) => lines.filter((l) => l.request_id === id);

test("a sane X-Request-Id is echoed on every answer and carried by the request line", async (t) => {
  const { server, lines } = await loggedServer(t, "info", {
    // Not ready: /readyz answers 503.
    address: { ready: false, verify: () => Promise.reject(new Error("not in this test")) },
  });
  const key = await server.key({ mode: "test", plan: "unmetered", account: "acme" });
  const freeKey = await server.key({ mode: "test", plan: "free" });
  const send = (path: string, init: RequestInit & { id: string }) =>
    fetch(server.url + path, { ...init, headers: { ...init.headers, "x-request-id": init.id } });
  const json = (auth?: string) => ({
    "content-type": "application/json",
    ...(auth ? { authorization: `Bearer ${auth}` } : {}),
  });
  const cases: Array<[number, string, RequestInit & { id: string }]> = [
    [
      200,
      "/v1/email",
      { id: "req-200", method: "POST", headers: json(key), body: '{"email":"deliverable@vrai.test"}' },
    ],
    [400, "/v1/email", { id: "req.400", method: "POST", headers: json(key), body: '{"mail":"x@vrai.test"}' }],
    [401, "/v1/email", { id: "req:401", method: "POST", headers: json(), body: '{"email":"deliverable@vrai.test"}' }],
    [404, "/v1/nowhere", { id: "req_404", method: "GET" }],
    [
      413,
      "/v1/email/bulk",
      {
        id: "01J9ZK3F6W8Q4V2M5N7P9R1T3X",
        method: "POST",
        headers: json(freeKey),
        body: JSON.stringify({ emails: Array(101).fill(RESERVED_EMAILS[0]) }),
      },
    ],
    [503, "/readyz", { id: "x".repeat(128), method: "GET" }],
  ];
  for (const [status, path, init] of cases) {
    const response = await send(path, init);
    await response.arrayBuffer();
    assert.equal(response.status, status, `${init.method} ${path}`);
    assert.equal(response.headers.get("x-request-id"), init.id, `${status} echoes the id`);
  }
  // Every request line but /readyz's (debug, this logger is at info) carries its request's id and status.
  for (const [status, path, init] of cases.filter(([, path]) => path !== "/readyz")) {
    const [line, ...more] = requestLines(lines, init.id);
    assert.equal(more.length, 0, `one line for ${path} ${status}`);
    assert.deepEqual([line.msg, line.level, line.status], ["request", "info", status]);
  }
  // The account and the key's public prefix, once the key is known; never the key itself.
  const ok = requestLines(lines, "req-200")[0];
  assert.deepEqual([ok.account, ok.key_prefix, ok.route], ["acme", key.slice(0, 12), "/v1/email"]);
  assert.equal(requestLines(lines, "req:401")[0].account, undefined);
  assert.ok(!JSON.stringify(lines).includes(key.slice(12)), "no key in the logs");
});

test("an X-Request-Id that is not sane is replaced by a generated one, and none sent gets one", async (t) => {
  const { server, lines } = await loggedServer(t, "info");
  const key = await server.key({ mode: "test", plan: "unmetered" });
  const call = async (id?: string) => {
    const response = await server.post(
      "/v1/email",
      key,
      { email: "deliverable@vrai.test" },
      id === undefined ? {} : { "x-request-id": id },
    );
    assert.equal(response.status, 200);
    return response.headers.get("x-request-id")!;
  };
  const insane = [
    "x".repeat(129), // too long
    "", // empty
    "two words",
    "<script>",
    'quote"d',
    "a,b", // what two X-Request-Id headers become
    "id%0D%0Aset-cookie:x=1",
    "é",
  ];
  for (const id of insane) {
    const echoed = await call(id);
    assert.match(echoed, UUID, `${JSON.stringify(id)} is replaced`);
    assert.equal(requestLines(lines, echoed).length, 1, "the request line carries the generated id");
    assert.ok(!lines.some((l) => id !== "" && l.request_id === id));
  }
  const first = await call();
  const second = await call();
  assert.match(first, UUID);
  assert.notEqual(first, second);
  assert.equal(requestLines(lines, first)[0].msg, "request");

  // Raw bytes fetch() refuses to send: a CR inside the value, and a folded (obs-fold) continuation line. Whether
  // node's parser refuses the request (400) or reads it, the id echoed is a generated one, and nothing is injected.
  const host = new URL(server.url).host;
  for (const header of ["X-Request-Id: abc\rSet-Cookie: x=1", "X-Request-Id: abc\r\n Set-Cookie: x=1"]) {
    const answer = await rawRequest(server.url, `GET /healthz HTTP/1.1\r\nHost: ${host}\r\n${header}\r\n\r\n`);
    assert.ok(answer.status === 200 || answer.status === 400, `status ${answer.status}`);
    assert.match(answer.headers["x-request-id"] ?? "", UUID, JSON.stringify(header));
    assert.equal(answer.headers["set-cookie"], undefined);
  }
  // A request node's parser refuses before any route sees it gets an id too.
  const refused = await rawRequest(server.url, "GET /healthz HTTP/9.9\r\n\r\n");
  assert.equal(refused.status, 400);
  assert.match(refused.headers["x-request-id"] ?? "", UUID);
  // Refused by us for its Host header, after node read it: the client's id is kept.
  const badHost = await rawRequest(server.url, "GET /healthz HTTP/1.1\r\nHost: a b\r\nX-Request-Id: mine-1\r\n\r\n");
  assert.equal(badHost.status, 400);
  assert.equal(badHost.headers["x-request-id"], "mine-1");
  assert.deepEqual(
    requestLines(lines, "mine-1").map((l) => [l.msg, l.status]),
    [["request refused", 400]],
  );
});

test("request lines of /healthz, /readyz and /metrics are written at debug, not at info", async (t) => {
  for (const level of ["info", "debug"] as const) {
    const { server, lines } = await loggedServer(t, level);
    const key = await server.key({ mode: "test", plan: "unmetered" });
    for (const path of ["/healthz", "/readyz", "/metrics"]) {
      const response = await fetch(server.url + path, { headers: { "x-request-id": `${level}-${path.slice(1)}` } });
      await response.arrayBuffer();
      assert.equal(response.headers.get("x-request-id"), `${level}-${path.slice(1)}`);
    }
    await server.post("/v1/email", key, { email: "deliverable@vrai.test" }, { "x-request-id": `${level}-email` });
    const quiet = lines.filter(
      (l) => l.msg === "request" && ["/healthz", "/readyz", "/metrics"].includes(String(l.route)),
    );
    if (level === "info") {
      assert.deepEqual(quiet, [], "no health or metrics line at info");
    } else {
      assert.deepEqual(
        quiet.map((l) => [l.route, l.level, l.request_id]),
        [
          ["/healthz", "debug", "debug-healthz"],
          ["/readyz", "debug", "debug-readyz"],
          ["/metrics", "debug", "debug-metrics"],
        ],
      );
    }
    // Other calls are logged at info either way.
    assert.equal(requestLines(lines, `${level}-email`)[0].level, "info");
  }
});

test("LOG_LEVEL is read at start: debug shows /readyz probes, a bad value stops the start", async (t) => {
  const env = { STATE_DIR: mkdtempSync(join(tmpdir(), "vrai-loglevel-")), BAN_DEPARTEMENTS: "", LOG_LEVEL: "debug" };
  const server = await startChildServer("src/main.ts", { env, timeoutMs: 150_000 });
  t.after(() => server.stop());
  // Ready or not yet (the street index may still load): logged either way, at debug.
  const response = await fetch(`${server.url}/readyz`, { headers: { "x-request-id": "probe-1" } });
  await response.arrayBuffer();
  assert.equal(response.headers.get("x-request-id"), "probe-1");
  const logged = () =>
    server
      .output()
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as Line);
  const line = (await eventually("the /readyz probe line", () => logged().find((l) => l.request_id === "probe-1")))!;
  assert.deepEqual([line.msg, line.level, line.route, line.status], ["request", "debug", "/readyz", response.status]);

  const bad = await startChildServer("src/main.ts", { env: { ...env, LOG_LEVEL: "verbose" }, timeoutMs: 150_000 });
  assert.equal(await bad.exited, 1);
  assert.match(
    bad.output(),
    /"level":"error".*"msg":"cannot start".*LOG_LEVEL must be debug, info, warn, error or silent, got \\"verbose\\"/,
  );
});

const skip = livePeersSkip("request ids in probe lines");

test("the request id is carried by the probe lines of a live POST /v1/email", { skip }, async (t) => {
  // Loopback addresses of this test only: 127.0.40.1-20.
  const dns = await startDnsmasq({
    zones: ["vrai-reqid.net"],
    mx: [{ domain: "shop.vrai-reqid.net", exchange: "mx.shop.vrai-reqid.net", priority: 10 }],
    hosts: [{ name: "mx.shop.vrai-reqid.net", address: "127.0.40.1" }],
  });
  const shop = await startSmtpPeer({ host: "127.0.40.1", mailboxes: ["jane"] });
  t.after(async () => {
    await shop.stop();
    await dns.stop();
  });
  const lines: Line[] = [];
  const log = createLogger({ level: "debug", write: (line) => lines.push(JSON.parse(line)) });
  const server = await startTestServer(t, {
    env: { DNS_SERVERS: dns.server, PROBE_ALLOW_CIDRS: "127.0.40.0/27", PROBE_TIMEOUT_MS: "3000" },
    log,
    engines: async (_core, config) => ({ email: createEmailEngine(config, { log }) }),
  });
  const key = await server.key({ plan: "unmetered", account: "shop-owner" });
  for (const [email, id, outcome] of [
    ["jane@shop.vrai-reqid.net", "trace-jane", "accepted"],
    ["ghost@shop.vrai-reqid.net", "trace-ghost", "mailbox_not_found"],
  ]) {
    const response = await server.post("/v1/email", key, { email }, { "x-request-id": id });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("x-request-id"), id);
    await response.json();
    const mine = requestLines(lines, id);
    const probes = mine.filter((l) => l.msg === "smtp probe");
    assert.ok(probes.length >= 1, `a probe line for ${id}: ${JSON.stringify(mine)}`);
    assert.deepEqual(
      [probes[0].mx, probes[0].address, probes[0].outcome, probes[0].level],
      ["mx.shop.vrai-reqid.net", "127.0.40.1", outcome, "debug"],
    );
    assert.ok(mine.some((l) => l.msg === "email verified" && l.email === "*@shop.vrai-reqid.net"));
    const request = mine.find((l) => l.msg === "request")!;
    assert.deepEqual([request.status, request.account, request.route], [200, "shop-owner", "/v1/email"]);
    // No line of this request names the mailbox.
    assert.ok(!JSON.stringify(mine).includes(email));
  }
  // Every probe line of these calls belongs to one of them.
  assert.ok(lines.filter((l) => l.msg === "smtp probe").every((l) => typeof l.request_id === "string"));
});
