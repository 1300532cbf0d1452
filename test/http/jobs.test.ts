// Bulk jobs and signup over HTTP with live keys, as a client uses them. The addresses chosen here are settled before
// any network check (malformed, typos, disposable domains), so the real email engine answers them offline.
import { test } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { createEmailEngine } from "../../src/email/engine.ts";
import { startJobRunner } from "../../src/jobs/runner.ts";
import { silentLogger } from "../../src/log.ts";
import { plansFile } from "../helpers/plans_file.ts";

const PLANS_FILE = plansFile({
  bulk: { quota: { email: 10, address: 10 }, rate: { per_minute: 6000, burst: 0 }, batch_max: 6 },
});

async function serverWithRunner(t: Parameters<typeof startTestServer>[0]) {
  const server = await startTestServer(t, {
    env: { PLANS_FILE },
    engines: async (_core, config) => ({ email: createEmailEngine(config) }),
  });
  const runner = startJobRunner({
    sql: server.core.db.sql,
    verifier: server.services.email as never,
    log: silentLogger,
    pollMs: 50,
  });
  server.onClose(() => runner.stop());
  return server;
}

async function pollUntilDone(server: TestServer, key: string, id: string) {
  for (let i = 0; i < 200; i++) {
    const job = await (await server.get(`/v1/jobs/${id}`, key)).json();
    if (job.status === "completed" || job.status === "failed") return job;
    await sleep(50);
  }
  throw new Error("job did not finish");
}

test("a bulk job is accepted, deduplicated, charged at submission and completed in submission order", async (t) => {
  const server = await serverWithRunner(t);
  const key = await server.key({ plan: "bulk" });
  const emails = ["Jane@Gmial.com", "not-an-email", " jane@gmial.com", "bob@mailinator.com", "JANE@GMIAL.COM"];
  const response = await server.post("/v1/email/bulk", key, { emails });
  assert.equal(response.status, 202);
  const accepted = await response.json();
  assert.match(accepted.job_id, /^[0-9a-f-]{36}$/);
  assert.equal(accepted.total, 3);
  assert.equal(accepted.status, "queued");
  assert.equal(accepted.poll, `${server.url}/v1/jobs/${accepted.job_id}`);
  assert.equal(response.headers.get("location"), accepted.poll);
  const expires = Date.parse(accepted.expires_at) - Date.now();
  assert.ok(Math.abs(expires - 48 * 3600_000) < 60_000, "expires 48 hours after submission");
  assert.equal(typeof accepted.retention_note, "string");
  assert.equal(response.headers.get("x-quota-remaining"), "7", "charged per deduplicated address");

  const job = await pollUntilDone(server, key, accepted.job_id);
  assert.equal(job.status, "completed");
  assert.equal(job.processed, 3);
  assert.deepEqual(
    job.results.map((r: { email: string; verdict: string; reasons: string[]; suggestion: string | null }) => [
      r.email,
      r.verdict,
      r.reasons,
      r.suggestion,
    ]),
    [
      ["Jane@Gmial.com", "undeliverable", ["domain_typo"], "Jane@gmail.com"],
      ["not-an-email", "undeliverable", ["invalid_syntax"], null],
      ["bob@mailinator.com", "risky", ["disposable_domain"], null],
    ],
  );
  const read = await server.get(`/v1/jobs/${accepted.job_id}`, key);
  assert.equal(read.headers.get("x-ratelimit-limit"), "60", "job reads have their own allowance");
  assert.equal(read.headers.get("x-quota-remaining"), null, "job reads cost no quota");
});

test("a batch larger than the quota left is refused whole with 402, nothing charged", async (t) => {
  const server = await serverWithRunner(t);
  const key = await server.key({ plan: "bulk" });
  const five = ["a@gmial.com", "b@gmial.com", "c@gmial.com", "d@gmial.com", "e@gmial.com"];
  assert.equal((await server.post("/v1/email/bulk", key, { emails: five })).status, 202);
  const refused = await server.post("/v1/email/bulk", key, { emails: [...five.map((e) => `x${e}`), "f@gmial.com"] });
  assert.equal(refused.status, 402);
  assert.equal(refused.headers.get("x-quota-remaining"), "5");
  const fits = await server.post("/v1/email/bulk", key, { emails: five.map((e) => `y${e}`) });
  assert.equal(fits.status, 202);
  assert.equal(fits.headers.get("x-quota-remaining"), "0");
});

test("bulk validation: every item a string of at most 320 characters, at least one item", async (t) => {
  const server = await serverWithRunner(t);
  const key = await server.key({ plan: "bulk" });
  for (const emails of [[], ["a@b.c", 3], [`${"a".repeat(320)}@b.c`], "a@b.c"]) {
    const response = await server.post("/v1/email/bulk", key, { emails });
    assert.equal(response.status, 400, JSON.stringify(emails).slice(0, 40));
  }
  const tooMany = await server.post("/v1/email/bulk", key, {
    emails: Array.from({ length: 7 }, (_, i) => `${i}@gmial.com`),
  });
  assert.equal(tooMany.status, 413);
  const problem = await tooMany.json();
  assert.deepEqual([problem.limit, problem.received], [6, 7]);
});

test("a job is invisible to other accounts and after expiry, with one identical 404", async (t) => {
  const server = await serverWithRunner(t);
  const owner = await server.key({ plan: "bulk", account: "owner" });
  const sameAccount = await server.key({ plan: "bulk", account: "owner" });
  const stranger = await server.key({ plan: "bulk", account: "stranger" });
  const { job_id } = await (await server.post("/v1/email/bulk", owner, { emails: ["a@gmial.com"] })).json();
  assert.equal((await server.get(`/v1/jobs/${job_id}`, sameAccount)).status, 200, "any key of the account reads it");
  const foreign = await server.get(`/v1/jobs/${job_id}`, stranger);
  const unknown = await server.get(`/v1/jobs/00000000-0000-4000-8000-000000000000`, stranger);
  const malformed = await server.get(`/v1/jobs/not-a-uuid`, stranger);
  await server.core.db
    .sql`update jobs set created_at = now() - interval '49 hours', expires_at = now() - interval '1 hour' where id = ${job_id}`;
  const expired = await server.get(`/v1/jobs/${job_id}`, owner);
  const bodies = [];
  for (const response of [foreign, unknown, malformed, expired]) {
    assert.equal(response.status, 404);
    bodies.push(await response.json());
  }
  for (const body of bodies) assert.deepEqual(body, bodies[0]);
  assert.match(bodies[0].type, /\/errors\/job-not-found$/);
});

test("signup with live keys combines the real email and address engines", async (t) => {
  const server = await startTestServer(t, {
    env: { PLANS_FILE },
    engines: async (_core, config) => ({ email: createEmailEngine(config) }),
    address: {
      ready: true,
      verify: async () => ({ verdict: "unknown", reasons: ["country_not_covered"], normalized: null, duration_ms: 0 }),
    },
  });
  const key = await server.key({ plan: "bulk" });
  const response = await server.post("/v1/signup", key, {
    email: "info@mailinator.com",
    address: { line: "10 Downing Street, London", country: "GB" },
  });
  assert.equal(response.status, 200);
  const body = await response.json();
  assert.equal(body.verdict, "risky");
  assert.deepEqual(body.reasons, ["email.disposable_domain", "address.country_not_covered"]);
  assert.deepEqual(Object.keys(body.signals).sort(), ["address", "email"]);
  assert.deepEqual(body.signals.address, { verdict: "unknown", reasons: ["country_not_covered"], normalized: null });
  assert.equal(response.headers.get("x-quota-remaining"), "9");
});
