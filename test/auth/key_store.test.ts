import { test } from "node:test";
import assert from "node:assert/strict";
import { openDatabase } from "../../src/store/db.ts";
import { createKey, findKey, listKeys, revokeKey, type KeyStoreError } from "../../src/auth/key_store.ts";
import { bearerToken, generateApiKey, parseApiKey } from "../../src/auth/api_key.ts";
import { testDatabase, type DatabaseKind } from "../helpers/database.ts";

test("generateApiKey() makes vrai_live_/vrai_test_ keys with 22 base62 characters of secret", () => {
  const keys = new Set(Array.from({ length: 200 }, () => generateApiKey("live")));
  assert.equal(keys.size, 200);
  for (const key of keys) assert.equal(parseApiKey(key), "live");
  assert.equal(parseApiKey(generateApiKey("test")), "test");
  assert.equal(parseApiKey("vrai_live_tooshort"), undefined);
  assert.equal(bearerToken("Bearer abc"), "abc");
  assert.equal(bearerToken("Basic abc"), undefined);
  assert.equal(bearerToken(null), undefined);
});

for (const kind of ["embedded", "postgres"] as DatabaseKind[]) {
  test(`key store (${kind}): create, find, list and revoke by id, key or unambiguous prefix`, async (t) => {
    const tdb = testDatabase(kind);
    const db = await openDatabase({ databaseUrl: tdb.databaseUrl, stateDir: tdb.stateDir }, { schema: tdb.schema });
    t.after(async () => {
      await db.close();
      await tdb.dispose();
    });
    const knownPlans = ["free", "unmetered"];
    const a = await createKey(db.sql, { account: "acme", knownPlans });
    const b = await createKey(db.sql, { account: "acme", mode: "test", endpoints: ["email"], knownPlans });
    assert.equal(a.record.accountId, b.record.accountId, "one account per name");
    assert.equal((await findKey(db.sql, a.key))?.id, a.record.id);
    assert.equal(await findKey(db.sql, generateApiKey("live")), undefined);
    await assert.rejects(
      createKey(db.sql, { account: "x", plan: "gold", knownPlans }),
      (e: KeyStoreError) => e.code === "UNKNOWN_PLAN",
    );

    // Two keys sharing their 12 stored characters: the prefix no longer names one key.
    await db.sql`update api_keys set prefix = ${a.record.prefix} where id = ${b.record.id}`;
    await assert.rejects(revokeKey(db.sql, a.record.prefix), (e: KeyStoreError) => e.code === "KEY_AMBIGUOUS");
    await assert.rejects(revokeKey(db.sql, "vrai_live_zz"), (e: KeyStoreError) => e.code === "KEY_NOT_FOUND");
    assert.ok((await revokeKey(db.sql, a.key)).revokedAt);
    assert.ok((await revokeKey(db.sql, b.record.id)).revokedAt);
    const listed = await listKeys(db.sql);
    assert.equal(listed.length, 2);
    assert.ok(listed.every((k) => k.revokedAt !== null));
    assert.ok((await findKey(db.sql, a.key))?.revokedAt);
  });
}
