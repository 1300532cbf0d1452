// What a client sees when the PostgreSQL stops answering on connections already open (a partition, a paused server)
// and when it comes back: 503 service-unavailable with Retry-After within DB_QUERY_TIMEOUT_MS and its grace, then 200
// again without a restart (docs/decisions.md "Storage"). The database is reached through a loopback proxy that can drop
// bytes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer } from "../helpers/server.ts";
import { settledEmail } from "../helpers/settled_engines.ts";
import { TEST_DATABASE_URL } from "../helpers/database.ts";
import { startTcpProxy, throughProxy } from "../helpers/tcp_proxy.ts";

const QUERY_TIMEOUT_MS = 1000;
/** statement_timeout, then the watchdog's grace for the server's own cancellation, then some slack for the machine. */
const BOUND_MS = QUERY_TIMEOUT_MS + 1000 + 1500;

test("a metered call answers 503 with Retry-After within the bound while the database stops answering on open connections, and 200 once it answers again", {
  timeout: 60_000,
}, async (t) => {
  const target = new URL(TEST_DATABASE_URL);
  const proxy = await startTcpProxy(t, { host: target.hostname, port: Number(target.port || 5432) });
  const server = await startTestServer(t, {
    database: "postgres",
    email: settledEmail,
    env: { DATABASE_URL: throughProxy(TEST_DATABASE_URL, proxy), DB_QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS) },
  });
  const key = await server.key({ plan: "free" });
  const call = () => server.post("/v1/email", key, { email: "jane.doe@example.com" });
  // Warm: the pool's connections are open and the key is cached, so the partition meets a connection in use.
  assert.equal((await call()).status, 200);
  const opened = proxy.accepted;

  proxy.mode = "blackhole";
  const began = Date.now();
  const during = await call();
  const waited = Date.now() - began;
  assert.equal(during.status, 503, await during.clone().text());
  assert.match((await during.json()).type, /service-unavailable$/);
  assert.match(during.headers.get("retry-after") ?? "", /^[1-9][0-9]*$/);
  assert.ok(waited < BOUND_MS, `answered after ${waited} ms, bound ${BOUND_MS} ms`);
  assert.ok(waited >= QUERY_TIMEOUT_MS - 100, `answered after ${waited} ms: the wait was not on the database`);
  // A second call during the partition is bounded too (it must not queue behind a wedged connection).
  const again = Date.now();
  assert.equal((await call()).status, 503);
  assert.ok(Date.now() - again < BOUND_MS, `second call answered after ${Date.now() - again} ms`);

  proxy.mode = "forward";
  const after = await call();
  assert.equal(after.status, 200, await after.clone().text());
  assert.equal((await after.json()).email, "jane.doe@example.com");
  // The connection that timed out was dropped, and a fresh one opened in its place.
  assert.ok(proxy.accepted > opened, "no new connection after the outage: the wedged one was reused");
  // And the service keeps answering: several calls in a row, none held by a wedged connection.
  for (let i = 0; i < 5; i++) assert.equal((await call()).status, 200);
});

test("/readyz says the database is unreachable within its own bound while the database stops answering", {
  timeout: 60_000,
}, async (t) => {
  const target = new URL(TEST_DATABASE_URL);
  const proxy = await startTcpProxy(t, { host: target.hostname, port: Number(target.port || 5432) });
  const server = await startTestServer(t, {
    database: "postgres",
    email: settledEmail,
    env: { DATABASE_URL: throughProxy(TEST_DATABASE_URL, proxy), DB_QUERY_TIMEOUT_MS: "10000" },
  });
  assert.equal((await server.get("/readyz")).status, 200);
  proxy.mode = "blackhole";
  const began = Date.now();
  const ready = await server.get("/readyz");
  assert.ok(Date.now() - began < 4000, `readyz answered after ${Date.now() - began} ms`);
  assert.equal(ready.status, 503);
  assert.match((await ready.json()).checks.database, /^unreachable: /);
  proxy.mode = "forward";
});
