// GET /metrics over HTTP: Prometheus text, counters that move with traffic, route patterns (never raw paths) as
// labels, and METRICS_TOKEN.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { settledEmail } from "../helpers/settled_engines.ts";
import { parseMetrics, sampleSum } from "../metrics/scrape.ts";

async function scrape(server: TestServer, token?: string) {
  const response = await fetch(`${server.url}/metrics`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  assert.equal(response.status, 200);
  return parseMetrics(await response.text());
}

test("GET /metrics serves Prometheus text without a key when METRICS_TOKEN is unset", async (t) => {
  const server = await startTestServer(t);
  const response = await server.get("/metrics");
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type")!, /^text\/plain; version=0\.0\.4/);
  const samples = parseMetrics(await response.text());
  // Process metrics come with prom-client's standard names; the pools' gauges are there before any traffic.
  assert.ok(sampleSum(samples, "process_cpu_user_seconds_total") >= 0);
  assert.ok(samples.some((s) => s.name === "nodejs_eventloop_lag_seconds"));
  assert.ok(samples.some((s) => s.name === "vrai_address_worker_queue"));
  assert.ok(samples.some((s) => s.name === "vrai_smtp_waiting"));
});

test("a test-mode email call moves the email answer counters and the HTTP counter of its route", async (t) => {
  const server = await startTestServer(t);
  const key = await server.key({ mode: "test" });
  const before = await scrape(server);
  for (const email of ["undeliverable@vrai.test", "deliverable@vrai.test", "undeliverable@vrai.test"]) {
    const response = await server.post("/v1/email", key, { email });
    assert.equal(response.status, 200);
    await response.arrayBuffer();
  }
  const after = await scrape(server);
  const moved = (name: string, labels: Record<string, string>) =>
    sampleSum(after, name, labels) - sampleSum(before, name, labels);
  assert.equal(moved("vrai_email_answers_total", { verdict: "undeliverable", mode: "test" }), 2);
  assert.equal(moved("vrai_email_answers_total", { verdict: "deliverable", mode: "test" }), 1);
  assert.equal(
    moved("vrai_email_answer_reasons_total", { verdict: "undeliverable", reason: "mailbox_not_found", mode: "test" }),
    2,
  );
  assert.equal(moved("vrai_email_answer_reasons_total", { verdict: "deliverable", reason: "none", mode: "test" }), 1);
  const route = { method: "POST", route: "/v1/email", status: "200" };
  assert.equal(moved("vrai_http_requests_total", route), 3);
  assert.equal(moved("vrai_http_request_duration_seconds_count", route), 3);
  assert.equal(moved("vrai_http_request_duration_seconds_bucket", { ...route, le: "+Inf" }), 3);
  // The scrapes themselves are counted under their route.
  assert.equal(sampleSum(after, "vrai_http_requests_total", { route: "/metrics", status: "200" }), 1);
});

test("HTTP series are labelled by route pattern, never by the path sent", async (t) => {
  const server = await startTestServer(t);
  const key = await server.key({ mode: "test" });
  const paths = ["/v1/jobs/00000000-0000-4000-8000-000000000001", "/v1/jobs/not-a-uuid", "/zorglub/12345"];
  for (const path of paths) await (await server.get(path, key)).arrayBuffer();
  const text = await (await server.get("/metrics")).text();
  for (const path of paths) assert.ok(!text.includes(path.split("/").pop()!), `${path} leaked into a label`);
  const samples = parseMetrics(text);
  assert.equal(sampleSum(samples, "vrai_http_requests_total", { route: "/v1/jobs/:id", status: "404" }), 2);
  assert.equal(sampleSum(samples, "vrai_http_requests_total", { route: "(none)", status: "404" }), 1);
});

test("a quota refusal moves vrai_quota_refusals_total, and scrapes are never charged", async (t) => {
  const file = join(mkdtempSync(join(tmpdir(), "vrai-plans-")), "plans.json");
  writeFileSync(
    file,
    JSON.stringify({
      plans: { one: { quota: { email: 1, address: 1 }, rate: { per_minute: 600, burst: 0 }, batch_max: 10 } },
    }),
  );
  const server = await startTestServer(t, { env: { PLANS_FILE: file }, email: settledEmail });
  const key = await server.key({ plan: "one" });
  assert.equal((await server.post("/v1/email", key, { email: "jane@example.com" })).status, 200);
  // A scrape with the API key (ignored) between the two calls costs nothing.
  assert.equal((await server.get("/metrics", key)).status, 200);
  const spent = await server.post("/v1/email", key, { email: "jane@example.com" });
  assert.equal(spent.status, 402);
  const samples = await scrape(server);
  assert.equal(sampleSum(samples, "vrai_quota_refusals_total", { endpoint: "email" }), 1);
  assert.equal(sampleSum(samples, "vrai_http_requests_total", { route: "/v1/email", status: "402" }), 1);
  // The live answer that went through was counted by its verdict... by the engine, which this test replaces.
  assert.equal(sampleSum(samples, "vrai_email_answers_total", { mode: "live" }), 0);
});

test("a test-mode address call moves the address histogram", async (t) => {
  const server = await startTestServer(t);
  const key = await server.key({ mode: "test" });
  const response = await server.post("/v1/address", key, { line: "1 Rue Deliverable, 00000 Testville" });
  assert.equal(response.status, 200);
  const { verdict } = await response.json();
  const samples = await scrape(server);
  assert.equal(sampleSum(samples, "vrai_address_match_duration_seconds_count", { verdict, mode: "test" }), 1);
  assert.equal(sampleSum(samples, "vrai_http_requests_total", { route: "/v1/address", status: "200" }), 1);
});

test("with METRICS_TOKEN set, GET /metrics needs it as a bearer token", async (t) => {
  const token = "m3tr1cs-t0ken-0123456789abcdef";
  const server = await startTestServer(t, { env: { METRICS_TOKEN: token } });
  const key = await server.key({ mode: "test" });

  const none = await server.get("/metrics");
  assert.equal(none.status, 401);
  assert.equal(none.headers.get("content-type"), "application/problem+json");
  assert.equal(none.headers.get("www-authenticate"), 'Bearer realm="vrai-metrics"');
  const problem = await none.json();
  assert.equal(problem.type, `${server.url}/errors/invalid-metrics-token`);
  assert.equal(problem.status, 401);

  for (const wrong of [`${token}x`, token.slice(1), key]) {
    const response = await server.get("/metrics", wrong);
    assert.equal(response.status, 401, wrong);
    assert.equal(response.headers.get("www-authenticate"), 'Bearer realm="vrai-metrics", error="invalid_token"');
    await response.arrayBuffer();
  }
  const samples = await scrape(server, token);
  assert.equal(sampleSum(samples, "vrai_http_requests_total", { route: "/metrics", status: "401" }), 4);
  assert.equal((await server.get("/errors/invalid-metrics-token")).status, 200);
});

test("loadConfig() refuses a METRICS_TOKEN too short or not a bearer token with RangeError", () => {
  assert.throws(() => loadConfig({ METRICS_TOKEN: "short" }), RangeError);
  assert.throws(() => loadConfig({ METRICS_TOKEN: "has a space in it, 16+ chars" }), RangeError);
  assert.equal(loadConfig({ METRICS_TOKEN: "abcdefghijklmnop" }).metricsToken, "abcdefghijklmnop");
  assert.equal(loadConfig({}).metricsToken, undefined);
});
