// The quota ledger over both settlers: the exclusive one (embedded database, counters in memory written through) and
// the shared one (PostgreSQL, row locks in the charge_quota function). One suite, run on each.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { openDatabase, type Database } from "../../src/store/db.ts";
import { QuotaLedger } from "../../src/limits/quota.ts";
import { createExclusiveQuotaSettler } from "../../src/limits/exclusive_quota_settler.ts";
import { createSharedQuotaSettler } from "../../src/limits/shared_quota_settler.ts";
import { createKey } from "../../src/auth/key_store.ts";
import type { Plan } from "../../src/accounts/plans.ts";
import { testDatabase, type DatabaseKind } from "../helpers/database.ts";

const plan = (email: number, address: number): Plan => ({
  name: "p",
  quota: { email, address },
  rate: { per_minute: 1, burst: 0 },
  batch_max: 10,
});

async function ledgerOn(
  t: TestContext,
  kind: DatabaseKind,
): Promise<{ db: Database; ledger: QuotaLedger; account: string; now: { ms: number } }> {
  const tdb = testDatabase(kind);
  const db = await openDatabase({ databaseUrl: tdb.databaseUrl, stateDir: tdb.stateDir }, { schema: tdb.schema });
  t.after(async () => {
    await db.close();
    await tdb.dispose();
  });
  const { record } = await createKey(db.sql, { account: "ledger", knownPlans: ["free"] });
  const now = { ms: Date.UTC(2026, 10, 30, 23, 59, 0) };
  const settler = kind === "embedded" ? createExclusiveQuotaSettler(db.sql) : createSharedQuotaSettler(db.sql);
  return { db, ledger: new QuotaLedger(db.sql, settler, () => now.ms), account: record.accountId, now };
}

for (const kind of ["embedded", "postgres"] as DatabaseKind[]) {
  test(`quota ledger (${kind}): concurrent unit charges get exactly what is left`, async (t) => {
    const { ledger, account } = await ledgerOn(t, kind);
    const results = await Promise.all(
      Array.from({ length: 50 }, () => ledger.charge(account, plan(20, 5), [{ endpoint: "email", amount: 1 }])),
    );
    assert.equal(results.filter((r) => r.ok).length, 20);
    assert.deepEqual(
      results
        .filter((r) => r.ok)
        .map((r) => r.states[0].remaining)
        .sort((a, b) => a - b),
      Array.from({ length: 20 }, (_, i) => i),
    );
  });

  test(`quota ledger (${kind}): a call with two quotas is all or nothing, and a big call does not block a small one`, async (t) => {
    const { ledger, account } = await ledgerOn(t, kind);
    const p = plan(10, 1);
    const both = () =>
      ledger.charge(account, p, [
        { endpoint: "email", amount: 1 },
        { endpoint: "address", amount: 1 },
      ]);
    assert.equal((await both()).ok, true);
    const refused = await both();
    assert.equal(refused.ok, false);
    assert.ok(!refused.ok && refused.refused.endpoint === "address");
    const [bulk, single] = await Promise.all([
      ledger.charge(account, p, [{ endpoint: "email", amount: 50 }]),
      ledger.charge(account, p, [{ endpoint: "email", amount: 1 }]),
    ]);
    assert.equal(bulk.ok, false);
    assert.equal(single.ok, true);
    assert.deepEqual(
      (await ledger.status(account, p, ["email", "address"])).map((s) => s.remaining),
      [8, 0],
    );
  });

  test(`quota ledger (${kind}): refunds give back, and a new month starts from zero`, async (t) => {
    const { ledger, account, now } = await ledgerOn(t, kind);
    const p = plan(3, 3);
    for (let i = 0; i < 3; i++)
      assert.equal((await ledger.charge(account, p, [{ endpoint: "email", amount: 1 }])).ok, true);
    assert.equal((await ledger.charge(account, p, [{ endpoint: "email", amount: 1 }])).ok, false);
    await ledger.refund(account, p, [{ endpoint: "email", amount: 2 }]);
    assert.equal((await ledger.status(account, p, ["email"]))[0].remaining, 2);
    now.ms += 60_000; // December
    const december = await ledger.charge(account, p, [{ endpoint: "email", amount: 3 }]);
    assert.equal(december.ok, true);
    assert.equal(december.states[0].reset, Date.UTC(2027, 0, 1) / 1000);
  });
}
