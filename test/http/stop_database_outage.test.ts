// A stop always ends: SIGTERM to the real server (src/main.ts, PostgreSQL behind a loopback proxy, heap under
// pressure) while its job runner holds claimed items, with the database answering, gone (the proxy closed: connections
// reset and refused), or stalled (the proxy drops every byte, as a partition or a paused server does). Each time the
// process logs `stopped` and exits 0 within STOP_DRAIN_MS. Items it could hand back are pending again; items it could
// not are left to their lease, still claimed and unanswered: nothing lost, nothing answered twice.
import { test } from "node:test";
import assert from "node:assert/strict";
import { openDatabase } from "../../src/store/db.ts";
import { createKey } from "../../src/auth/key_store.ts";
import { startSilentDns } from "../email/peers.ts";
import { TEST_DATABASE_URL, testDatabase, urlWithSchema } from "../helpers/database.ts";
import { startServerProcess } from "../helpers/process.ts";
import { startTcpProxy, throughProxy } from "../helpers/tcp_proxy.ts";
import { eventually } from "../helpers/eventually.ts";

const STOP_DRAIN_MS = 3000;
/**
 * What the exit may take beyond the drain time on a loaded machine: signal delivery, and the exit itself, which under
 * `npm test` writes each thread's coverage (c8): seen taking 1.1 s after the "stopped" line on a CI run of two test
 * files at once on two cores.
 */
const SLACK_MS = 2500;
const ITEMS = 6;
const HEAP_PRESSURE = ["--max-semi-space-size=1"];

type Outage = "none" | "gone" | "stalled";

async function stopDuring(t: import("node:test").TestContext, outage: Outage) {
  const place = testDatabase("postgres");
  t.after(() => place.dispose());
  const direct = await openDatabase({ databaseUrl: place.databaseUrl, stateDir: "" }, { schema: place.schema });
  t.after(() => direct.close());
  const { key } = await createKey(direct.sql, {
    account: "stops",
    plan: "unmetered",
    mode: "live",
    knownPlans: ["unmetered"],
  });
  // MX lookups that never answer: the runner's items stay claimed and in flight until the stop.
  const dns = await startSilentDns();
  t.after(() => dns.stop());
  const target = new URL(TEST_DATABASE_URL);
  const proxy = await startTcpProxy(t, { host: target.hostname, port: Number(target.port || 5432) });
  const server = await startServerProcess(
    t,
    {
      DATABASE_URL: throughProxy(urlWithSchema(place.schema!), proxy),
      STATE_DIR: place.stateDir,
      DNS_SERVERS: dns.server,
      PROBE_TIMEOUT_MS: "60000",
      // The database's own bound is longer than the drain time: the stop must not wait for it.
      DB_QUERY_TIMEOUT_MS: "5000",
      STOP_DRAIN_MS: String(STOP_DRAIN_MS),
    },
    { nodeFlags: HEAP_PRESSURE },
  );
  await eventually("the server to be ready", async () => (await fetch(`${server.url}/readyz`)).status, {
    until: (status) => status === 200,
    timeoutMs: 30_000,
  });
  const submitted = await fetch(`${server.url}/v1/email/bulk`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify({ emails: Array.from({ length: ITEMS }, (_, i) => `someone@stalled-${i}.example.org`) }),
  });
  assert.equal(submitted.status, 202, await submitted.clone().text());
  const claimed = () =>
    direct.sql<{ n: number }[]>`select count(*)::int as n from job_items where status = 'claimed'`.then((r) => r[0]!.n);
  await eventually("the runner to claim the job's items", claimed, { until: (n) => n === ITEMS, timeoutMs: 15_000 });

  if (outage === "gone") await proxy.close();
  if (outage === "stalled") proxy.mode = "blackhole";
  const began = Date.now();
  server.child.kill("SIGTERM");
  const code = await server.exited;
  const took = Date.now() - began;
  const lines = server
    .output()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const output = server.output();
  assert.equal(code, 0, `exit code ${code} after ${took} ms:\n${output}`);
  assert.ok(
    lines.some((line) => line.msg === "stopped"),
    `no "stopped" line:\n${output}`,
  );
  assert.ok(took < STOP_DRAIN_MS + SLACK_MS, `stopped after ${took} ms, drain time ${STOP_DRAIN_MS} ms:\n${output}`);

  const items = await direct.sql<{ status: string; lease_owner: string | null; result: unknown }[]>`
    select status, lease_owner, result from job_items`;
  assert.equal(items.length, ITEMS);
  assert.ok(
    items.every((item) => item.result === null),
    "an item was answered during the stop",
  );
  return { lines, items, output };
}

test("SIGTERM with the database answering: claimed items are handed back, stopped, exit 0", {
  timeout: 180_000,
}, async (t) => {
  const { items, lines } = await stopDuring(t, "none");
  assert.deepEqual(
    items.map((item) => item.status),
    Array(ITEMS).fill("pending"),
  );
  assert.equal(lines.find((line) => line.msg === "job runner stopped")?.released, ITEMS);
});

test("SIGTERM with the database gone: stopped and exit 0 within the drain time, items left to their lease", {
  timeout: 180_000,
}, async (t) => {
  const { items, output } = await stopDuring(t, "gone");
  assert.ok(
    items.every((item) => item.status === "claimed" && item.lease_owner !== null),
    `items not left to their lease: ${JSON.stringify(items)}\n${output}`,
  );
});

test("SIGTERM with the database stalled: stopped and exit 0 within the drain time, items left to their lease", {
  timeout: 180_000,
}, async (t) => {
  const { items, output } = await stopDuring(t, "stalled");
  assert.ok(
    items.every((item) => item.status === "claimed" && item.lease_owner !== null),
    `items not left to their lease: ${JSON.stringify(items)}\n${output}`,
  );
});
