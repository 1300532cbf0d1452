// The time limits on a PostgreSQL connection (store/answer_watchdog.ts, store/db.ts): a database that stops answering
// fails the query as unavailable within the bound, and what is merely slow or idle is left alone.
import { test } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { openDatabase, type Database } from "../../src/store/db.ts";
import { isDatabaseUnavailable } from "../../src/store/unavailable.ts";
import { TEST_DATABASE_URL, testDatabase } from "../helpers/database.ts";
import { startTcpProxy, throughProxy, type TcpProxy } from "../helpers/tcp_proxy.ts";
import type { TestContext } from "node:test";

const QUERY_TIMEOUT_MS = 1000;

async function openThroughProxy(t: TestContext): Promise<{ db: Database; proxy: TcpProxy }> {
  const place = testDatabase("postgres");
  const target = new URL(TEST_DATABASE_URL);
  const proxy = await startTcpProxy(t, { host: target.hostname, port: Number(target.port || 5432) });
  const db = await openDatabase(
    { databaseUrl: throughProxy(TEST_DATABASE_URL, proxy), stateDir: place.stateDir },
    { schema: place.schema, queryTimeoutMs: QUERY_TIMEOUT_MS, max: 2 },
  );
  t.after(async () => {
    proxy.mode = "forward";
    await db.close();
    await place.dispose();
  });
  return { db, proxy };
}

test("a query on an open connection fails as unavailable within the bound when the database stops answering", {
  timeout: 30_000,
}, async (t) => {
  const { db, proxy } = await openThroughProxy(t);
  await db.sql`select 1`;
  proxy.mode = "blackhole";
  const began = Date.now();
  const error = await db.sql`select 2`.then(
    () => assert.fail("the query answered through a blackhole"),
    (e: unknown) => e,
  );
  const waited = Date.now() - began;
  assert.equal((error as { code?: string }).code, "DATABASE_TIMEOUT");
  assert.ok(isDatabaseUnavailable(error));
  assert.ok(waited >= QUERY_TIMEOUT_MS && waited < QUERY_TIMEOUT_MS + 2500, `failed after ${waited} ms`);
  proxy.mode = "forward";
  assert.deepEqual([...(await db.sql`select 3 as n`)], [{ n: 3 }]);
});

test("a statement longer than DB_QUERY_TIMEOUT_MS is cancelled by the server, and the pool keeps serving", {
  timeout: 30_000,
}, async (t) => {
  const { db } = await openThroughProxy(t);
  const error = await db.sql`select pg_sleep(3)`.then(
    () => assert.fail("a 3 s statement ran to its end"),
    (e: unknown) => e,
  );
  assert.equal((error as { code?: string }).code, "57014");
  assert.ok(isDatabaseUnavailable(error));
  assert.deepEqual([...(await db.sql`select 1 as n`)], [{ n: 1 }]);
});

test("slow work within the limit, and a transaction idle for longer than it, are not cut", {
  timeout: 30_000,
}, async (t) => {
  const { db } = await openThroughProxy(t);
  assert.deepEqual(
    [...(await db.sql`select pg_sleep(0.6), 1 as n`)].map((r) => r.n),
    [1],
  );
  const n = await db.sql.begin(async (tx) => {
    await tx`select 1`;
    await sleep(QUERY_TIMEOUT_MS + 1500); // longer than the backstop: nothing is owed meanwhile
    const [row] = await tx`select 2 as n`;
    return row!.n as number;
  });
  assert.equal(n, 2);
  await sleep(QUERY_TIMEOUT_MS + 1500); // an idle pooled connection is not cut either
  assert.deepEqual([...(await db.sql`select 3 as n`)], [{ n: 3 }]);
});
