// One conformance suite for both token-bucket stores: in memory (embedded database) and in PostgreSQL.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { createMemoryRateLimiter } from "../../src/limits/memory_rate_limiter.ts";
import { createPostgresRateLimiter } from "../../src/limits/postgres_rate_limiter.ts";
import { decide, refill, type RateLimiter } from "../../src/limits/rate_limiter.ts";
import { openDatabase } from "../../src/store/db.ts";
import { testDatabase } from "../helpers/database.ts";

function conformance(name: string, make: (t: TestContext) => Promise<RateLimiter>) {
  test(`${name}: a fresh bucket holds per_minute + burst tokens, then refuses with Retry-After`, async (t) => {
    const limiter = await make(t);
    const account = randomUUID();
    const spec = { per_minute: 6, burst: 4 };
    const decisions = [];
    for (let i = 0; i < 11; i++) decisions.push(await limiter.take(account, "verify", spec));
    assert.deepEqual(
      decisions.map((d) => d.allowed),
      [...Array(10).fill(true), false],
    );
    assert.deepEqual(
      decisions.slice(0, 10).map((d) => d.remaining),
      [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
    );
    assert.ok(decisions.every((d) => d.limit === 10));
    const refused = decisions[10];
    assert.ok(refused.retryAfter >= 9 && refused.retryAfter <= 10, `retry after ${refused.retryAfter}`);
    assert.ok(refused.reset > Date.now() / 1000 + 90, "full again in about 100 s");
  });

  test(`${name}: buckets are per account and per bucket name`, async (t) => {
    const limiter = await make(t);
    const [a, b] = [randomUUID(), randomUUID()];
    const spec = { per_minute: 1, burst: 0 };
    assert.equal((await limiter.take(a, "verify", spec)).allowed, true);
    assert.equal((await limiter.take(a, "verify", spec)).allowed, false);
    assert.equal((await limiter.take(a, "jobs", spec)).allowed, true);
    assert.equal((await limiter.take(b, "verify", spec)).allowed, true);
  });

  test(`${name}: concurrent takes never hand out more tokens than the bucket holds`, async (t) => {
    const limiter = await make(t);
    const account = randomUUID();
    const results = await Promise.all(
      Array.from({ length: 40 }, () => limiter.take(account, "verify", { per_minute: 1, burst: 19 })),
    );
    assert.equal(results.filter((r) => r.allowed).length, 20);
  });
}

conformance("memory rate limiter", async () => createMemoryRateLimiter());
conformance("postgres rate limiter", async (t) => {
  const db = testDatabase("postgres");
  const database = await openDatabase({ databaseUrl: db.databaseUrl, stateDir: "" }, { schema: db.schema });
  t.after(async () => {
    await database.close();
    await db.dispose();
  });
  return createPostgresRateLimiter(database.sql);
});

test("refill() adds per_minute / 60 tokens a second, up to the capacity", () => {
  const spec = { per_minute: 60, burst: 10 };
  assert.equal(refill(0, 0, 1000, spec), 1);
  assert.equal(refill(5, 0, 30_000, spec), 35);
  assert.equal(refill(60, 0, 3_600_000, spec), 70);
});

test("decide() takes one token when there is one, and says when the next comes", () => {
  const spec = { per_minute: 60, burst: 0 };
  assert.deepEqual(decide(0.5, spec, 0).decision, {
    allowed: false,
    limit: 60,
    remaining: 0,
    reset: 60,
    retryAfter: 1,
  });
  assert.equal(decide(1, spec, 0).decision.allowed, true);
});
