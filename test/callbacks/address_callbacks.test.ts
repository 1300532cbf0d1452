// Completion callbacks of bulk address jobs, through the real server, on the embedded database and on PostgreSQL: a
// list submitted to POST /v1/address/bulk with a callback_url (JSON member, or query parameter for a CSV upload) is
// POSTed to a loopback receiver when the job ends, signed under the account's secret, retried after a failure, with
// its delivery state in the job read; private targets are refused at submission, before anything is charged. The
// rows are matched by a stand-in for the street index (what a callback says does not depend on how rows match).
import { test } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import type { DatabaseKind } from "../helpers/database.ts";
import { startAddressJobRunner, type BulkAddressVerifier } from "../../src/jobs/address_runner.ts";
import { silentLogger } from "../../src/log.ts";
import { startCallbackDeliverer } from "../../src/callbacks/deliverer.ts";
import { callbackPolicy } from "../../src/callbacks/callback_target.ts";
import { createDnsResolver } from "../../src/email/net/mx_resolver.ts";
import { verifySignature } from "../../src/callbacks/signature.ts";
import type { AddressInput, AddressVerification } from "../../src/address/types.ts";
import { answerSlice } from "../../src/address/chunk_answers.ts";
import type { AddressVerifier } from "../../src/services.ts";
import { RESERVED_ADDRESS_LINES } from "../../src/testmode/address.ts";
import { startReceiver } from "./receiver.ts";

const ALLOW_LOOPBACK = { CALLBACK_ALLOW_CIDRS: "127.0.0.0/8", CALLBACK_ALLOW_HTTP_HOSTS: "127.0.0.1" };

/** Stands in for the street index: a row naming a postcode is deliverable, any other unknown. */
function answer(input: AddressInput): AddressVerification {
  const text = input.line ?? input.postcode ?? "";
  return /\b\d{5}\b/.test(text)
    ? { verdict: "deliverable", reasons: [], normalized: null, duration_ms: 0 }
    : { verdict: "unknown", reasons: [], normalized: null, duration_ms: 0 };
}
const matcher: BulkAddressVerifier & AddressVerifier = {
  started: Promise.resolve(),
  ready: true,
  verifySlice: async (slice) => answerSlice(slice, answer),
  verify: async (input) => answer(input),
};

const ROWS = ["10 rue de Rivoli 75004 Paris", "somewhere without a postcode", "10 rue de Rivoli 75004 Paris"];

interface Started {
  server: TestServer;
  key: string;
}

async function startServer(
  t: Parameters<typeof startTestServer>[0],
  kind: DatabaseKind,
  env: Record<string, string>,
): Promise<Started> {
  const server = await startTestServer(t, { database: kind, env, address: matcher });
  const runner = startAddressJobRunner({ sql: server.core.db.sql, verifier: matcher, log: silentLogger, pollMs: 50 });
  server.onClose(() => runner.stop());
  const { config } = server.services;
  const deliverer = startCallbackDeliverer({
    sql: server.core.db.sql,
    log: silentLogger,
    policy: callbackPolicy({ allowCidrs: config.callbackAllowCidrs, allowHttpHosts: config.callbackAllowHttpHosts }),
    resolver: createDnsResolver({ servers: config.dnsServers, timeoutMs: 2000 }),
    publicUrl: () => config.publicUrl,
    timeoutMs: config.callbackTimeoutMs,
    pollMs: 50,
    retry: { firstDelayMs: 200 },
  });
  server.onClose(() => deliverer.stop());
  return { server, key: await server.key() };
}

async function receiverFor(t: Parameters<typeof startTestServer>[0], script?: Array<number | "silent">) {
  const receiver = await startReceiver(script);
  t.after(() => receiver.close());
  return receiver;
}

async function secretOf(started: Started): Promise<string> {
  const response = await started.server.get("/v1/account/callback-secret", started.key);
  assert.equal(response.status, 200);
  return (await response.json()).secret;
}

/** The job read once its callback is no longer pending (delivered or failed). */
async function settledCallback(started: Started, id: string, key = started.key, timeoutMs = 15_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const response = await started.server.get(`/v1/jobs/${id}`, key);
    assert.equal(response.status, 200);
    const job = await response.json();
    if (job.callback && job.callback.state !== "pending") return job;
    if (Date.now() > until) throw new Error(`callback still pending: ${JSON.stringify(job.callback)}`);
    await sleep(50);
  }
}

for (const kind of ["embedded", "postgres"] as const) {
  test(`${kind}: an address job's end is POSTed once to its callback_url, signed, and the job read says so`, async (t) => {
    const started = await startServer(t, kind, ALLOW_LOOPBACK);
    const receiver = await receiverFor(t, [500, 200]);
    const secret = await secretOf(started);
    const response = await started.server.post("/v1/address/bulk", started.key, {
      addresses: ROWS,
      callback_url: `${receiver.url}/hooks/addresses?list=customers`,
    });
    assert.equal(response.status, 202, await response.clone().text());
    const id = (await response.json()).job_id as string;
    const job = await settledCallback(started, id);
    assert.equal(job.kind, "address");
    assert.equal(job.status, "completed");
    assert.equal(job.results.length, 3, "polling answers as before");
    assert.deepEqual(job.callback, {
      ...job.callback,
      url: `${receiver.url}/hooks/addresses?list=customers`,
      state: "delivered",
      attempts: 2,
      last_status: 200,
      last_error: null,
      next_attempt_at: null,
    });
    assert.equal(receiver.calls.length, 2, "the 500 was tried again");
    assert.ok(receiver.calls[1]!.at - receiver.calls[0]!.at >= 200, "after the back-off");
    for (const call of receiver.calls) {
      assert.equal(call.path, "/hooks/addresses?list=customers");
      assert.ok(verifySignature(String(call.headers["vrai-signature"]), call.body, secret), "signed");
    }
    const notice = JSON.parse(receiver.calls[1]!.body);
    assert.deepEqual(Object.keys(notice).sort(), [
      "created_at",
      "expires_at",
      "job_id",
      "kind",
      "poll",
      "processed",
      "status",
      "summary",
      "total",
    ]);
    assert.equal(notice.job_id, id);
    assert.equal(notice.kind, "address");
    assert.equal(notice.processed, 3);
    assert.deepEqual(notice.summary, job.summary);
    assert.equal(notice.summary.deliverable, 2);
    assert.equal(notice.summary.unknown, 1);
    assert.equal(notice.poll, `${started.server.url}/v1/jobs/${id}`);
    await sleep(300);
    assert.equal(receiver.calls.length, 2, "delivered once, not again");
  });

  test(`${kind}: address uploads name their callback in the query; private targets are refused, uncharged`, async (t) => {
    const started = await startServer(t, kind, ALLOW_LOOPBACK);
    const { server, key } = started;
    const receiver = await receiverFor(t);
    const csv = (query: string) =>
      fetch(`${server.url}/v1/address/bulk?callback_url=${encodeURIComponent(query)}`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "text/csv" },
        body: `id;adresse\n1;${ROWS[0]}\n2;${ROWS[1]}\n`,
      });
    const first = await csv(`${receiver.url}/csv`);
    assert.equal(first.status, 202, await first.clone().text());
    const remaining = first.headers.get("x-quota-remaining");
    const job = await settledCallback(started, (await first.json()).job_id);
    assert.equal(job.callback.state, "delivered");
    assert.equal(receiver.calls[0]!.path, "/csv");

    for (const url of ["https://10.1.2.3/hook", "http://hooks.example.com/hook"]) {
      const refused = await server.post("/v1/address/bulk", key, { addresses: ROWS, callback_url: url });
      assert.equal(refused.status, 400, url);
      const problem = await refused.json();
      assert.equal(problem.type, `${server.url}/errors/invalid-request`);
      assert.deepEqual(
        problem.errors.map((e: { member: string }) => e.member),
        ["callback_url"],
      );
      assert.equal(refused.headers.get("x-quota-remaining"), remaining, `${url}: nothing charged`);
    }
    const byQuery = await csv("https://10.1.2.3/hook");
    assert.equal(byQuery.status, 400);
    assert.match((await byQuery.json()).detail, /10\.1\.2\.3 is a private address/);

    // The callback URL is part of what an Idempotency-Key names.
    const keyed = (url: string) =>
      server.post("/v1/address/bulk", key, { addresses: ROWS, callback_url: url }, { "idempotency-key": "addr-cb" });
    const once = await keyed(`${receiver.url}/idem`);
    assert.equal(once.status, 202);
    const again = await keyed(`${receiver.url}/idem`);
    assert.equal(again.headers.get("idempotent-replayed"), "true");
    assert.equal((await keyed(`${receiver.url}/other`)).status, 400);

    // A test key's job is stored already answered: its callback is due at once.
    const testKey = await server.key({ account: "sandbox", mode: "test" });
    const sandbox = await server.post("/v1/address/bulk", testKey, {
      addresses: RESERVED_ADDRESS_LINES,
      callback_url: `${receiver.url}/test`,
    });
    assert.equal(sandbox.status, 202, await sandbox.clone().text());
    const tested = await settledCallback(started, (await sandbox.json()).job_id, testKey);
    assert.equal(tested.callback.state, "delivered");
    const calls = await receiver.received(3);
    assert.deepEqual(calls.map((c) => c.path).sort(), ["/csv", "/idem", "/test"]);
  });
}
