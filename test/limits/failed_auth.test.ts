// Failed authentications are limited per client address, over HTTP as a client sees it: after the allowance, calls
// with a guessed key (or none) get 429 rate-limit-exceeded with Retry-After, with no key lookup; a valid key from that
// same address (a shared NAT), known or never seen, is answered; another address is unaffected; once the bucket
// refills, the address may try again.
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

  await t.test(
    "refused guesses cost no key lookup: at most one read of the keys' hashes a second, whatever their number",
    async () => {
      const guesses = 40;
      const began = Date.now();
      const { value, statements } = await statementsSentBy(server.core.db.sql, async () => {
        const statuses: number[] = [];
        for (let i = 0; i < guesses; i++) statuses.push((await postFrom(server, A, guessedKey())).status);
        return statuses;
      });
      const seconds = Math.ceil((Date.now() - began) / 1000);
      assert.deepEqual(value, Array(guesses).fill(429));
      assert.deepEqual(
        statements.filter((s) => !/^select hash from api_keys where revoked_at is null$/.test(s)),
        [],
        "a guess was looked up",
      );
      assert.ok(statements.length <= seconds + 1, `${statements.length} reads of the keys in ${seconds} s`);
      assert.equal((await postFrom(server, A, undefined)).status, 429, "no key at all is refused too");
    },
  );

  await t.test("a valid key from the limited address is answered, known or never seen (a shared NAT)", async () => {
    assert.equal((await postFrom(server, A, known)).status, 200);
    assert.equal((await postFrom(server, A, fresh)).status, 200, "a valid key never looked up before");
    assert.equal((await postFrom(server, A, fresh)).status, 200, "and again, from the cache");
    // A key made while the address is limited is seen within a second.
    const made = await server.key({ mode: "test" });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    assert.equal((await postFrom(server, A, made)).status, 200, "a key made during the flood");
    // The guesses around them are still refused.
    assert.equal((await postFrom(server, A, guessedKey())).status, 429);
  });

  await t.test("a revoked key from the limited address is refused 429 like a guess", async () => {
    const revoked = await server.key({ mode: "test" });
    await server.core.db
      .sql`update api_keys set revoked_at = now() where revoked_at is null and prefix = ${revoked.slice(0, 12)}`;
    await new Promise((resolve) => setTimeout(resolve, 1100));
    assert.equal((await postFrom(server, A, revoked)).status, 429);
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
    assert.equal((await postFrom(server, A, elsewhere)).status, 200, "a valid key after the window");
  });
});

test("AUTH_FAILURES_PER_MINUTE sets the allowance of a server", async (t) => {
  const server = await startTestServer(t, { env: { AUTH_FAILURES_PER_MINUTE: "2" } });
  const statuses = [];
  for (let i = 0; i < 3; i++) statuses.push((await server.post("/v1/email", guessedKey(), {})).status);
  assert.deepEqual(statuses, [401, 401, 429]);
});
