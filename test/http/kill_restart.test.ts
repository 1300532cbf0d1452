// `npm start` killed with SIGKILL in the middle of a bulk job, then started again on the same STATE_DIR: the job
// completes with exactly one result per address, in submission order (the embedded runner reclaims the dead
// process's items at start).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { livePeersSkip, startDnsmasq, startFastSmtpPeer } from "../email/peers.ts";
import { runKeysCli, startServerProcess } from "../helpers/process.ts";
import { eventually } from "../helpers/eventually.ts";

const skip = livePeersSkip("HTTP tests over live peers");

test("a server killed with SIGKILL mid-job and restarted on the same STATE_DIR completes the job, once per address", {
  skip,
}, async (t) => {
  const dns = await startDnsmasq({
    zones: ["vrai-kill.net"],
    mx: [{ domain: "slow.vrai-kill.net", exchange: "mx.slow.vrai-kill.net", priority: 10 }],
    hosts: [{ name: "mx.slow.vrai-kill.net", address: "127.0.7.10" }],
  });
  // Every reply takes 60 ms: a probe takes a few hundred, so the job is still running when the process dies.
  const peer = await startFastSmtpPeer({
    host: "127.0.7.10",
    delayMs: 60,
    pipelining: false,
    mailboxes: (local) => local.startsWith("user"),
  });
  t.after(async () => {
    await peer.stop();
    await dns.stop();
  });
  const env = {
    STATE_DIR: mkdtempSync(join(tmpdir(), "vrai-kill-")),
    DNS_SERVERS: dns.server,
    PROBE_ALLOW_CIDRS: "127.0.0.0/8",
  };
  const { stdout } = await runKeysCli(env, ["create", "--account", "kill", "--plan", "unmetered", "--json"]);
  const { key } = JSON.parse(stdout);
  const emails = Array.from({ length: 40 }, (_, i) => `${i % 5 === 4 ? "ghost" : "user"}${i}@slow.vrai-kill.net`);
  const headers = { "content-type": "application/json", authorization: `Bearer ${key}` };

  const first = await startServerProcess(t, env);
  const submitted = await fetch(`${first.url}/v1/email/bulk`, {
    method: "POST",
    headers,
    body: JSON.stringify({ emails }),
  });
  assert.equal(submitted.status, 202);
  const { job_id } = await submitted.json();
  const processed: number = await eventually(
    "the first process to answer some addresses",
    async () => (await (await fetch(`${first.url}/v1/jobs/${job_id}`, { headers })).json()).processed,
    { until: (processed) => processed > 0, timeoutMs: 10_000, intervalMs: 50 },
  );
  assert.ok(processed > 0 && processed < emails.length, `killed mid-job (${processed} of ${emails.length} done)`);
  first.child.kill("SIGKILL");
  await first.exited;

  const second = await startServerProcess(t, env);
  const job = await eventually(
    "the restarted process to complete the job",
    async () => (await fetch(`${second.url}/v1/jobs/${job_id}`, { headers })).json(),
    {
      until: (job) => job.status === "completed",
      timeoutMs: 30_000,
      intervalMs: 100,
      describe: (job) => `${job.status} ${job.processed}/${job.total}`,
    },
  );
  assert.equal(job.status, "completed");
  assert.equal(job.processed, emails.length);
  assert.deepEqual(
    job.results.map((r: { email: string }) => r.email),
    emails,
    "one result per address, in order",
  );
  for (const r of job.results)
    assert.equal(r.verdict, r.email.startsWith("ghost") ? "undeliverable" : "deliverable", r.email);
  second.child.kill("SIGTERM");
  assert.equal(await second.exited, 0);
});
