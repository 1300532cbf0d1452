// test-scope: once
// Three processes on one PostgreSQL behave as one client toward each mail server: a bulk job worked by two workers
// plus single calls through two API processes never open more than SMTP_MAX_PER_MX connections to the MX in total,
// the single calls keep their priority over the bulk work of the other processes, and a catch-all domain is probed
// once for the whole cluster.
import { test } from "node:test";
import assert from "node:assert/strict";
import { livePeersSkip } from "../email/peers.ts";
import { eventually } from "../helpers/eventually.ts";
import {
  BUSY,
  CATCH_ALL,
  MAX_PER_MX,
  catchAllProbes,
  headersFor,
  startClusterWorld,
  submitBulk,
} from "./cluster_world.ts";

const skip = livePeersSkip("cluster tests over live peers (127.0.41.x)");
/** This file's mail servers: loopback addresses no other test file binds. */
const PEERS = { busy: "127.0.41.10", catchAll: "127.0.41.11" };

interface Answer {
  email: string;
  verdict: string;
  reasons: string[];
}

test("three processes keep one per-MX budget, single calls first, and probe a catch-all domain once", {
  skip,
  timeout: 90_000,
}, async (t) => {
  const world = await startClusterWorld(t, { peers: PEERS });
  const headers = headersFor(world.key);
  // Two processes work bulk jobs (one of them serves calls too), a third serves calls only.
  const [both, worker, api] = await Promise.all([world.start("all"), world.start("worker"), world.start("api")]);
  await Promise.all(
    [both.url, api.url].map((url) =>
      eventually(`${url}/readyz to answer 200`, async () => (await fetch(`${url}/readyz`)).status, {
        until: (s) => s === 200,
        timeoutMs: 20_000,
      }),
    ),
  );
  // Addresses of the busy server, every fifth one unknown there, and a catch-all domain's among them.
  const emails: string[] = [];
  for (let i = 0; i < 600; i++) {
    emails.push(`${i % 5 === 4 ? "ghost" : "user"}${i}@${BUSY}`);
    if (i % 6 === 0) emails.push(`someone${i}@${CATCH_ALL}`);
  }
  const job_id = await submitBulk(both.url, world.key, emails);
  const readJob = async () => (await fetch(`${api.url}/v1/jobs/${job_id}`, { headers })).json();
  // Watched at the mail server: job reads have a rate limit of their own (60 a minute).
  await eventually("the job to be under way", () => world.busy.recipients.length, {
    until: (n) => n > 40,
    timeoutMs: 30_000,
    intervalMs: 20,
  });

  // Single calls to the busy server while both workers keep its connections busy, through both API processes.
  const calls = await Promise.all(
    Array.from({ length: 10 }, async (_, i) => {
      const url = i % 2 === 0 ? api.url : both.url;
      const started = performance.now();
      const response = await fetch(`${url}/v1/email`, {
        method: "POST",
        headers,
        body: JSON.stringify({ email: `user-call${i}@${BUSY}` }),
      });
      return { status: response.status, body: (await response.json()) as Answer, ms: performance.now() - started };
    }),
  );
  const midJob = (await readJob()) as { processed: number; total: number };
  for (const call of calls) {
    assert.equal(call.status, 200);
    assert.equal(call.body.verdict, "deliverable", JSON.stringify(call.body));
  }
  assert.ok(midJob.processed < midJob.total, "the calls were answered while the job still ran");
  t.diagnostic(`single calls during the job: ${calls.map((c) => Math.round(c.ms)).join(", ")} ms`);

  const job = await eventually("the job to complete", readJob, {
    until: (job) => job.status === "completed",
    timeoutMs: 60_000,
    intervalMs: 1000,
    describe: (job) => `${job.status} ${job.processed}/${job.total}`,
  });
  const results = job.results as Answer[];
  assert.deepEqual(
    results.map((r) => r.email),
    emails,
    "one answer per address, in order",
  );
  for (const r of results) {
    if (r.email.endsWith(CATCH_ALL)) assert.ok(r.reasons.includes("catch_all_domain"), JSON.stringify(r));
    else assert.equal(r.verdict, r.email.startsWith("ghost") ? "undeliverable" : "deliverable", JSON.stringify(r));
  }
  // The catch-all domain's answer is known to the process that never probed it: a call there asks no catch-all probe.
  const later = await fetch(`${api.url}/v1/email`, {
    method: "POST",
    headers,
    body: JSON.stringify({ email: `late@${CATCH_ALL}` }),
  });
  assert.ok(((await later.json()) as Answer).reasons.includes("catch_all_domain"));

  t.diagnostic(
    `busy MX: ${world.busy.connections} connections, at most ${world.busy.maxConcurrent} at once; ` +
      `catch-all probes: ${catchAllProbes(world.catchAll).length}`,
  );
  assert.ok(world.busy.maxConcurrent <= MAX_PER_MX, `at most ${MAX_PER_MX} at once, saw ${world.busy.maxConcurrent}`);
  assert.ok(world.catchAll.maxConcurrent <= MAX_PER_MX);
  assert.equal(catchAllProbes(world.catchAll).length, 1, "one catch-all probe for the whole cluster");

  for (const server of [both, worker, api]) server.child.kill("SIGTERM");
  assert.deepEqual(await Promise.all([both.exited, worker.exited, api.exited]), [0, 0, 0]);
});
