// Hostile clients and hostile Host headers (docs/decisions.md "Hostile clients"): no input makes a 500, every refusal
// is a problem document, the route comes from the request target alone, and slow clients are cut off after seconds.
import { test } from "node:test";
import assert from "node:assert/strict";
import { connect } from "node:net";
import { startTestServer } from "../helpers/server.ts";
import { createApp } from "../../src/http/app.ts";
import { serve } from "../../src/http/serve.ts";
import { silentLogger } from "../../src/log.ts";
import { rawRequest, type RawAnswer } from "./raw_http.ts";

function assertProblemAnswer(answer: RawAnswer, status: number, slug: string, base: string): void {
  assert.equal(answer.status, status, answer.body);
  assert.equal(answer.headers["content-type"], "application/problem+json");
  const body = JSON.parse(answer.body);
  assert.equal(body.type, `${base}/errors/${slug}`);
  assert.equal(body.status, status);
  assert.equal(typeof body.title, "string");
  assert.equal(typeof body.detail, "string");
}

test("hostile requests", async (t) => {
  const server = await startTestServer(t);
  const key = await server.key({ mode: "test" });
  const host = new URL(server.url).host;
  const get = (path: string, headers = "") =>
    rawRequest(server.url, `GET ${path} HTTP/1.1\r\nHost: ${host}\r\n${headers}Connection: close\r\n\r\n`);

  await t.test("a malformed percent-escape in a path is a 404, never a 500", async () => {
    for (const path of ["/v1/jobs/%", "/v1/jobs/%E0%A4%A", "/v1/jobs/%C0%AF", "/v1/jobs/%ff"]) {
      assertProblemAnswer(await get(path, `Authorization: Bearer ${key}\r\n`), 404, "job-not-found", server.url);
    }
    // Authentication still comes first on the job read.
    assertProblemAnswer(await get("/v1/jobs/%"), 401, "invalid-api-key", server.url);
    for (const path of ["/errors/%ff", "/errors/%", "/v1/%ZZ", "/%E0%A4%A"]) {
      assertProblemAnswer(await get(path), 404, "not-found", server.url);
    }
    const options = await rawRequest(
      server.url,
      `OPTIONS /v1/jobs/%C0%AF HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
    );
    assertProblemAnswer(options, 405, "method-not-allowed", server.url);
    // A well-formed escape still reaches its page.
    assert.equal((await get("/errors/not%2Dfound")).status, 200);
  });

  await t.test("strings PostgreSQL cannot hold are refused at validation, naming the member and index", async () => {
    const cases: Array<[string, string, string]> = [
      ["/v1/email/bulk", '{"emails":["a@vrai.test","x\\u0000y@vrai.test"]}', "emails[1]"],
      ["/v1/email/bulk", '{"emails":["\\ud800@vrai.test"]}', "emails[0]"],
      ["/v1/email/bulk", '{"emails":["ok@vrai.test","ok2@vrai.test","\\udc00"]}', "emails[2]"],
      ["/v1/email", '{"email":"deliverable\\u0000@vrai.test"}', "email"],
      ["/v1/address", '{"street":"Rue\\u0000"}', "street"],
      ["/v1/signup", '{"address":{"line":"1 \\udbff Rue"}}', "address.line"],
    ];
    for (const [path, body, member] of cases) {
      const response = await server.post(path, key, body);
      assert.equal(response.status, 400, `${path} ${body}`);
      const problem = (await response.json()) as { type: string; detail: string; errors: Array<{ member: string }> };
      assert.equal(problem.type, `${server.url}/errors/invalid-request`);
      assert.deepEqual(
        problem.errors.map((e) => e.member),
        [member],
      );
      assert.ok(
        problem.detail.includes(`${member} must not hold a NUL character or an unpaired surrogate`),
        problem.detail,
      );
    }
    // A surrogate pair (an emoji) is fine text.
    assert.notEqual((await server.post("/v1/email", key, { email: "😀@vrai.test" })).status, 500);
  });

  await t.test("a JSON body that is not an object is a 400 on every endpoint", async () => {
    for (const path of ["/v1/email", "/v1/address", "/v1/signup", "/v1/email/bulk"]) {
      for (const body of ["[]", '"text"', "1", "null", "true", '[{"email":"deliverable@vrai.test"}]']) {
        const response = await server.post(path, key, body);
        assert.equal(response.status, 400, `${path} ${body}`);
        const problem = (await response.json()) as { type: string; detail: string };
        assert.equal(problem.type, `${server.url}/errors/invalid-request`);
        assert.match(problem.detail, /must be a JSON object/);
      }
    }
  });

  await t.test("every refusal of node's parser is a problem document, and the connection closes", async () => {
    const cases: Array<[string, number, string]> = [
      ["GARBAGE\r\n\r\n", 400, "invalid-request"],
      ["GET /v1/openapi.json HTTP/9.9\r\nHost: x\r\n\r\n", 400, "invalid-request"],
      ["G@T / HTTP/1.1\r\nHost: x\r\n\r\n", 400, "invalid-request"],
      ["GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header: x\r\n\r\n", 400, "invalid-request"],
      [`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`, 400, "request-failed"],
      [
        "POST /v1/email HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n",
        400,
        "invalid-request",
      ],
      [
        "POST /v1/email HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
        400,
        "invalid-request",
      ],
      [
        "POST /v1/email HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: the-moon\r\nContent-Length: 2\r\n\r\n{}",
        400,
        "request-failed",
      ],
      ["GET /healthz HTTP/1.1\r\n\r\n", 400, "invalid-request"], // HTTP/1.1 without Host
    ];
    for (const [request, status, slug] of cases) {
      const answer = await rawRequest(server.url, request);
      assertProblemAnswer(answer, status, slug, server.url);
      assert.equal(answer.headers.connection, "close", request.slice(0, 40));
      assert.ok(answer.closed, `the server closes the connection after ${JSON.stringify(request.slice(0, 40))}`);
    }
  });

  await t.test("the route comes from the request target only, never from Host", async () => {
    for (const value of ["x/v1/email/bulk?", "x/v1/openapi.json?", "x#y", "x y", "a@b", "x\\y"]) {
      const answer = await rawRequest(
        server.url,
        `POST /v1/email HTTP/1.1\r\nHost: ${value}\r\nContent-Type: application/json\r\nAuthorization: Bearer ${key}\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
      );
      if (answer.status === 400 && JSON.parse(answer.body).type.endsWith("/invalid-request")) continue;
      assert.fail(`Host ${JSON.stringify(value)} answered ${answer.status} ${answer.body}`);
    }
    const healthz = await rawRequest(
      server.url,
      "GET /healthz HTTP/1.1\r\nHost: x/v1/openapi.json?\r\nConnection: close\r\n\r\n",
    );
    assertProblemAnswer(healthz, 400, "invalid-request", server.url);
    // Two Host headers are refused; an empty one, a name with a port and an IPv6 literal are fine.
    const twice = await rawRequest(
      server.url,
      "GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n",
    );
    assertProblemAnswer(twice, 400, "invalid-request", server.url);
    for (const value of ["", "api.example.com:8443", "[::1]:8080", "127.0.0.1"]) {
      const answer = await rawRequest(
        server.url,
        `GET /healthz HTTP/1.1\r\nHost: ${value}\r\nConnection: close\r\n\r\n`,
      );
      assert.equal(answer.status, 200, value);
    }
    // An absolute-form target routes by its path; problem types and poll URLs come from PUBLIC_URL, never Host.
    const absolute = await rawRequest(
      server.url,
      `GET http://evil.example/v1/nothing HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n`,
    );
    assertProblemAnswer(absolute, 404, "not-found", server.url);
    const bulk = await rawRequest(
      server.url,
      `POST /v1/email/bulk HTTP/1.1\r\nHost: evil.example\r\nContent-Type: application/json\r\nAuthorization: Bearer ${key}\r\nContent-Length: 36\r\nConnection: close\r\n\r\n{"emails":["deliverable@vrai.test"]}`,
    );
    assert.equal(bulk.status, 202, bulk.body);
    assert.ok(JSON.parse(bulk.body).poll.startsWith(`${server.url}/v1/jobs/`));
    assert.ok(bulk.headers.location.startsWith(`${server.url}/v1/jobs/`));
    const star = await rawRequest(server.url, `OPTIONS * HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
    assertProblemAnswer(star, 400, "invalid-request", server.url);
  });
});

test("slow clients are cut off after the configured limits with a 408 problem, and connections are capped", async (t) => {
  const base = await startTestServer(t);
  const app = createApp(base.services);
  const server = await serve(app, {
    port: 0,
    host: "127.0.0.1",
    log: silentLogger,
    limits: { headersTimeoutMs: 600, requestTimeoutMs: 1200, keepAliveTimeoutMs: 300, maxConnections: 20 },
  });
  t.after(() => server.close(500));
  const key = await base.key({ mode: "test" });
  const errorsBase = base.url; // PUBLIC_URL of the shared services

  // Headers trickled one line a 200 ms: cut at the headers limit (checked every 150 ms).
  const headerLines = ["POST /v1/email HTTP/1.1\r\n", ...Array.from({ length: 30 }, (_, i) => `X-Slow-${i}: 1\r\n`)];
  const slowHeaders = await rawRequest(server.url, "", { pieces: headerLines, delayMs: 200, timeoutMs: 5000 });
  assertProblemAnswer(slowHeaders, 408, "request-timeout", errorsBase);
  assert.ok(slowHeaders.closed && slowHeaders.ms < 1500, `cut after ${Math.round(slowHeaders.ms)} ms`);

  // A body trickled one byte a 100 ms: cut at the request limit.
  const body = JSON.stringify({ email: "deliverable@vrai.test" });
  const head = `POST /v1/email HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer ${key}\r\nContent-Length: ${body.length}\r\n\r\n`;
  const slowBody = await rawRequest(server.url, "", { pieces: [head, ...body], delayMs: 100, timeoutMs: 5000 });
  assertProblemAnswer(slowBody, 408, "request-timeout", errorsBase);
  assert.ok(slowBody.closed && slowBody.ms < 2200, `cut after ${Math.round(slowBody.ms)} ms`);

  // An idle keep-alive connection is closed after its limit.
  const idle = await rawRequest(server.url, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", { timeoutMs: 3000 });
  assert.equal(idle.status, 200);
  assert.ok(idle.closed && idle.ms < 1500, `idle connection closed after ${Math.round(idle.ms)} ms`);

  // Beyond the cap, a connection is closed on arrival; a request still gets through once the others are gone.
  const held = await Promise.all(
    Array.from(
      { length: 20 },
      () =>
        new Promise<ReturnType<typeof connect>>((resolve) => {
          const socket = connect(server.port, "127.0.0.1", () => resolve(socket));
          socket.on("error", () => {});
        }),
    ),
  );
  await new Promise((r) => setTimeout(r, 100));
  const refused = await rawRequest(server.url, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", { timeoutMs: 2000 });
  assert.equal(refused.status, 0);
  assert.ok(refused.closed);
  for (const socket of held) socket.destroy();
  await new Promise((r) => setTimeout(r, 100));
  const after = await rawRequest(server.url, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  assert.equal(after.status, 200);
});
