// The key directory tells a key that may verify from a guess without a query per key: it reads the unrevoked keys'
// hashes at most once per refresh period, and only when asked about one it does not hold; a failed read keeps the
// last set; a malformed key is never even hashed against it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { openDatabase } from "../../src/store/db.ts";
import { createKey, revokeKey } from "../../src/auth/key_store.ts";
import { generateApiKey } from "../../src/auth/api_key.ts";
import { createKeyDirectory } from "../../src/auth/key_directory.ts";
import { statementsSentBy, testDatabase } from "../helpers/database.ts";

test("key directory (embedded): valid keys may exist, guesses and revoked keys do not, one read a period at most", async (t) => {
  const place = testDatabase("embedded");
  const db = await openDatabase({ databaseUrl: undefined, stateDir: place.stateDir });
  t.after(async () => {
    await db.close();
    await place.dispose();
  });
  const make = async () =>
    (await createKey(db.sql, { account: "dir", plan: "free", mode: "live", knownPlans: ["free"] })).key;
  const first = await make();
  let clock = 0;
  const directory = createKeyDirectory(db.sql, { refreshMs: 1000, now: () => clock });

  const reads = async (work: () => Promise<unknown>) => (await statementsSentBy(db.sql, work)).statements.length;
  assert.equal(
    await reads(async () => assert.equal(await directory.mayExist(first), true)),
    1,
    "the first question reads",
  );
  assert.equal(
    await reads(async () => {
      for (let i = 0; i < 50; i++) assert.equal(await directory.mayExist(generateApiKey("live")), false);
    }),
    0,
    "guesses within the period read nothing",
  );
  assert.equal(await reads(() => directory.mayExist("not a key")), 0);

  // A key made since is seen once the period is over, at the next question about a hash not held.
  const made = await make();
  assert.equal(await directory.mayExist(made), false, "not yet read");
  clock += 1000;
  assert.equal(await reads(async () => assert.equal(await directory.mayExist(made), true)), 1);
  // A held hash needs no read, whatever the time.
  clock += 5000;
  assert.equal(await reads(async () => assert.equal(await directory.mayExist(first), true)), 0);

  // Revoked keys leave the directory at the next read.
  await revokeKey(db.sql, made);
  clock += 1000;
  await directory.mayExist(generateApiKey("live"));
  assert.equal(await directory.mayExist(made), false);
});
