// Per-call budgets (Prefer: wait=N, RFC 7240) and the egress self-check in /readyz, over HTTP with real sockets:
// dnsmasq, a tarpit and a normal SMTP peer in 127.0.12.6x.
import assert from "node:assert/strict";
import { test } from "node:test";
import { createEmailEngine } from "../../src/email/engine.ts";
import { startEgressCheck } from "../../src/email/egress/self_check.ts";
import { buildOpenApi } from "../../src/http/openapi.ts";
import { applyPreferredWait, preferredWait } from "../../src/http/prefer.ts";
import { eventually } from "../helpers/eventually.ts";
import { startTestServer } from "../helpers/server.ts";
import { livePeersSkip, startDnsmasq, startHostileSmtpPeer, startSmtpPeer } from "../email/peers.ts";

const skip = livePeersSkip("HTTP tests over live peers");
const Z = "vrai-prefer.net";

async function peers(t: { after(fn: () => unknown): void }) {
  const dns = await startDnsmasq({
    zones: [Z],
    mx: [
      { domain: `tarpit.${Z}`, exchange: `mx.tarpit.${Z}`, priority: 10 },
      { domain: `ok.${Z}`, exchange: `mx.ok.${Z}`, priority: 10 },
    ],
    hosts: [
      { name: `mx.tarpit.${Z}`, address: "127.0.12.60" },
      { name: `mx.ok.${Z}`, address: "127.0.12.61" },
    ],
  });
  const tarpit = await startHostileSmtpPeer({ host: "127.0.12.60", behaviour: "tarpit" });
  const ok = await startSmtpPeer({ host: "127.0.12.61", mailboxes: ["jane"] });
  t.after(async () => {
    await tarpit.stop();
    await ok.stop();
    await dns.stop();
  });
  return { dns };
}

test("preferredWait() reads the first wait preference and ignores malformed ones", () => {
  const cases: Array<[string | null, number | null]> = [
    [null, null],
    ["wait=5", 5],
    ["WAIT = 7", 7],
    ['wait="3"', 3],
    ["respond-async, wait=10", 10],
    ["wait=4; foo=bar", 4],
    ["wait=2, wait=9", 2],
    ["wait=soon", null],
    ["wait=-1", null],
    ["wait=1.5", null],
    ["wait", null],
    ["return=minimal", null],
    ["waiting=3", null],
  ];
  for (const [header, expected] of cases) assert.equal(preferredWait(header), expected, String(header));
});

test("applyPreferredWait() keeps the deadline between 1 s and EMAIL_DEADLINE_MS", () => {
  assert.deepEqual(applyPreferredWait("wait=2", 15_000), { deadlineMs: 2000, header: "wait=2" });
  assert.deepEqual(applyPreferredWait("wait=0", 15_000), { deadlineMs: 1000, header: "wait=1" });
  assert.deepEqual(applyPreferredWait("wait=60", 15_000), { deadlineMs: 15_000, header: "wait=15" });
  assert.deepEqual(applyPreferredWait("wait=9", 2500), { deadlineMs: 2500, header: "wait=3" });
  assert.equal(applyPreferredWait("wait=x", 15_000), null);
});

test("Prefer: wait=2 on a tarpit answers within 2 s with Preference-Applied, on /v1/email and /v1/signup", {
  skip,
}, async (t) => {
  const { dns } = await peers(t);
  const env = {
    DNS_SERVERS: dns.server,
    PROBE_ALLOW_CIDRS: "127.0.0.0/8",
    PROBE_TIMEOUT_MS: "8000",
    EMAIL_DEADLINE_MS: "10000",
  };
  const server = await startTestServer(t, {
    env,
    engines: async (_core, config) => ({ email: createEmailEngine(config) }),
  });
  const key = await server.key({ plan: "unmetered" });
  // Warm-up: the first call also pays for the key lookup and the first database queries, outside the engine's clock.
  assert.equal((await (await server.post("/v1/email", key, { email: `jane@ok.${Z}` })).json()).verdict, "deliverable");
  for (const path of ["/v1/email", "/v1/signup"]) {
    const started = performance.now();
    const response = await server.post(path, key, { email: `jane@tarpit.${Z}` }, { prefer: "wait=2" });
    const body = await response.json();
    const elapsed = performance.now() - started;
    assert.equal(response.status, 200, JSON.stringify(body));
    assert.equal(response.headers.get("preference-applied"), "wait=2");
    const email = path === "/v1/email" ? body : body.signals.email;
    assert.deepEqual([email.verdict, email.reasons], ["unknown", ["probe_timeout"]], JSON.stringify(body));
    // At the budget, not at PROBE_TIMEOUT_MS (8 s) or EMAIL_DEADLINE_MS (10 s); the slack is for a busy machine.
    assert.ok(elapsed >= 1950 && elapsed < 2500, `${path} answered after ${Math.round(elapsed)} ms`);
  }
});

test("Prefer: a malformed wait is ignored, and a wait above EMAIL_DEADLINE_MS is capped", { skip }, async (t) => {
  const { dns } = await peers(t);
  const env = { DNS_SERVERS: dns.server, PROBE_ALLOW_CIDRS: "127.0.0.0/8", EMAIL_DEADLINE_MS: "3000" };
  const server = await startTestServer(t, {
    env,
    engines: async (_core, config) => ({ email: createEmailEngine(config) }),
  });
  const key = await server.key({ plan: "unmetered" });
  const malformed = await server.post("/v1/email", key, { email: `jane@ok.${Z}` }, { prefer: "wait=soon" });
  assert.equal((await malformed.json()).verdict, "deliverable");
  assert.equal(malformed.headers.get("preference-applied"), null);

  const started = performance.now();
  const capped = await server.post("/v1/email", key, { email: `jane@tarpit.${Z}` }, { prefer: "wait=60" });
  assert.deepEqual((await capped.json()).reasons, ["probe_timeout"]);
  assert.equal(capped.headers.get("preference-applied"), "wait=3");
  assert.ok(performance.now() - started < 3200);
});

test("/readyz shows the SMTP egress self-check under checks without making the service unready", {
  skip,
}, async (t) => {
  const server = await startTestServer(t, { env: { SMTP_SELFTEST_HOST: "127.0.12.62", PROBE_TIMEOUT_MS: "1000" } });
  const pending = await (await server.get("/readyz")).json();
  assert.equal(pending.checks.smtp_egress, undefined, "absent when the process runs no self-check");

  server.services.egress = startEgressCheck(server.services.config);
  const failing = await eventually(
    "the self-check to finish",
    async () => {
      const response = await server.get("/readyz");
      return { status: response.status, body: await response.json() };
    },
    { until: (r) => r.body.checks.smtp_egress.status !== "pending", timeoutMs: 10_000 },
  );
  assert.equal(failing.status, 200);
  assert.equal(failing.body.status, "ready");
  const egress = failing.body.checks.smtp_egress;
  assert.equal(egress.status, "fail");
  assert.equal(egress.route, "direct");
  assert.equal(egress.checks.outbound_port_25, "fail");
  assert.match(egress.failures[0].fix, /SMTP_PROXY/);
});

test("the OpenAPI description documents Prefer and Preference-Applied on /v1/email and /v1/signup", () => {
  const api = buildOpenApi("http://localhost:8080");
  for (const path of ["/v1/email", "/v1/signup"] as const) {
    const post = api.paths[path].post as {
      parameters?: Array<{ name?: string; in?: string; $ref?: string }>;
      responses: any;
    };
    assert.deepEqual(
      post.parameters?.map((p) => p.$ref ?? `${p.in} ${p.name}`),
      ["header Prefer", "#/components/parameters/RequestId"],
    );
    assert.ok(post.responses["200"].headers["Preference-Applied"], path);
  }
  // Waiting is the email probe's; an address answers from memory, so it takes no Prefer.
  assert.deepEqual(
    (api.paths["/v1/address"].post as { parameters?: Array<{ $ref?: string }> }).parameters?.map((p) => p.$ref),
    ["#/components/parameters/RequestId"],
  );
});
