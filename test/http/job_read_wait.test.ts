// `Prefer: wait=N` on GET /v1/jobs/{id} through the real server, with the real email and address runners over fake
// verifiers that answer only once the test opens their gate: a held read answers as soon as its job ends, or after
// N seconds with the job still running; an ended job answers at once; a client that leaves ends its hold; without the
// preference, or with a malformed one, a read answers at once as before. The bounds are generous (a loaded 2-core
// machine): what is asserted is the order of events and "well before N", never a tight timing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { plansFile } from "../helpers/plans_file.ts";
import { answer } from "../jobs/fake_verifier.ts";
import { startJobRunner } from "../../src/jobs/runner.ts";
import { startAddressJobRunner } from "../../src/jobs/address_runner.ts";
import { answerSlice, type ChunkSlice } from "../../src/address/chunk_answers.ts";
import { unverifiedAnswer } from "../../src/jobs/address_rows.ts";
import type { VerifyManyOptions } from "../../src/email/verifier.ts";
import { silentLogger } from "../../src/log.ts";

const PLANS_FILE = plansFile({
  bulk: {
    quota: { email: 100, address: 100 },
    rate: { per_minute: 6000, burst: 0 },
    batch_max: 10,
    address_batch_max: 10,
  },
});

/** Verifiers answer only once `open()` is called: the test decides when its job ends. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  const until = (signal?: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
      void opened.then(resolve);
    });
  return { open: () => open(), until };
}

/** A server with both runners, whose verifiers answer once the gate opens. */
async function gatedServer(t: Parameters<typeof startTestServer>[0]) {
  const server = await startTestServer(t, { env: { PLANS_FILE } });
  const { open, until } = gate();
  const emailRunner = startJobRunner({
    sql: server.core.db.sql,
    log: silentLogger,
    pollMs: 50,
    verifier: {
      async verifyMany(emails: string[], { signal, onResult }: VerifyManyOptions) {
        await until(signal);
        for (const email of emails) await onResult(answer(email));
      },
    },
  });
  const addressRunner = startAddressJobRunner({
    sql: server.core.db.sql,
    log: silentLogger,
    pollMs: 50,
    verifier: {
      started: Promise.resolve(),
      async verifySlice(slice: ChunkSlice, options?: { signal?: AbortSignal }) {
        await until(options?.signal);
        return answerSlice(slice, () => unverifiedAnswer());
      },
    },
  });
  // Opened before the runners stop, so that no batch is left waiting on it.
  server.onClose(() => emailRunner.stop());
  server.onClose(() => addressRunner.stop());
  server.onClose(open);
  return { server, open };
}

function read(server: TestServer, key: string, id: string, headers: Record<string, string> = {}, signal?: AbortSignal) {
  return fetch(`${server.url}/v1/jobs/${id}`, { headers: { authorization: `Bearer ${key}`, ...headers }, signal });
}

async function submitEmails(server: TestServer, key: string): Promise<string> {
  const response = await server.post("/v1/email/bulk", key, { emails: ["ok1@d.fr", "bad1@d.fr"] });
  assert.equal(response.status, 202, await response.clone().text());
  return (await response.json()).job_id;
}

async function submitAddresses(server: TestServer, key: string): Promise<string> {
  const addresses = [{ line: "1 rue de la paix 75002 paris" }, { line: "2 rue de la paix 75002 paris" }];
  const response = await server.post("/v1/address/bulk", key, { addresses });
  assert.equal(response.status, 202, await response.clone().text());
  return (await response.json()).job_id;
}

/** Seconds since `start`. */
const since = (start: number) => (performance.now() - start) / 1000;

test("a held read of a running email job answers as soon as the job ends, well before N, counted once", async (t) => {
  const { server, open } = await gatedServer(t);
  const key = await server.key({ plan: "bulk" });
  const id = await submitEmails(server, key);
  const before = Number((await read(server, key, id)).headers.get("x-ratelimit-remaining"));
  const start = performance.now();
  let opened = 0;
  const held = read(server, key, id, { prefer: "wait=25" }).then((response) => ({ response, at: since(start) }));
  await sleep(1500);
  opened = since(start);
  open();
  const { response, at } = await held;
  assert.equal(response.status, 200);
  assert.ok(at >= opened, `answered at ${at} s, before the job could end (${opened} s)`);
  assert.ok(at < 15, `answered at ${at} s: the job's end should wake the read well before 25 s`);
  assert.equal(response.headers.get("preference-applied"), "wait=25");
  const job = await response.json();
  assert.equal(job.status, "completed");
  assert.equal(job.processed, 2);
  // One admission for the whole hold: never more than one call taken from the job-read allowance.
  const remaining = Number(response.headers.get("x-ratelimit-remaining"));
  assert.ok(remaining >= before - 1, `remaining ${remaining} after ${before}: the held read counted more than once`);
});

test("a held read that times out answers the running job after about N seconds, JSON and CSV", async (t) => {
  const { server } = await gatedServer(t);
  const key = await server.key({ plan: "bulk" });
  const id = await submitAddresses(server, key);
  let start = performance.now();
  const response = await read(server, key, id, { prefer: "wait=2" });
  let took = since(start);
  assert.equal(response.status, 200);
  assert.ok(took >= 1.9 && took < 12, `answered after ${took} s, not about 2 s`);
  assert.equal(response.headers.get("preference-applied"), "wait=2");
  const job = await response.json();
  assert.ok(["queued", "running"].includes(job.status), job.status);
  assert.deepEqual(job.results, []);

  start = performance.now();
  const csv = await read(server, key, id, { prefer: "wait=1", accept: "text/csv" });
  took = since(start);
  assert.equal(csv.status, 200);
  assert.ok(took >= 0.9 && took < 12, `answered after ${took} s, not about 1 s`);
  assert.equal(csv.headers.get("preference-applied"), "wait=1");
  assert.match(csv.headers.get("content-type") ?? "", /^text\/csv/);
  assert.ok(["queued", "running"].includes(csv.headers.get("x-job-status") ?? ""));
  await csv.text();
});

test("an address job's held read (CSV) answers when it ends; an ended job answers at once, nothing applied", async (t) => {
  const { server, open } = await gatedServer(t);
  const key = await server.key({ plan: "bulk" });
  const id = await submitAddresses(server, key);
  const start = performance.now();
  const held = read(server, key, id, { prefer: "wait=25", accept: "text/csv" }).then((response) => ({
    response,
    at: since(start),
  }));
  await sleep(1000);
  const opened = since(start);
  open();
  const { response, at } = await held;
  assert.ok(at >= opened && at < 15, `answered at ${at} s; the job could end at ${opened} s`);
  assert.equal(response.headers.get("preference-applied"), "wait=25");
  assert.equal(response.headers.get("x-job-status"), "completed");
  assert.equal((await response.text()).trim().split("\n").length, 3, "a header line and two rows");

  const again = performance.now();
  const ended = await read(server, key, id, { prefer: "wait=25" });
  const took = since(again);
  assert.equal(ended.status, 200);
  assert.ok(took < 5, `an ended job took ${took} s to answer`);
  assert.equal(ended.headers.get("preference-applied"), null, "nothing was held, so nothing is said applied");
  assert.equal((await ended.json()).status, "completed");
});

test("a client that leaves ends its hold at once; the server keeps serving", async (t) => {
  const { server } = await gatedServer(t);
  const key = await server.key({ plan: "bulk" });
  const id = await submitEmails(server, key);
  // Every status query of a hold is counted: once the client left, no more are made.
  const jobs = server.services.jobs;
  const status = jobs.status!;
  let queries = 0;
  jobs.status = (accountId, jobId) => {
    queries++;
    return status(accountId, jobId);
  };
  const leaving = new AbortController();
  const held = read(server, key, id, { prefer: "wait=25" }, leaving.signal);
  await sleep(1500);
  assert.ok(queries >= 1, "the hold read the job's status");
  leaving.abort();
  await assert.rejects(held);
  await sleep(300);
  const after = queries;
  await sleep(2500);
  assert.equal(queries, after, "the hold went on re-reading the job after its client left");
  const start = performance.now();
  const next = await read(server, key, id);
  assert.equal(next.status, 200);
  assert.ok(since(start) < 5);
  assert.ok(["queued", "running"].includes((await next.json()).status));
});

test("without the preference, or with a malformed one or wait=0, a running job is answered at once as before", async (t) => {
  const { server } = await gatedServer(t);
  const key = await server.key({ plan: "bulk" });
  const id = await submitEmails(server, key);
  for (const prefer of [undefined, "wait=soon", "wait", "wait=-1", "wait=1.5", "wait=0", "respond-async", ""]) {
    const start = performance.now();
    const response = await read(server, key, id, prefer === undefined ? {} : { prefer });
    const took = since(start);
    assert.equal(response.status, 200, String(prefer));
    // A hold of a running job always says it was applied: without the header, nothing was held (the bound is loose).
    assert.equal(response.headers.get("preference-applied"), null, String(prefer));
    assert.ok(took < 5, `Prefer: ${prefer} took ${took} s`);
    assert.ok(["queued", "running"].includes((await response.json()).status));
  }
  const start = performance.now();
  const unknown = await read(server, key, "00000000-0000-4000-8000-000000000000", { prefer: "wait=25" });
  assert.equal(unknown.status, 404, "an unknown job is not waited for");
  assert.ok(since(start) < 5);
  assert.equal(unknown.headers.get("preference-applied"), null);
});
