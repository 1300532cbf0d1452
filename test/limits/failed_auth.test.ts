// Failed authentications are limited per client address (issue 15 item 7), over HTTP as a client sees it: after the
// allowance, calls without a known key get 429 rate-limit-exceeded with Retry-After, before any key lookup; another
// address, and a key already known valid, are unaffected; once the bucket refills, the address may try again.
import { test } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { statementsSentBy } from "../helpers/database.ts";
import { createFailedAuthLimiter } from "../../src/limits/failed_auth_limiter.ts";

const EMAIL = JSON.stringify({ email: "deliverable@vrai.test" });

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  type: string | undefined;
}

/** POST /v1/email from a chosen local address (the loopback network is 127.0.0.0/8). */
function postFrom(server: TestServer, from: string, key: string | undefined): Promise<Answer> {
  const url = new URL("/v1/email", server.url);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: "POST",
        localAddress: from,
        agent: false,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(EMAIL),
          ...(key ? { authorization: `Bearer ${key}` } : {}),
        },
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => (body += chunk));
        res.on("end", () => {
          const type = res.statusCode === 200 ? undefined : (JSON.parse(body).type as string).split("/").pop();
          resolve({ status: res.statusCode ?? 0, headers: res.headers, type });
        });
      },
    );
    req.on("error", reject);
    req.end(EMAIL);
  });
}

let guesses = 0;
/** A well-formed key nobody holds, different each time (so that no cache answers for it). */
function guessedKey(): string {
  return `vrai_live_${String(++guesses).padStart(22, "0")}`;
}

test("failed authentications are limited per client address, before any key lookup", async (t) => {
  const server = await startTestServer(t);
  const perMinute = 5;
  let clock = Date.parse("2026-11-25T09:00:00Z");
  // The limiter is a boundary with a clock: swapped for one whose minute the test moves.
  server.services.failedAuth = createFailedAuthLimiter({ perMinute, now: () => clock });
  const A = "127.0.0.1";
  const B = "127.0.0.2";
  const known = await server.key({ mode: "test" });
  const fresh = await server.key({ mode: "test" });
  const elsewhere = await server.key({ mode: "test" });
  assert.equal((await postFrom(server, A, known)).status, 200, "the known key is used once before the flood");

  await t.test(`${perMinute} wrong keys are answered 401, the next ones 429 with Retry-After`, async () => {
    // A guessed key costs a lookup while the address has failures left.
    const { value: first, statements } = await statementsSentBy(server.core.db.sql, () =>
      postFrom(server, A, guessedKey()),
    );
    assert.equal(first.status, 401);
    assert.ok(
      statements.some((s) => /api_keys/.test(s)),
      "an unknown key is looked up",
    );
    for (let i = 1; i < perMinute; i++) {
      const answer = await postFrom(server, A, i % 2 === 0 ? "not-even-a-key" : guessedKey());
      assert.equal(answer.status, 401, `failure ${i + 1}`);
    }
    const refused = await postFrom(server, A, guessedKey());
    assert.equal(refused.status, 429);
    assert.equal(refused.type, "rate-limit-exceeded");
    // One failure comes back every 60 / perMinute seconds.
    assert.equal(refused.headers["retry-after"], String(60 / perMinute));
    assert.equal(refused.headers["www-authenticate"], undefined, "a 429 is not an authentication challenge");
  });

  await t.test("a refused guess costs no database work", async () => {
    const { value, statements } = await statementsSentBy(server.core.db.sql, () => postFrom(server, A, guessedKey()));
    assert.equal(value.status, 429);
    assert.deepEqual(statements, []);
    assert.equal((await postFrom(server, A, undefined)).status, 429, "no key at all is refused too");
  });

  await t.test("a key already known valid still works from the limited address; a never-seen one waits", async () => {
    assert.equal((await postFrom(server, A, known)).status, 200);
    const waiting = await postFrom(server, A, fresh);
    assert.equal(waiting.status, 429, "a key never looked up cannot be told from a guess without a lookup");
  });

  await t.test("another address is unaffected: a valid key works, a wrong one is a plain 401", async () => {
    assert.equal((await postFrom(server, B, elsewhere)).status, 200);
    const wrong = await postFrom(server, B, guessedKey());
    assert.equal(wrong.status, 401);
    assert.equal(wrong.type, "invalid-api-key");
  });

  await t.test("once the bucket refills, the address may try again", async () => {
    clock += (60 / perMinute) * 1000;
    assert.equal((await postFrom(server, A, guessedKey())).status, 401, "one failure came back");
    assert.equal((await postFrom(server, A, guessedKey())).status, 429);
    clock += 60_000;
    for (let i = 0; i < perMinute; i++) assert.equal((await postFrom(server, A, guessedKey())).status, 401);
    assert.equal((await postFrom(server, A, guessedKey())).status, 429);
    clock += 60_000;
    assert.equal((await postFrom(server, A, fresh)).status, 200, "a valid key after the window");
  });
});

test("AUTH_FAILURES_PER_MINUTE sets the allowance of a server", async (t) => {
  const server = await startTestServer(t, { env: { AUTH_FAILURES_PER_MINUTE: "2" } });
  const statuses = [];
  for (let i = 0; i < 3; i++) statuses.push((await server.post("/v1/email", guessedKey(), {})).status);
  assert.deepEqual(statuses, [401, 401, 429]);
});
