// Idempotency-Key on POST /v1/email/bulk, over HTTP on both databases: a submission sent again under its key gets the
// job it already has and is not charged again, a key sent with another list is refused, and requests racing with one
// key share one job. No job runner: what is asserted is the submission, not the verification.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import type { DatabaseKind } from "../helpers/database.ts";

const PLANS_FILE = (() => {
  const file = join(mkdtempSync(join(tmpdir(), "vrai-plans-")), "plans.json");
  const rate = { per_minute: 6000, burst: 0 };
  const plans = {
    bulk: { quota: { email: 5, address: 5 }, rate, batch_max: 10 },
    roomy: { quota: { email: 100, address: 100 }, rate, batch_max: 10 },
  };
  writeFileSync(file, JSON.stringify({ plans }));
  return file;
})();

const LIST = ["ann@gmial.com", "bob@mailinator.com", "not-an-email"];

const submit = (server: TestServer, key: string, idempotencyKey: string | undefined, emails = LIST) =>
  server.post(
    "/v1/email/bulk",
    key,
    { emails },
    idempotencyKey === undefined ? {} : { "idempotency-key": idempotencyKey },
  );

async function problem(response: Response) {
  assert.equal(response.headers.get("content-type"), "application/problem+json");
  return response.json();
}

for (const database of ["embedded", "postgres"] as DatabaseKind[]) {
  test(`${database}: a submission sent again under its Idempotency-Key gets the same job, uncharged, even once the quota is spent`, async (t) => {
    const server = await startTestServer(t, { database, env: { PLANS_FILE } });
    const key = await server.key({ plan: "bulk" });
    const first = await submit(server, key, "run-1/rows-1-3");
    assert.equal(first.status, 202);
    assert.equal(first.headers.get("idempotent-replayed"), null);
    assert.equal(first.headers.get("x-quota-remaining"), "2");
    const job = await first.json();

    // The quota is now too small for the list: a new job is refused, the replay is not.
    const again = await submit(server, key, "run-1/rows-1-3");
    assert.equal(again.status, 202);
    assert.equal(again.headers.get("idempotent-replayed"), "true");
    assert.equal(again.headers.get("x-quota-remaining"), "2", "the replay is not charged");
    assert.equal(again.headers.get("location"), job.poll);
    const replayed = await again.json();
    assert.deepEqual({ ...replayed, status: job.status }, job);
    // A quoted key (the draft's Structured Field string) is the same key.
    const quoted = await submit(server, key, '"run-1/rows-1-3"');
    assert.equal(quoted.status, 202);
    assert.equal((await quoted.json()).job_id, job.job_id);

    const fresh = await submit(server, key, "run-1/rows-4-6");
    assert.equal(fresh.status, 402, "another key is another job, charged (and refused here)");
    const unkeyed = await submit(server, key, undefined);
    assert.equal(unkeyed.status, 402);
  });

  test(`${database}: a key sent again with another list is a 400 request-failed that charges nothing; other accounts' keys are their own`, async (t) => {
    const server = await startTestServer(t, { database, env: { PLANS_FILE } });
    const key = await server.key({ plan: "bulk" });
    assert.equal((await submit(server, key, "k1", ["ann@gmial.com"])).status, 202);
    const other = await submit(server, key, "k1", ["bob@gmial.com"]);
    assert.equal(other.status, 400);
    assert.equal(other.headers.get("x-quota-remaining"), "4");
    const body = await problem(other);
    assert.match(body.type, /request-failed$/);
    assert.match(body.detail, /Idempotency-Key was sent before with another list/);
    assert.deepEqual(body.errors, [{ member: "Idempotency-Key", message: "used before for another list" }]);

    // Another account's job under the same key is no replay of this one's.
    const stranger = await server.key({ plan: "bulk" });
    const theirs = await submit(server, stranger, "k1", ["ann@gmial.com"]);
    assert.equal(theirs.status, 202);
    assert.equal(theirs.headers.get("idempotent-replayed"), null);
    assert.equal(theirs.headers.get("x-quota-remaining"), "4");
  });

  test(`${database}: requests racing with one key all get the one job, charged once`, async (t) => {
    const server = await startTestServer(t, { database, env: { PLANS_FILE } });
    // Room for every racer's charge: each is charged before its insert finds the key taken, then refunded.
    const key = await server.key({ plan: "roomy" });
    const answers = await Promise.all(Array.from({ length: 6 }, () => submit(server, key, "race", ["ann@gmial.com"])));
    assert.deepEqual(
      answers.map((a) => a.status),
      Array(6).fill(202),
    );
    const ids = new Set(await Promise.all(answers.map(async (a) => (await a.json()).job_id)));
    assert.equal(ids.size, 1);
    assert.equal(answers.filter((a) => a.headers.get("idempotent-replayed") === null).length, 1);
    const after = await submit(server, key, "after", ["ann@gmial.com"]);
    assert.equal(after.headers.get("x-quota-remaining"), "98", "one address charged once, then this one");
  });
}

test("a CSV file sent again under its key is a replay whatever its separator; test keys replay too", async (t) => {
  const server = await startTestServer(t, { env: { PLANS_FILE } });
  const key = await server.key({ plan: "bulk" });
  const csv = (text: string) =>
    fetch(`${server.url}/v1/email/bulk`, {
      method: "POST",
      headers: { "content-type": "text/csv", authorization: `Bearer ${key}`, "idempotency-key": "file-a" },
      body: text,
    });
  const first = await csv("email,name\r\nann@gmial.com,Ann\r\n");
  assert.equal(first.status, 202);
  const again = await csv('email;name\n"ann@gmial.com";Ann\n');
  assert.equal(again.status, 202);
  assert.equal(again.headers.get("idempotent-replayed"), "true");
  assert.equal((await again.json()).job_id, (await first.json()).job_id);
  assert.equal((await csv("email,name\r\nann@gmial.com,Anne\r\n")).status, 400, "a changed cell is another request");

  const testKey = await server.key({ mode: "test", plan: "bulk" });
  const reserved = { emails: ["deliverable@vrai.test"] };
  const headers = { "idempotency-key": "t" };
  const [a, b] = [
    await server.post("/v1/email/bulk", testKey, reserved, headers),
    await server.post("/v1/email/bulk", testKey, reserved, headers),
  ];
  assert.equal(b.headers.get("idempotent-replayed"), "true");
  assert.equal((await b.json()).job_id, (await a.json()).job_id);
});

test("a malformed Idempotency-Key is a 400 invalid-request naming the header, before anything is charged", async (t) => {
  const server = await startTestServer(t, { env: { PLANS_FILE } });
  const key = await server.key({ plan: "bulk" });
  for (const [value, reason] of [
    ["", /empty/],
    ['"unclosed', /quote/],
    ["x".repeat(256), /longer than 255/],
    ["clé", /printable ASCII/],
  ] as const) {
    const response = await server.post(
      "/v1/email/bulk",
      key,
      { emails: LIST },
      {
        "idempotency-key": Buffer.from(value, "utf8").toString("latin1"),
      },
    );
    assert.equal(response.status, 400, value);
    assert.equal(response.headers.get("x-quota-remaining"), "5");
    const body = await problem(response);
    assert.match(body.type, /invalid-request$/);
    assert.match(body.detail, reason);
    assert.equal(body.errors[0].member, "Idempotency-Key");
  }
});
