// The program as users run it: `npm start` processes and `npm run keys`, on the embedded database and on a
// PostgreSQL shared by two processes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { openDatabase } from "../../src/store/db.ts";
import { createKey } from "../../src/auth/key_store.ts";
import { testDatabase, urlWithSchema } from "../helpers/database.ts";
import { readyzOk, runKeysCli, startServerProcess } from "../helpers/process.ts";
import { eventually } from "../helpers/eventually.ts";
import { KEY_CACHE_TTL_MS } from "../../src/auth/key_cache.ts";

/** Time between calls while a revocation takes effect: the wait is bounded by the key cache's life plus one. */
const REVOCATION_POLL_MS = 200;

const post = (url: string, key: string, path: string, body: unknown) =>
  fetch(url + path, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });

test("npm run keys works beside a running embedded server, and a revocation takes effect within 5 seconds", async (t) => {
  const stateDir = mkdtempSync(join(tmpdir(), "vrai-keys-"));
  const env = { STATE_DIR: stateDir };
  const server = await startServerProcess(t, env);
  const created = await runKeysCli(env, [
    "create",
    "--account",
    "acme",
    "--mode",
    "test",
    "--endpoints",
    "email,signup",
    "--json",
  ]);
  assert.equal(created.code, 0, created.stderr);
  const record = JSON.parse(created.stdout);
  assert.match(record.key, /^vrai_test_[0-9A-Za-z]{22}$/);
  assert.equal(record.prefix, record.key.slice(0, 12));
  assert.deepEqual(
    [record.account, record.plan, record.mode, record.endpoints],
    ["acme", "free", "test", ["email", "signup"]],
  );
  assert.equal(typeof record.id, "string");

  assert.equal((await post(server.url, record.key, "/v1/email", { email: "deliverable@vrai.test" })).status, 200);
  const listed = await runKeysCli(env, ["list", "--json"]);
  assert.equal(listed.code, 0, listed.stderr);
  assert.ok(!listed.stdout.includes(record.key), "list never shows a key");
  assert.deepEqual(
    JSON.parse(listed.stdout).map((k: { id: string }) => k.id),
    [record.id],
  );

  const revoked = await runKeysCli(env, ["revoke", record.prefix]);
  assert.equal(revoked.code, 0, revoked.stderr);
  // The server cached the key at the call above, before the revocation: the cache's life bounds the wait.
  const status = await eventually(
    "the revoked key to be refused",
    async () => (await post(server.url, record.key, "/v1/email", { email: "deliverable@vrai.test" })).status,
    {
      until: (status) => status !== 200,
      timeoutMs: KEY_CACHE_TTL_MS + REVOCATION_POLL_MS,
      intervalMs: REVOCATION_POLL_MS,
    },
  );
  assert.equal(status, 401);

  // A second server on the same directory is refused with a clear error.
  const second = await startServerProcess(t, env);
  assert.equal(await second.exited, 1);
  assert.match(second.output(), /is used by process \d+/);

  // SIGTERM stops the first one cleanly and frees the directory: the keys command then opens it directly.
  server.child.kill("SIGTERM");
  assert.equal(await server.exited, 0);
  assert.match(server.output(), /"msg":"stopped"/);
  const offline = await runKeysCli(env, ["create", "--account", "acme", "--plan", "unmetered"]);
  assert.equal(offline.code, 0, offline.stderr);
  assert.match(offline.stdout.trim(), /^vrai_live_[0-9A-Za-z]{22}$/);
  assert.match(offline.stderr, /shown once/);
  const after = JSON.parse((await runKeysCli(env, ["list", "--json"])).stdout);
  assert.equal(after.length, 2);
  assert.ok(
    after.every((k: { plan: string }) => k.plan === "unmetered"),
    "--plan on an existing account changes its plan",
  );
});

test("request logs carry one JSON line per request, never a key or a full email address", async (t) => {
  const stateDir = mkdtempSync(join(tmpdir(), "vrai-logs-"));
  const server = await startServerProcess(t, { STATE_DIR: stateDir });
  const { stdout } = await runKeysCli({ STATE_DIR: stateDir }, ["create", "--account", "logs", "--json"]);
  const { key } = JSON.parse(stdout);
  const response = await post(server.url, key, "/v1/email", { email: "jane.doe@gmial.com" });
  assert.equal(response.status, 200);
  assert.equal((await response.json()).reasons[0], "domain_typo");
  await post(server.url, key, "/v1/address", { line: "12 Rue de Rivoli, 75001 Paris", country: "DE" });
  await sleep(100);
  const lines = server
    .output()
    .trim()
    .split("\n")
    .filter((l) => l.includes('"msg":"request"'));
  assert.ok(lines.length >= 2);
  for (const line of lines) JSON.parse(line);
  assert.ok(!server.output().includes(key.slice(12)), "no key in logs");
  assert.ok(!server.output().includes("jane.doe"), "no full email address in logs");
  assert.ok(!server.output().includes("Rivoli"), "no street line in logs");
});

test("two processes sharing one PostgreSQL charge the quota exactly", async (t) => {
  const db = testDatabase("postgres");
  t.after(() => db.dispose());
  const setup = await openDatabase({ databaseUrl: db.databaseUrl, stateDir: "" }, { schema: db.schema });
  const plansFile = join(db.stateDir, "plans.json");
  writeFileSync(
    plansFile,
    JSON.stringify({
      plans: { q: { quota: { email: 30, address: 1 }, rate: { per_minute: 100000, burst: 0 }, batch_max: 10 } },
    }),
  );
  const { key } = await createKey(setup.sql, { account: "shared", plan: "q", knownPlans: ["q"] });
  await setup.close();
  const env = { DATABASE_URL: urlWithSchema(db.schema!), PLANS_FILE: plansFile };
  const [a, b] = await Promise.all([startServerProcess(t, env), startServerProcess(t, env)]);
  // Each process listens before its database is ready (calls answer 503 until then): the race is on the quota only.
  await Promise.all([readyzOk(a.url), readyzOk(b.url)]);
  const statuses = await Promise.all(
    Array.from({ length: 80 }, (_, i) =>
      post(i % 2 ? a.url : b.url, key, "/v1/email", { email: "jane@gmial.com" }).then((r) => r.status),
    ),
  );
  assert.deepEqual(
    statuses.filter((s) => s !== 200 && s !== 402),
    [],
  );
  assert.equal(statuses.filter((s) => s === 200).length, 30);
  a.child.kill("SIGTERM");
  b.child.kill("SIGTERM");
  assert.deepEqual(await Promise.all([a.exited, b.exited]), [0, 0]);
});
