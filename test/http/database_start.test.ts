// A server whose PostgreSQL is not there yet starts anyway (docs/decisions.md "Storage"): /healthz answers 200 while
// /readyz is 503 saying why and calls get 503 service-unavailable with Retry-After; once the database answers, the
// server migrates it and becomes ready by itself. The real program runs in a child process; its database is behind a
// loopback proxy.
import { test } from "node:test";
import assert from "node:assert/strict";
import { openDatabase } from "../../src/store/db.ts";
import { createKey } from "../../src/auth/key_store.ts";
import { TEST_DATABASE_URL, testDatabase, urlWithSchema } from "../helpers/database.ts";
import { startServerProcess } from "../helpers/process.ts";
import { startTcpProxy, throughProxy, type ProxyMode } from "../helpers/tcp_proxy.ts";
import { eventually } from "../helpers/eventually.ts";

for (const mode of ["blackhole", "refuse"] satisfies ProxyMode[]) {
  test(`a server whose database ${mode === "refuse" ? "refuses connections" : "never answers"} at start is alive, not ready, then ready once the database answers`, {
    timeout: 120_000,
  }, async (t) => {
    const place = testDatabase("postgres");
    t.after(() => place.dispose());
    // The key exists before the server starts: a client already holds it.
    const setup = await openDatabase({ databaseUrl: place.databaseUrl, stateDir: "" }, { schema: place.schema });
    const { key } = await createKey(setup.sql, { account: "early", plan: "free", mode: "test", knownPlans: ["free"] });
    await setup.close();
    const target = new URL(TEST_DATABASE_URL);
    const proxy = await startTcpProxy(t, { host: target.hostname, port: Number(target.port || 5432) }, { mode });
    const server = await startServerProcess(t, {
      DATABASE_URL: throughProxy(urlWithSchema(place.schema!), proxy),
      DB_QUERY_TIMEOUT_MS: "1000",
      STATE_DIR: place.stateDir,
    });
    const call = () =>
      fetch(`${server.url}/v1/email`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body: JSON.stringify({ email: "deliverable@vrai.test" }),
      });

    assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
    const notReady = await fetch(`${server.url}/readyz`);
    assert.equal(notReady.status, 503);
    assert.match((await notReady.json()).checks.database, /^unreachable: /);
    const refused = await call();
    assert.equal(refused.status, 503, await refused.clone().text());
    assert.match((await refused.json()).type, /service-unavailable$/);
    assert.ok(refused.headers.get("retry-after"), "503 without Retry-After");
    assert.equal(server.child.exitCode, null, "the server exited while its database was away");

    proxy.mode = "forward";
    await eventually(`${server.url}/readyz to answer 200`, async () => (await fetch(`${server.url}/readyz`)).status, {
      until: (status) => status === 200,
      timeoutMs: 30_000,
      intervalMs: 200,
    });
    const served = await call();
    assert.equal(served.status, 200, await served.clone().text());
    assert.equal((await served.json()).verdict, "deliverable");
    assert.match(server.output(), /"msg":"database ready"/);
  });
}

test("a server whose database stops answering for a while keeps running (job runner included) and serves again once it answers", {
  timeout: 120_000,
}, async (t) => {
  const place = testDatabase("postgres");
  t.after(() => place.dispose());
  const setup = await openDatabase({ databaseUrl: place.databaseUrl, stateDir: "" }, { schema: place.schema });
  const { key } = await createKey(setup.sql, { account: "later", plan: "free", mode: "test", knownPlans: ["free"] });
  await setup.close();
  const target = new URL(TEST_DATABASE_URL);
  const proxy = await startTcpProxy(t, { host: target.hostname, port: Number(target.port || 5432) });
  const server = await startServerProcess(t, {
    DATABASE_URL: throughProxy(urlWithSchema(place.schema!), proxy),
    DB_QUERY_TIMEOUT_MS: "500",
    STATE_DIR: place.stateDir,
  });
  await eventually("the server to be ready", async () => (await fetch(`${server.url}/readyz`)).status, {
    until: (status) => status === 200,
    timeoutMs: 30_000,
  });
  const submit = () =>
    fetch(`${server.url}/v1/email/bulk`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify({ emails: ["deliverable@vrai.test"] }),
    });
  proxy.mode = "blackhole";
  // The job runner and sweeper poll the database meanwhile; calls are refused, within the bound.
  const began = Date.now();
  const refused = await submit();
  assert.equal(refused.status, 503, await refused.clone().text());
  assert.ok(Date.now() - began < 5000, `answered after ${Date.now() - began} ms`);
  await new Promise((resolve) => setTimeout(resolve, 3000));
  assert.equal(server.child.exitCode, null, `the server exited during the outage: ${server.output()}`);
  proxy.mode = "forward";
  const accepted = await eventually("a bulk submission to be accepted", async () => (await submit()).status, {
    until: (status) => status === 202 || status === 200,
    timeoutMs: 15_000,
  });
  assert.ok(accepted === 202 || accepted === 200);
});
