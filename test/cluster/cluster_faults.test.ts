// test-scope: once
// Faults in a cluster on one PostgreSQL: a worker killed with SIGKILL in the middle of a bulk job, and an API process
// killed in the middle of calls. The job completes with every address answered once and charged once, the calls in
// flight on the dead process are the only failures, and the mail server never sees more than SMTP_MAX_PER_MX
// connections, also while the dead process's slot leases run out.
import { test } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { livePeersSkip } from "../email/peers.ts";
import { eventually } from "../helpers/eventually.ts";
import { BUSY, MAX_PER_MX, headersFor, startClusterWorld, submitBulk } from "./cluster_world.ts";

const skip = livePeersSkip("cluster fault tests over live peers (127.0.41.x)");
/** This file's mail servers: loopback addresses no other test file binds. */
const PEERS = { busy: "127.0.41.20", catchAll: "127.0.41.21" };
const LEASE_TTL_MS = 3000;

interface Answer {
  email: string;
  verdict: string;
}

test("a worker killed with SIGKILL mid-job: a new worker completes it, every address answered and charged once", {
  skip,
  timeout: 90_000,
}, async (t) => {
  const world = await startClusterWorld(t, { peers: PEERS, leaseTtlMs: LEASE_TTL_MS });
  const headers = headersFor(world.key);
  const [api, first] = await Promise.all([world.start("api"), world.start("worker")]);
  await eventually("the API to be ready", async () => (await fetch(`${api.url}/readyz`)).status, {
    until: (s) => s === 200,
    timeoutMs: 20_000,
  });
  const emails = Array.from({ length: 800 }, (_, i) => `${i % 5 === 4 ? "ghost" : "user"}${i}@${BUSY}`);
  const job_id = await submitBulk(api.url, world.key, emails);
  const readJob = async () => (await fetch(`${api.url}/v1/jobs/${job_id}`, { headers })).json();
  // Watched at the mail server: job reads have a rate limit of their own (60 a minute).
  await eventually("the worker to ask some addresses", () => world.busy.recipients.length, {
    until: (n) => n > 60,
    timeoutMs: 30_000,
    intervalMs: 20,
  });
  first.child.kill("SIGKILL");
  await first.exited;
  const killedAt = performance.now();
  const connectionsBefore = world.busy.connections;
  // What a process manager does: another worker starts; the dead one's slots are held until their lease runs out.
  await world.start("worker");
  const job = await eventually("the new worker to complete the job", readJob, {
    until: (job) => job.status === "completed",
    timeoutMs: 60_000,
    intervalMs: 1000,
    describe: (job) => `${job.status} ${job.processed}/${job.total}`,
  });
  // The dead worker's slots stay held until their lease runs out (the budget holds meanwhile); when the new worker
  // got its first connection says how long the job waited for them (its start included).
  const firstAfter = world.busy.lines.find((l) => l.connection > connectionsBefore)!;
  t.diagnostic(
    `first connection of the new worker ${Math.round(firstAfter.at - killedAt)} ms after the kill; ` +
      `job completed ${Math.round(performance.now() - killedAt)} ms after it`,
  );
  assert.deepEqual(
    (job.results as Answer[]).map((r) => r.email),
    emails,
    "one answer per address, in order",
  );
  for (const r of job.results as Answer[])
    assert.equal(r.verdict, r.email.startsWith("ghost") ? "undeliverable" : "deliverable", r.email);
  assert.equal(await world.charged(), emails.length, "each address charged once");
  assert.ok(world.busy.maxConcurrent <= MAX_PER_MX, `at most ${MAX_PER_MX} at once, saw ${world.busy.maxConcurrent}`);
});

test("an API process killed with SIGKILL mid-calls: only its calls in flight fail, the MX budget holds", {
  skip,
  timeout: 90_000,
}, async (t) => {
  const world = await startClusterWorld(t, { peers: PEERS, leaseTtlMs: LEASE_TTL_MS, busyDelayMs: 40 });
  const headers = headersFor(world.key);
  const [doomed, survivor, worker] = await Promise.all([world.start("api"), world.start("api"), world.start("worker")]);
  for (const server of [doomed, survivor]) {
    await eventually("the API to be ready", async () => (await fetch(`${server.url}/readyz`)).status, {
      until: (s) => s === 200,
      timeoutMs: 20_000,
    });
  }
  // A bulk job keeps the MX busy meanwhile: the calls take their slots from it.
  const emails = Array.from({ length: 300 }, (_, i) => `user-bulk${i}@${BUSY}`);
  const job_id = await submitBulk(survivor.url, world.key, emails);

  const outcomes: Array<{ to: "doomed" | "survivor"; sentAt: number; status: number | "failed" }> = [];
  let killedAt = Number.POSITIVE_INFINITY;
  const call = async (i: number) => {
    const to = i % 2 === 0 ? "doomed" : "survivor";
    const server = to === "doomed" ? doomed : survivor;
    const sentAt = performance.now();
    // Once the process is dead, a client (or a balancer) no longer sends to it.
    if (to === "doomed" && sentAt > killedAt) return;
    const status = await fetch(`${server.url}/v1/email`, {
      method: "POST",
      headers,
      body: JSON.stringify({ email: `user-call${i}@${BUSY}` }),
    }).then(
      async (r) => (((await r.json()) as Answer).verdict === "deliverable" ? r.status : -r.status),
      () => "failed" as const,
    );
    outcomes.push({ to, sentAt, status });
  };
  const lanes = Array.from({ length: 6 }, async (_, lane) => {
    for (let i = lane; i < 60; i += 6) await call(i);
  });
  // Killed once it has answered a call (at most 10 s on): a fixed 700 ms left a slow machine's first answers unsent.
  for (const until = performance.now() + 10_000; performance.now() < until; ) {
    if (outcomes.some((o) => o.to === "doomed" && o.status === 200)) break;
    await sleep(50);
  }
  doomed.child.kill("SIGKILL");
  killedAt = performance.now();
  await Promise.all(lanes);

  const failed = outcomes.filter((o) => o.status !== 200);
  t.diagnostic(`${outcomes.length} calls, ${failed.length} failed (in flight on the killed process)`);
  assert.ok(
    outcomes.some((o) => o.to === "doomed" && o.status === 200),
    "the doomed process answered before it died",
  );
  for (const o of failed) {
    assert.equal(o.to, "doomed", "only calls to the killed process fail");
    assert.equal(o.status, "failed");
    assert.ok(o.sentAt <= killedAt, "only calls in flight when it died");
  }
  const succeeded = outcomes.filter((o) => o.status === 200).length;
  assert.ok(outcomes.filter((o) => o.to === "survivor").every((o) => o.status === 200));

  const job = await eventually(
    "the job to complete",
    async () => (await fetch(`${survivor.url}/v1/jobs/${job_id}`, { headers })).json(),
    { until: (job) => job.status === "completed", timeoutMs: 60_000, intervalMs: 1000 },
  );
  assert.equal(job.processed, emails.length);
  // Each answered call and each bulk address is charged once; a call killed in flight may have been charged too.
  const charged = await world.charged();
  assert.ok(
    charged >= emails.length + succeeded && charged <= emails.length + succeeded + failed.length,
    `charged ${charged}: ${emails.length} addresses, ${succeeded} calls answered, ${failed.length} killed`,
  );
  assert.ok(world.busy.maxConcurrent <= MAX_PER_MX, `at most ${MAX_PER_MX} at once, saw ${world.busy.maxConcurrent}`);
  worker.child.kill("SIGTERM");
  await worker.exited;
});
