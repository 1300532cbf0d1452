import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer } from "../helpers/server.ts";
import { PROBLEM_TYPES } from "../../src/http/errors.ts";

async function assertProblem(response: Response, status: number, slug: string, base: string) {
  assert.equal(response.status, status);
  assert.equal(response.headers.get("content-type"), "application/problem+json");
  const body = await response.json();
  assert.equal(body.type, `${base}/errors/${slug}`);
  assert.equal(body.status, status);
  assert.equal(typeof body.title, "string");
  assert.equal(typeof body.detail, "string");
  assert.ok(!JSON.stringify(body).includes("    at "), "no stack trace");
  return body;
}

test("every failure is a problem document", async (t) => {
  const server = await startTestServer(t);
  const key = await server.key({ mode: "test" });

  await t.test("an unknown route answers 404 not-found", async () => {
    await assertProblem(await server.get("/v1/nothing", key), 404, "not-found", server.url);
  });

  await t.test("a wrong method answers 405 with Allow", async () => {
    const response = await fetch(`${server.url}/v1/email`, {
      method: "GET",
      headers: { authorization: `Bearer ${key}` },
    });
    await assertProblem(response, 405, "method-not-allowed", server.url);
    assert.equal(response.headers.get("allow"), "POST");
  });

  await t.test("a body that is not JSON by content type answers 415", async () => {
    const response = await server.post("/v1/email", key, "email=a@b.c", {
      "content-type": "application/x-www-form-urlencoded",
    });
    await assertProblem(response, 415, "unsupported-media-type", server.url);
    assert.ok(response.headers.get("x-ratelimit-limit"), "rate headers on every verification response");
  });

  await t.test("malformed JSON answers 400 invalid-request", async () => {
    const body = await assertProblem(
      await server.post("/v1/email", key, '{"email": '),
      400,
      "invalid-request",
      server.url,
    );
    assert.match(body.detail, /malformed JSON/);
  });

  await t.test("a wrong type answers 400 naming the member", async () => {
    const body = await assertProblem(
      await server.post("/v1/email", key, { email: 42 }),
      400,
      "invalid-request",
      server.url,
    );
    assert.equal(body.detail, "Cannot validate body: email must be a string of at most 320 characters, got a number");
    assert.deepEqual(body.errors, [
      { member: "email", message: "email must be a string of at most 320 characters, got a number" },
    ]);
  });

  await t.test("an email longer than 320 characters answers 400", async () => {
    const email = `${"a".repeat(320)}@vrai.test`;
    const body = await assertProblem(
      await server.post("/v1/email", key, { email }),
      400,
      "invalid-request",
      server.url,
    );
    assert.equal(body.detail, "Cannot validate body: email must be a string of at most 320 characters (it has 330)");
  });

  await t.test("validation failures are told in plain words, naming the member path", async () => {
    const cases: Array<[string, unknown, Array<[string, string]>]> = [
      [
        "/v1/email",
        { mail: "deliverable@vrai.test" },
        [
          ["email", "email is required"],
          ["mail", 'unexpected member "mail"'],
        ],
      ],
      ["/v1/email", {}, [["email", "email is required"]]],
      [
        "/v1/email/bulk",
        { emails: ["a@vrai.test", "b@vrai.test", "c@vrai.test", 4] },
        [["emails[3]", "emails[3] must be a string of at most 320 characters, got a number"]],
      ],
      ["/v1/email/bulk", { emails: [] }, [["emails", "emails must not be empty"]]],
      ["/v1/email/bulk", { emails: "a@vrai.test" }, [["emails", "emails must be an array, got a string"]]],
      ["/v1/signup", { address: "1 Rue Deliverable" }, [["address", "address must be an object, got a string"]]],
      [
        "/v1/signup",
        { address: { line: 1, zip: "00000" } },
        [
          ["address.line", "address.line must be a string of at most 1000 characters, got a number"],
          ["address.zip", 'unexpected member "address.zip"'],
        ],
      ],
      ["/v1/address", { city: null }, [["city", "city must be a string of at most 300 characters, got null"]]],
    ];
    for (const [path, sent, expected] of cases) {
      const body = await assertProblem(await server.post(path, key, sent), 400, "invalid-request", server.url);
      const what = `${path} ${JSON.stringify(sent)}`;
      assert.deepEqual(
        body.errors.map((e: { member: string; message: string }) => [e.member, e.message]),
        expected,
        what,
      );
      assert.equal(body.detail, `Cannot validate body: ${expected.map(([, message]) => message).join("; ")}`, what);
      // Nothing of valibot's wording, which reads like a problem with the API key.
      assert.doesNotMatch(body.detail, /Invalid (key|type|length)|Expected/, what);
    }
    // Unknown members alone are ignored: a valid request with one more member is answered.
    const extra = await server.post("/v1/email", key, { email: "deliverable@vrai.test", mail: "x" });
    assert.equal(extra.status, 200);
  });

  await t.test("a body over 64 KiB on a single call answers 400", async () => {
    const body = await assertProblem(
      await server.post("/v1/address", key, { line: "x".repeat(70 * 1024) }),
      400,
      "invalid-request",
      server.url,
    );
    assert.match(body.detail, /exceeds 65536 bytes/);
  });

  await t.test("a body over 2 MiB on bulk answers 413 batch-too-large", async () => {
    const emails = Array.from({ length: 70_000 }, (_, i) => `user${i}@example.com`);
    await assertProblem(await server.post("/v1/email/bulk", key, { emails }), 413, "batch-too-large", server.url);
  });

  await t.test("signup with neither email nor address answers 400", async () => {
    await assertProblem(await server.post("/v1/signup", key, { country: "FR" }), 400, "invalid-request", server.url);
  });

  await t.test("signup with two different countries answers 400", async () => {
    const response = await server.post("/v1/signup", key, {
      country: "FR",
      address: { line: "1 Rue Deliverable, 00000 Testville", country: "DE" },
    });
    await assertProblem(response, 400, "invalid-request", server.url);
  });
});

test("GET /errors/<slug> explains every slug, without a key", async (t) => {
  const server = await startTestServer(t);
  for (const [slug, type] of Object.entries(PROBLEM_TYPES)) {
    const response = await server.get(`/errors/${slug}`);
    assert.equal(response.status, 200, slug);
    const html = await response.text();
    assert.ok(html.includes(type.title.replace(/&/g, "&amp;")), slug);
  }
  assert.equal((await server.get("/errors/nope")).status, 404);
});

test("GET /v1/openapi.json describes every path, schema and status, without a key", async (t) => {
  const server = await startTestServer(t);
  const response = await server.get("/v1/openapi.json");
  assert.equal(response.status, 200);
  const doc = await response.json();
  assert.equal(doc.openapi, "3.1.0");
  assert.equal(doc.info.version, "1.0.0");
  assert.deepEqual(Object.keys(doc.paths).sort(), [
    "/metrics",
    "/v1/account/callback-secret",
    "/v1/address",
    "/v1/address/bulk",
    "/v1/email",
    "/v1/email/bulk",
    "/v1/jobs/{id}",
    "/v1/jobs/{id}/results.csv",
    "/v1/signup",
  ]);
  for (const path of ["/v1/email", "/v1/address", "/v1/signup"]) {
    assert.deepEqual(Object.keys(doc.paths[path].post.responses).sort(), [
      "200",
      "400",
      "401",
      "402",
      "403",
      "415",
      "429",
      "500",
      "503",
    ]);
    assert.ok(doc.paths[path].post.responses["200"].headers["X-Quota-Remaining"]);
  }
  assert.ok(doc.paths["/v1/email/bulk"].post.responses["413"]);
  assert.ok(doc.paths["/v1/email/bulk"].post.responses["202"].headers.Location);
  assert.deepEqual(Object.keys(doc.paths["/v1/jobs/{id}"].get.responses).sort(), [
    "200",
    "401",
    "403",
    "404",
    "429",
    "503",
  ]);
  const email = doc.components.schemas.EmailRequest;
  assert.equal(email.properties.email.maxLength, 320);
  assert.deepEqual(email.required, ["email"]);
  assert.ok(doc.components.schemas.EmailVerification.properties.checks.properties.catch_all.enum.includes("skipped"));
  assert.ok(doc.components.schemas.SignupVerification);
  assert.ok(doc.components.schemas.Job);
});

test("/healthz and /readyz answer without a key", async (t) => {
  const server = await startTestServer(t);
  assert.equal((await server.get("/healthz")).status, 200);
  const ready = await server.get("/readyz");
  assert.equal(ready.status, 200);
  assert.deepEqual((await ready.json()).checks, { database: true, address_index: true });
});

test("a fault answers 500 internal-error without a stack trace", async (t) => {
  const server = await startTestServer(t, {
    email: { verify: () => Promise.reject(new TypeError("boom at secret place")) },
  });
  const key = await server.key({ plan: "unmetered" });
  const response = await server.post("/v1/email", key, { email: "jane@example.com" });
  const body = await assertProblem(response, 500, "internal-error", server.url);
  assert.ok(!body.detail.includes("boom"));
});

test("an unreachable database answers 503 service-unavailable with Retry-After", async (t) => {
  const server = await startTestServer(t);
  const key = await server.key({ mode: "test" });
  // The key is cached now; then the database goes away.
  assert.equal((await server.post("/v1/email", key, { email: "deliverable@vrai.test" })).status, 200);
  const live = await server.key({ plan: "free" });
  await server.core.db.close();
  const response = await server.post("/v1/email", live, { email: "jane@example.com" });
  await assertProblem(response, 503, "service-unavailable", server.url);
  assert.equal(response.headers.get("retry-after"), "5");
});
