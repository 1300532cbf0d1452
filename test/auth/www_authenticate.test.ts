// Every 401 says how to authenticate (RFC 6750 §3): `WWW-Authenticate: Bearer realm="vrai"`, with
// `error="invalid_token"` when a key was sent and is wrong, and no error attribute when none was sent.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer } from "../helpers/server.ts";
import { revokeKey } from "../../src/auth/key_store.ts";

const EMAIL = { email: "deliverable@vrai.test" };

test("401 answers carry WWW-Authenticate: Bearer realm, with error=invalid_token only when a key was sent", async (t) => {
  const server = await startTestServer(t);
  const revoked = await server.key({ mode: "test" });
  await revokeKey(server.core.db.sql, revoked);
  const cases: Array<[string, () => Promise<Response>, string]> = [
    ["no Authorization header", () => server.post("/v1/email", undefined, EMAIL), 'Bearer realm="vrai"'],
    [
      "another scheme than Bearer",
      () => server.post("/v1/email", undefined, EMAIL, { authorization: "Basic dXNlcjpwYXNz" }),
      'Bearer realm="vrai"',
    ],
    ["no key on a job read", () => server.get("/v1/jobs/00000000-0000-0000-0000-000000000000"), 'Bearer realm="vrai"'],
    ["a malformed key", () => server.post("/v1/email", "nope", EMAIL), 'Bearer realm="vrai", error="invalid_token"'],
    [
      "an unknown key",
      () =>
        server.post("/v1/address", "vrai_live_0123456789abcdefghijkl", { line: "1 Rue Deliverable, 00000 Testville" }),
      'Bearer realm="vrai", error="invalid_token"',
    ],
    ["a revoked key", () => server.post("/v1/email", revoked, EMAIL), 'Bearer realm="vrai", error="invalid_token"'],
    [
      "an unknown key on a job read",
      () => server.get("/v1/jobs/00000000-0000-0000-0000-000000000000", "vrai_test_0123456789abcdefghijkl"),
      'Bearer realm="vrai", error="invalid_token"',
    ],
  ];
  for (const [name, call, expected] of cases) {
    const response = await call();
    assert.equal(response.status, 401, name);
    assert.equal(response.headers.get("www-authenticate"), expected, name);
    assert.equal(response.headers.get("content-type"), "application/problem+json", name);
  }
});

test("answers other than 401 carry no WWW-Authenticate", async (t) => {
  const server = await startTestServer(t);
  const key = await server.key({ mode: "test", endpoints: ["address"] });
  const ok = await server.post("/v1/address", key, { line: "1 Rue Deliverable, 00000 Testville" });
  assert.equal(ok.status, 200);
  assert.equal(ok.headers.get("www-authenticate"), null);
  const forbidden = await server.post("/v1/email", key, EMAIL);
  assert.equal(forbidden.status, 403);
  assert.equal(forbidden.headers.get("www-authenticate"), null);
});
