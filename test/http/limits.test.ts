import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer } from "../helpers/server.ts";
import { settledAddress, settledEmail } from "../helpers/settled_engines.ts";
import { plansFile } from "../helpers/plans_file.ts";

test("rate limits: headers on every response, 429 with Retry-After when the bucket is empty", async (t) => {
  const PLANS_FILE = plansFile({ tiny: { quota: null, rate: { per_minute: 60, burst: 2 }, batch_max: 10 } });
  const server = await startTestServer(t, { env: { PLANS_FILE }, email: settledEmail });
  const key = await server.key({ plan: "tiny" });
  const remaining: number[] = [];
  let refused: Response | undefined;
  for (let i = 0; i < 70 && !refused; i++) {
    const response = await server.post("/v1/email", key, { email: "bad" });
    assert.equal(response.headers.get("x-ratelimit-limit"), "62");
    assert.equal(response.headers.get("x-quota-limit"), null, "unmetered plans send no quota headers");
    if (response.status === 429) refused = response;
    else {
      remaining.push(Number(response.headers.get("x-ratelimit-remaining")));
      await response.arrayBuffer();
    }
  }
  assert.ok(refused, "the bucket ran out");
  assert.equal(remaining[0], 61);
  assert.ok(remaining.length >= 62 && remaining.length <= 64, `${remaining.length} calls went through`);
  assert.ok(Number(refused.headers.get("retry-after")) >= 1);
  assert.ok(Number(refused.headers.get("x-ratelimit-reset")) > Date.now() / 1000);
  assert.match((await refused.json()).type, /rate-limit-exceeded$/);
  // Job reads draw from their own bucket.
  const jobRead = await server.get("/v1/jobs/00000000-0000-4000-8000-000000000000", key);
  assert.equal(jobRead.status, 404);
  assert.equal(jobRead.headers.get("x-ratelimit-limit"), "60");
});

test("quota: X-Quota-* headers, 402 when spent, nothing charged for 4xx", async (t) => {
  const PLANS_FILE = plansFile({
    small: { quota: { email: 3, address: 2 }, rate: { per_minute: 600, burst: 0 }, batch_max: 10 },
  });
  const server = await startTestServer(t, { env: { PLANS_FILE }, email: settledEmail, address: settledAddress });
  const key = await server.key({ plan: "small" });
  const bad = await server.post("/v1/email", key, { email: 1 });
  assert.equal(bad.status, 400);
  assert.equal(bad.headers.get("x-quota-remaining"), "3", "a 400 is free and still shows the quota");
  for (const left of ["2", "1", "0"]) {
    const response = await server.post("/v1/email", key, { email: "x" });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("x-quota-limit"), "3");
    assert.equal(response.headers.get("x-quota-remaining"), left);
    const reset = Number(response.headers.get("x-quota-reset"));
    const now = new Date();
    assert.equal(reset, Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) / 1000);
  }
  const spent = await server.post("/v1/email", key, { email: "x" });
  assert.equal(spent.status, 402);
  assert.match((await spent.json()).type, /quota-exceeded$/);
  assert.equal(spent.headers.get("x-quota-remaining"), "0");
  // Per endpoint: the address quota is untouched.
  const address = await server.post("/v1/address", key, { line: "1 Main St", country: "US" });
  assert.equal(address.status, 200);
  assert.equal(address.headers.get("x-quota-remaining"), "1");
  // Signup needs both; the email quota is spent, so nothing is charged to address either.
  const signup = await server.post("/v1/signup", key, { email: "x", address: { line: "1 Main St", country: "US" } });
  assert.equal(signup.status, 402);
  const address2 = await server.post("/v1/address", key, { line: "1 Main St", country: "US" });
  assert.equal(address2.headers.get("x-quota-remaining"), "0", "the refused signup charged nothing");
});

test("signup charges email and address, and its headers describe the tighter quota", async (t) => {
  const PLANS_FILE = plansFile({
    small: { quota: { email: 5, address: 2 }, rate: { per_minute: 600, burst: 0 }, batch_max: 10 },
  });
  const server = await startTestServer(t, { env: { PLANS_FILE }, email: settledEmail, address: settledAddress });
  const key = await server.key({ plan: "small" });
  const both = await server.post("/v1/signup", key, { email: "x", address: { line: "1 Main St", country: "US" } });
  assert.equal(both.status, 200);
  assert.equal(both.headers.get("x-quota-limit"), "2");
  assert.equal(both.headers.get("x-quota-remaining"), "1");
  const emailOnly = await server.post("/v1/signup", key, { email: "x" });
  assert.equal(emailOnly.headers.get("x-quota-limit"), "5");
  assert.equal(emailOnly.headers.get("x-quota-remaining"), "3");
  const body = await emailOnly.json();
  assert.deepEqual(Object.keys(body.signals), ["email"]);
  assert.deepEqual(body.reasons, ["email.invalid_syntax"]);
});

test("refusals come in the order 401, 403, 429, 415, 400, 413, 402", async (t) => {
  const PLANS_FILE = plansFile({
    one: { quota: { email: 0, address: 0 }, rate: { per_minute: 60, burst: 0 }, batch_max: 2 },
  });
  const server = await startTestServer(t, { env: { PLANS_FILE }, email: settledEmail });
  const key = await server.key({ plan: "one" });
  const addressOnly = await server.key({ plan: "one", endpoints: ["address"], account: "other" });
  const status = async (k: string | undefined, body: unknown, type = "application/json") =>
    (await server.post("/v1/email/bulk", k, body, { "content-type": type })).status;
  assert.equal(await status(undefined, "x", "text/plain"), 401);
  assert.equal(await status(addressOnly, "x", "text/plain"), 403);
  assert.equal(await status(key, "x", "text/plain"), 415);
  assert.equal(await status(key, "{oops"), 400);
  assert.equal(await status(key, { emails: ["a@b.c", "d@e.f", "g@h.i"] }), 413);
  assert.equal(await status(key, { emails: ["a@b.c"] }), 402);
  const big = await server.post("/v1/email/bulk", key, { emails: ["a@b.c", "d@e.f", "g@h.i"] });
  const problem = await big.json();
  assert.equal(problem.limit, 2);
  assert.equal(problem.received, 3);
});

for (const database of ["embedded", "postgres"] as const) {
  test(`quota is exact under concurrency (${database}): N calls against Q give min(N, Q) successes`, async (t) => {
    const PLANS_FILE = plansFile({
      q: { quota: { email: 25, address: 1 }, rate: { per_minute: 100000, burst: 0 }, batch_max: 10 },
    });
    const server = await startTestServer(t, { database, env: { PLANS_FILE }, email: settledEmail });
    const key = await server.key({ plan: "q" });
    const statuses = await Promise.all(
      Array.from({ length: 60 }, () => server.post("/v1/email", key, { email: "x" }).then((r) => r.status)),
    );
    assert.deepEqual(
      statuses.filter((s) => s !== 200 && s !== 402),
      [],
    );
    assert.equal(statuses.filter((s) => s === 200).length, 25);
    assert.equal(statuses.filter((s) => s === 402).length, 35);
  });
}
