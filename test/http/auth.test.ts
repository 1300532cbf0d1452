import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer } from "../helpers/server.ts";
import { eventually } from "../helpers/eventually.ts";
import { KEY_CACHE_TTL_MS } from "../../src/auth/key_cache.ts";
import { revokeKey, listKeys } from "../../src/auth/key_store.ts";
import { hashApiKey } from "../../src/auth/api_key.ts";

/** Time between calls while a revocation takes effect: the wait is bounded by the key cache's life plus one. */
const REVOCATION_POLL_MS = 250;

test("keys authenticate, and refusals follow the spec", async (t) => {
  const server = await startTestServer(t);
  const type = async (response: Response) => ((await response.json()).type as string).split("/").pop();

  await t.test("no Authorization header answers 401 invalid-api-key", async () => {
    const response = await server.post("/v1/email", undefined, { email: "deliverable@vrai.test" });
    assert.equal(response.status, 401);
    assert.equal(await type(response), "invalid-api-key");
  });

  await t.test("a malformed key answers 401 invalid-api-key", async () => {
    for (const key of ["nope", "vrai_prod_0123456789abcdefghijkl", "vrai_live_short"]) {
      const response = await server.post("/v1/email", key, { email: "deliverable@vrai.test" });
      assert.equal(response.status, 401, key);
      assert.equal(await type(response), "invalid-api-key");
    }
  });

  await t.test("a well-formed unknown key answers 401 invalid-api-key", async () => {
    const response = await server.post("/v1/email", "vrai_live_0123456789abcdefghijkl", {
      email: "deliverable@vrai.test",
    });
    assert.equal(response.status, 401);
  });

  await t.test("a revoked key answers 401 revoked-api-key", async () => {
    const key = await server.key({ mode: "test" });
    await revokeKey(server.core.db.sql, key);
    const response = await server.post("/v1/email", key, { email: "deliverable@vrai.test" });
    assert.equal(response.status, 401);
    assert.equal(await type(response), "revoked-api-key");
  });

  await t.test("a key revoked while in use is refused within 5 seconds", async () => {
    const key = await server.key({ mode: "test" });
    assert.equal((await server.post("/v1/email", key, { email: "deliverable@vrai.test" })).status, 200);
    await revokeKey(server.core.db.sql, key);
    // The key was cached by the call above, before the revocation: the cache's life bounds the wait.
    const status = await eventually(
      "the revoked key to be refused",
      async () => (await server.post("/v1/email", key, { email: "deliverable@vrai.test" })).status,
      {
        until: (status) => status !== 200,
        timeoutMs: KEY_CACHE_TTL_MS + REVOCATION_POLL_MS,
        intervalMs: REVOCATION_POLL_MS,
      },
    );
    assert.equal(status, 401);
  });

  await t.test("a key without the endpoint answers 403 endpoint-not-allowed", async () => {
    const key = await server.key({ mode: "test", endpoints: ["address"] });
    const email = await server.post("/v1/email", key, { email: "deliverable@vrai.test" });
    assert.equal(email.status, 403);
    assert.equal(await type(email), "endpoint-not-allowed");
    const bulk = await server.post("/v1/email/bulk", key, { emails: ["deliverable@vrai.test"] });
    assert.equal(bulk.status, 403, "bulk needs the email permission");
    const address = await server.post("/v1/address", key, { line: "1 Rue Deliverable, 00000 Testville" });
    assert.equal(address.status, 200);
  });

  await t.test("only the SHA-256 and the first 12 characters of a key are stored", async () => {
    const key = await server.key({ mode: "live" });
    const [row] = await server.core.db.sql`select * from api_keys where prefix = ${key.slice(0, 12)}`;
    assert.deepEqual(Buffer.from(row.hash), hashApiKey(key));
    const stored = JSON.stringify(await server.core.db.sql`select * from api_keys`);
    assert.ok(!stored.includes(key.slice(12)), "no part of the secret beyond the prefix is stored");
    assert.ok((await listKeys(server.core.db.sql)).some((k) => k.prefix === key.slice(0, 12)));
  });
});
