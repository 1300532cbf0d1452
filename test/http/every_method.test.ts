// Every method node's HTTP parser knows, and the request forms it hands over apart (CONNECT's tunnel, an Upgrade) or
// refuses, gets an answer: a problem document (405 with Allow, 404, 400, or the route's own refusal), never a socket
// closed in silence. Spoken over a raw socket, since fetch() sends neither CONNECT nor most of these methods.
import { test } from "node:test";
import assert from "node:assert/strict";
import { METHODS } from "node:http";
import { startTestServer } from "../helpers/server.ts";
import { rawRequest, type RawAnswer } from "./raw_http.ts";

function assertProblem(answer: RawAnswer, what: string): Record<string, unknown> {
  assert.ok(answer.status >= 400 && answer.status < 500, `${what}: status ${answer.status}, body ${answer.body}`);
  assert.equal(answer.headers["content-type"], "application/problem+json", what);
  const body = JSON.parse(answer.body) as Record<string, unknown>;
  assert.equal(body.status, answer.status, what);
  assert.equal(typeof body.type, "string", what);
  assert.equal(typeof body.detail, "string", what);
  return body;
}

test("every method gets an answer", async (t) => {
  const server = await startTestServer(t);
  const host = new URL(server.url).host;
  const send = (head: string, options: { timeoutMs?: number } = {}) =>
    rawRequest(server.url, `${head}\r\n\r\n`, { timeoutMs: options.timeoutMs ?? 3000 });

  await t.test("CONNECT to a path of ours: 405 with the path's Allow, and the connection closes", async () => {
    const answer = await send(`CONNECT /v1/email HTTP/1.1\r\nHost: ${host}`);
    assert.equal(answer.status, 405, answer.body);
    assertProblem(answer, "CONNECT /v1/email");
    assert.equal(answer.headers.allow, "POST");
    assert.equal(answer.closed, true);
  });

  await t.test("CONNECT to another host (a tunnel asked of a proxy we are not): a 400 problem", async () => {
    for (const target of ["example.com:443", "127.0.0.1:25", "[::1]:22"]) {
      const answer = await send(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}`);
      assert.equal(answer.status, 400, `${target}: ${answer.body}`);
      const body = assertProblem(answer, `CONNECT ${target}`);
      assert.match(String(body.detail), /CONNECT|proxy|tunnel/i);
      assert.equal(answer.closed, true);
    }
  });

  await t.test(
    "CONNECT with bytes after the head (a client that starts its tunnel at once) is still answered",
    async () => {
      const answer = await rawRequest(
        server.url,
        `CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n\x16\x03\x01\x00\x05hello`,
      );
      assert.equal(answer.status, 400, answer.body);
      assertProblem(answer, "CONNECT with early bytes");
    },
  );

  await t.test(
    "every method node parses, on a path that exists: an answer, a problem unless the method is allowed",
    async () => {
      for (const method of METHODS) {
        const answer = await send(`${method} /v1/email HTTP/1.1\r\nHost: ${host}\r\nConnection: close`);
        assert.notEqual(answer.status, 0, `${method}: no answer; the socket was closed in silence`);
        if (method === "POST") {
          assert.equal(answer.status, 401, answer.body); // no key: the route's own refusal
        } else if (method === "OPTIONS") {
          assert.ok(answer.status < 500, `${method}: ${answer.status}`);
          continue;
        } else {
          assert.equal(answer.status, 405, `${method}: ${answer.status} ${answer.body}`);
          assert.equal(answer.headers.allow, "POST", method);
        }
        if (method !== "HEAD") assertProblem(answer, method);
      }
    },
  );

  await t.test("every method node parses, on a path that does not exist: 404", async () => {
    for (const method of METHODS) {
      const answer = await send(`${method} /nowhere HTTP/1.1\r\nHost: ${host}\r\nConnection: close`);
      assert.notEqual(answer.status, 0, `${method}: no answer; the socket was closed in silence`);
      if (method === "OPTIONS") continue;
      assert.equal(answer.status, 404, `${method}: ${answer.status} ${answer.body}`);
      if (method !== "HEAD") assertProblem(answer, method);
    }
  });

  await t.test("methods the parser refuses, and other protocols' openings: a 400 problem", async () => {
    for (const head of [
      `FROB /v1/email HTTP/1.1\r\nHost: ${host}`,
      `get /v1/email HTTP/1.1\r\nHost: ${host}`,
      `DESCRIBE rtsp://example.com/a RTSP/1.0\r\nCSeq: 1`,
      "PRI * HTTP/2.0\r\n\r\nSM",
    ]) {
      const answer = await send(head);
      assert.equal(answer.status, 400, `${JSON.stringify(head)}: ${answer.status} ${answer.body}`);
      assertProblem(answer, head);
    }
    // An HTTP/2.0 version in an HTTP/1 request line is read as the request it names.
    const h2 = await send(`GET /v1/email HTTP/2.0\r\nHost: ${host}`);
    assert.equal(h2.status, 405, h2.body);
    assertProblem(h2, "GET with HTTP/2.0");
  });

  await t.test("an Upgrade request (WebSocket, h2c) is answered as the plain request it also is", async () => {
    for (const upgrade of ["websocket", "h2c"]) {
      const answer = await send(
        `GET /v1/email HTTP/1.1\r\nHost: ${host}\r\nConnection: Upgrade\r\nUpgrade: ${upgrade}\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13`,
      );
      assert.equal(answer.status, 405, `${upgrade}: ${answer.status} ${answer.body}`);
      assertProblem(answer, `Upgrade: ${upgrade}`);
      const health = await send(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\nConnection: Upgrade\r\nUpgrade: ${upgrade}`);
      assert.equal(health.status, 200, `${upgrade} /healthz: ${health.status} ${health.body}`);
    }
  });
});
