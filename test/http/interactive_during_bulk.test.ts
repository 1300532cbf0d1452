// Single calls and signups go before bulk work at a mail exchanger, against the real server process (`src/main.ts`,
// embedded database, heap under pressure with --max-semi-space-size=1): dnsmasq answers the MX records, two slow
// SMTP peers on 127.0.36.x:25 answer each RCPT TO after 300 ms, one without PIPELINING and one with it. A bulk job of
// 150 addresses at each keeps every connection the server may open to them busy for about 15 s; meanwhile single calls
// and a signup for other mailboxes of the same mail exchangers must get the peer's real answer well within their
// deadline (not `probe_timeout` after waiting in the server's own queue behind bulk recipients), the peers must never
// see more connections at once than the per-MX limit, and the job must still end with every answer right.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { livePeersSkip, startDnsmasq, startFastSmtpPeer, type FastSmtpPeer } from "../email/peers.ts";
import { runKeysCli, startServerProcess } from "../helpers/process.ts";
import { eventually } from "../helpers/eventually.ts";

const skip = livePeersSkip("interactive calls during a bulk job");

const EMAIL_DEADLINE_MS = 6000;
const PROBE_TIMEOUT_MS = 3000;
/** What a single call may take, seen from the client: the deadline plus a second for HTTP, JSON and a loaded loop. */
const CALL_BOUND_MS = EMAIL_DEADLINE_MS + 1000;
/** The engine's connections per MX host: what a peer may see at once, at most. */
const PER_MX_LIMIT = 3;
const BULK_PER_MX = 150;
/** 150 recipients at 300 ms each over 3 connections is 15 s per peer; the two peers work side by side. */
const JOB_BOUND_MS = 60_000;
const RCPT_DELAY_MS = 300;
/** user0 .. user{EXISTING - 1} and bulk0 .. bulk{EXISTING - 1} exist at both peers; any other mailbox does not. */
const EXISTING = 100;
const ZONE = "vrai-priority.net";
/** Node flags for the server child: a 1 MB young generation and a full collection every 500 ms, as under real load. */
const HEAP_PRESSURE = [
  "--max-semi-space-size=1",
  "--expose-gc",
  "--import",
  "data:text/javascript,setInterval(() => globalThis.gc(), 500).unref()",
];

const MX = [
  { name: "plain", ip: "127.0.36.10", pipelining: false },
  { name: "piped", ip: "127.0.36.11", pipelining: true },
] as const;
const domainOf = (name: string) => `${name}.${ZONE}`;

interface Answer {
  status: number;
  body: any;
  ms: number;
}

async function post(url: string, key: string, path: string, body: unknown): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(url + path, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
    // The client's own bound, past which the call counts as unanswered.
    signal: AbortSignal.timeout(CALL_BOUND_MS + 5000),
  });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text), ms: Math.round(performance.now() - started) };
}

test("single calls and a signup during a bulk job that saturates their MX answer with the peer's verdict in time", {
  skip,
  timeout: 120_000,
}, async (t) => {
  const dns = await startDnsmasq({
    zones: [ZONE],
    mx: MX.map(({ name }) => ({ domain: domainOf(name), exchange: `mx.${domainOf(name)}`, priority: 10 })),
    hosts: MX.map(({ name, ip }) => ({ name: `mx.${domainOf(name)}`, address: ip })),
  });
  const stops: Array<() => Promise<void>> = [() => dns.stop()];
  t.after(async () => {
    for (const stop of stops.reverse()) await stop();
  });
  const peers = new Map<string, FastSmtpPeer>();
  for (const { name, ip, pipelining } of MX) {
    const peer = await startFastSmtpPeer({
      host: ip,
      rcptDelayMs: RCPT_DELAY_MS,
      pipelining,
      mailboxes: (local) => Number(/^(?:user|bulk)(\d+)$/.exec(local)?.[1] ?? Number.NaN) < EXISTING,
    });
    stops.push(() => peer.stop());
    peers.set(name, peer);
  }

  const stateDir = mkdtempSync(join(tmpdir(), "vrai-priority-"));
  stops.push(async () => rmSync(stateDir, { recursive: true, force: true }));
  const env = {
    STATE_DIR: stateDir,
    DNS_SERVERS: dns.server,
    PROBE_ALLOW_CIDRS: "127.0.0.0/8",
    EMAIL_DEADLINE_MS: String(EMAIL_DEADLINE_MS),
    PROBE_TIMEOUT_MS: String(PROBE_TIMEOUT_MS),
  };
  const server = await startServerProcess(t, env, { nodeFlags: HEAP_PRESSURE });
  assert.equal(server.child.exitCode, null, `the server did not start:\n${server.output()}`);
  const created = await runKeysCli(env, ["create", "--account", "priority", "--plan", "unmetered", "--json"]);
  assert.equal(created.code, 0, created.stderr);
  const { key } = JSON.parse(created.stdout) as { key: string };

  // The bulk job: 150 addresses at each MX, two in three of them existing mailboxes; the single calls ask others.
  const bulkEmails = MX.flatMap(({ name }) =>
    Array.from({ length: BULK_PER_MX }, (_, i) => `bulk${i}@${domainOf(name)}`),
  );
  const submitted = await post(server.url, key, "/v1/email/bulk", { emails: bulkEmails });
  assert.equal(submitted.status, 202, JSON.stringify(submitted.body));

  // The job holds every connection to both peers: each has taken bulk recipients on all three at once.
  await eventually(
    "the bulk job to keep every connection to both peers busy",
    () => MX.map(({ name }) => peers.get(name)!.recipients.length),
    {
      until: (counts) => counts.every((n) => n >= 2 * PER_MX_LIMIT),
      timeoutMs: 20_000,
      intervalMs: 20,
    },
  );

  // Meanwhile, 8 single calls and a signup per MX: half of them existing mailboxes the job does not ask, half unknown.
  const singles = MX.flatMap(({ name }) =>
    Array.from({ length: 8 }, (_, i) => {
      const local = i % 2 === 0 ? `user${EXISTING - 1 - i}` : `nobody${i}`;
      const email = `${local}@${domainOf(name)}`;
      const want = i % 2 === 0 ? "deliverable []" : 'undeliverable ["mailbox_not_found"]';
      return post(server.url, key, "/v1/email", { email }).then((answer) => ({ email, want, answer }));
    }),
  );
  const signups = MX.map(({ name }) =>
    post(server.url, key, "/v1/signup", { email: `user${EXISTING - 20}@${domainOf(name)}` }).then((answer) => ({
      name,
      answer,
    })),
  );

  await t.test("each single call gets the peer's real verdict within EMAIL_DEADLINE_MS + 1 s", async () => {
    const results = await Promise.all(singles);
    const wrong = results
      .map(({ email, want, answer }) => {
        const got =
          answer.status === 200
            ? `${answer.body.verdict} ${JSON.stringify(answer.body.reasons)}`
            : `${answer.status} ${JSON.stringify(answer.body)}`;
        return { email, want, got, ms: answer.ms };
      })
      .filter(({ want, got, ms }) => got !== want || ms > CALL_BOUND_MS)
      .map(({ email, want, got, ms }) => `${email}: want ${want}, got ${got} after ${ms} ms`);
    assert.deepEqual(wrong, [], `${wrong.length} of ${results.length} single calls waited behind the bulk job`);
  });

  await t.test("each signup gets the peer's verdict for its email within EMAIL_DEADLINE_MS + 1 s", async () => {
    for (const { name, answer } of await Promise.all(signups)) {
      const email = answer.body.signals?.email;
      assert.deepEqual(
        [answer.status, email?.verdict, email?.reasons, answer.ms <= CALL_BOUND_MS],
        [200, "deliverable", [], true],
        `${name}: ${answer.status} after ${answer.ms} ms: ${JSON.stringify(answer.body)}`,
      );
    }
  });

  await t.test("the job was still running when the calls were answered: they did not simply wait it out", async () => {
    const read = await fetch(`${server.url}/v1/jobs/${submitted.body.job_id}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const job = (await read.json()) as { status: string; processed: number; total: number };
    assert.ok(job.processed < job.total, `${job.status} ${job.processed}/${job.total}`);
  });

  await t.test("the bulk job completes with every answer right, none blamed on the peers", async () => {
    const jobPath = `/v1/jobs/${submitted.body.job_id}`;
    const job = await eventually(
      `the job to end within ${JOB_BOUND_MS / 1000} s`,
      async () => {
        const r = await fetch(server.url + jobPath, { headers: { authorization: `Bearer ${key}` } });
        return (await r.json()) as any;
      },
      {
        until: (job) => ["completed", "failed"].includes(job.status),
        timeoutMs: JOB_BOUND_MS,
        // Job reads have their own bucket of 60 a minute: one a second stays inside it.
        intervalMs: 1000,
        describe: (job) => `${job.status} ${job.processed}/${job.total}`,
      },
    );
    assert.equal(job.status, "completed");
    const wrong = (job.results as Array<{ email: string; verdict: string; reasons: string[] }>)
      .map((r) => {
        const n = Number(/^bulk(\d+)@/.exec(r.email)?.[1]);
        const want = n < EXISTING ? "deliverable []" : 'undeliverable ["mailbox_not_found"]';
        return { email: r.email, want, got: `${r.verdict} ${JSON.stringify(r.reasons)}` };
      })
      .filter(({ want, got }) => want !== got)
      .map(({ email, want, got }) => `${email}: want ${want}, got ${got}`);
    assert.deepEqual(wrong, [], `${wrong.length} of ${job.total} bulk answers wrong`);
  });

  await t.test(`neither peer ever saw more than ${PER_MX_LIMIT} connections at once`, () => {
    for (const { name, ip } of MX) {
      const peer = peers.get(name)!;
      assert.ok(peer.maxConcurrent >= 1, `${name} (${ip}) was dialled`);
      assert.ok(
        peer.maxConcurrent <= PER_MX_LIMIT,
        `${name} (${ip}) saw ${peer.maxConcurrent} connections at once over ${peer.connections} in all`,
      );
    }
  });
});
