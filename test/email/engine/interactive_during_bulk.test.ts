// Single calls go before bulk work at a mail exchanger. Two slow SMTP peers on 127.0.36.x:25 answer each RCPT TO after
// 300 ms, one without PIPELINING and one with it. The engine runs in a child process with its heap under pressure
// (--max-semi-space-size=1 and a full collection every 500 ms, as under real load): a bulk chunk of 150 addresses at
// each peer through verifyMany (the job runner's path) keeps every connection the per-MX limit allows busy for about
// 15 s; meanwhile 8 single calls per peer through verify() (the path of POST /v1/email and the signup) for other
// mailboxes of the same MX hosts must get the peer's real answer well within their deadline, not `probe_timeout` after
// waiting in the engine's own queue behind bulk recipients. The peers count their connections: never more at once
// than the per-MX limit. The bulk chunk must still end with every answer right.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { eventually } from "../../helpers/eventually.ts";
import { startFastSmtpPeer, type FastSmtpPeer } from "../peers.ts";
import type { ChildSpec } from "./interactive_during_bulk_child.ts";

const skip = process.getuid?.() !== 0 ? "SMTP peers bind port 25, which needs root: skipped" : false;

const EMAIL_DEADLINE_MS = 6000;
const PROBE_TIMEOUT_MS = 3000;
/** What a single call may take: its deadline, plus a second for a loaded loop. */
const CALL_BOUND_MS = EMAIL_DEADLINE_MS + 1000;
/** The engine's connections per MX host: what a peer may see at once, at most. */
const PER_MX_LIMIT = 3;
const BULK_PER_MX = 150;
const RCPT_DELAY_MS = 300;
/** user0..user{EXISTING-1} and bulk0..bulk{EXISTING-1} exist at both peers; any other mailbox does not. */
const EXISTING = 100;
const HEAP_PRESSURE = [
  "--max-semi-space-size=1",
  "--expose-gc",
  "--import",
  "data:text/javascript,setInterval(() => globalThis.gc(), 500).unref()",
];

const MX = [
  { domain: "plain.vrai-priority.net", ip: "127.0.36.10", pipelining: false },
  { domain: "piped.vrai-priority.net", ip: "127.0.36.11", pipelining: true },
];

interface Answer {
  email: string;
  verdict: string;
  reasons: string[];
  ms?: number;
}

const want = (email: string) =>
  Number(/^(?:user|bulk)(\d+)@/.exec(email)?.[1] ?? Number.NaN) < EXISTING
    ? "deliverable []"
    : 'undeliverable ["mailbox_not_found"]';
const got = (a: Answer) => `${a.verdict} ${JSON.stringify(a.reasons)}`;

test("single calls during a bulk chunk that saturates their MX get the peer's verdict within the deadline", {
  skip,
  timeout: 120_000,
}, async (t) => {
  const peers: FastSmtpPeer[] = [];
  t.after(async () => {
    for (const peer of peers) await peer.stop();
  });
  for (const { ip, pipelining } of MX) {
    peers.push(
      await startFastSmtpPeer({
        host: ip,
        rcptDelayMs: RCPT_DELAY_MS,
        pipelining,
        mailboxes: (local) => Number(/^(?:user|bulk)(\d+)$/.exec(local)?.[1] ?? Number.NaN) < EXISTING,
      }),
    );
  }
  const spec: ChildSpec = {
    mx: MX.map(({ domain, ip }) => ({ domain, ip })),
    // Two in three of the bulk mailboxes exist; the single calls ask others, half of them existing.
    bulk: MX.flatMap(({ domain }) => Array.from({ length: BULK_PER_MX }, (_, i) => `bulk${i}@${domain}`)),
    singles: MX.flatMap(({ domain }) =>
      Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? `user${EXISTING - 1 - i}@${domain}` : `nobody${i}@${domain}`)),
    ),
    probeTimeoutMs: PROBE_TIMEOUT_MS,
    emailDeadlineMs: EMAIL_DEADLINE_MS,
    connectionsPerMx: PER_MX_LIMIT,
  };
  const child = spawn(
    process.execPath,
    [
      ...HEAP_PRESSURE,
      "--import",
      "tsx",
      fileURLToPath(new URL("./interactive_during_bulk_child.ts", import.meta.url)),
      JSON.stringify(spec),
    ],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const exited = once(child, "exit");
  t.after(() => {
    if (child.exitCode === null) child.kill("SIGKILL");
  });
  const out = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async () => {
    const line = await out.next();
    if (line.done) throw new Error(`the engine process exited (${child.exitCode ?? child.signalCode})`);
    return JSON.parse(line.value);
  };

  // The bulk chunk holds every connection to both peers: each has had recipients on all three already.
  await eventually("the bulk chunk to keep both peers busy", () => peers.map((p) => p.recipients.length), {
    until: (counts) => counts.every((n) => n >= 2 * PER_MX_LIMIT),
    timeoutMs: 30_000,
    intervalMs: 20,
  });
  child.stdin!.write("go\n");
  const { singles, bulkAnsweredBefore } = (await next()) as { singles: Answer[]; bulkAnsweredBefore: number };

  await t.test("each single call gets the peer's real verdict within EMAIL_DEADLINE_MS + 1 s", () => {
    const wrong = singles
      .filter((a) => got(a) !== want(a.email) || a.ms! > CALL_BOUND_MS)
      .map((a) => `${a.email}: want ${want(a.email)}, got ${got(a)} after ${a.ms} ms`);
    assert.deepEqual(wrong, [], `${wrong.length} of ${singles.length} single calls waited behind the bulk chunk`);
  });

  await t.test("the bulk chunk was still running when they were answered: they did not wait it out", () => {
    assert.ok(
      bulkAnsweredBefore < spec.bulk.length / 2,
      `${bulkAnsweredBefore} of ${spec.bulk.length} bulk answers were in`,
    );
  });

  await t.test("the bulk chunk ends with every answer right", async () => {
    const { bulk } = (await next()) as { bulk: Answer[] };
    assert.equal(bulk.length, spec.bulk.length);
    const wrong = bulk.filter((a) => got(a) !== want(a.email)).map((a) => `${a.email}: ${got(a)}`);
    assert.deepEqual(wrong, [], `${wrong.length} of ${bulk.length} bulk answers wrong`);
    assert.equal((await exited)[0], 0);
  });

  await t.test(`neither peer ever saw more than ${PER_MX_LIMIT} connections at once`, () => {
    for (const [i, peer] of peers.entries()) {
      assert.ok(peer.maxConcurrent >= 1, `${MX[i]!.domain} was dialled`);
      assert.ok(
        peer.maxConcurrent <= PER_MX_LIMIT,
        `${MX[i]!.domain} saw ${peer.maxConcurrent} connections at once over ${peer.connections} in all`,
      );
    }
  });
});
