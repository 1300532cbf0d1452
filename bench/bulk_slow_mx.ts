// bulk_slow_mx: one bulk job whose 300 addresses share ONE mail exchanger that answers every RCPT after 300 ms (the
// rest of the dialogue at once), through the job store, the runner and the email engine, against a loopback SMTP peer
// (127.0.11.10:25). The per-MX connection limit makes the peer a queue: 300 × 0.3 s over 3 connections is a floor of
// 30 s that no schedule can beat, printed as the peer of the measured wall time. Each item's budget must cover its own
// dialogue only, never its wait in that queue: the count of probe_timeout answers must be 0 (the script exits 1
// otherwise). Prints one line.
// The budgets are those of the run that found the fault (a bulk job's items timed out waiting for a slow MX):
// PROBE_TIMEOUT_MS=3000, EMAIL_DEADLINE_MS=6000. With the defaults (10 s, 15 s) a queue of 300 at 10 addresses a second
// hid it.
//   npx tsx bench/bulk_slow_mx.ts     (BENCH_N, BENCH_RCPT_DELAY_MS, BENCH_PROBE_TIMEOUT_MS, BENCH_DEADLINE_MS to change the
//                                      bounds; DATABASE_URL to use a PostgreSQL instead of an embedded database)
import { createEmailEngine } from "../src/email/engine.ts";
import { startJobRunner } from "../src/jobs/runner.ts";
import { silentLogger } from "../src/log.ts";
import { startFastSmtpPeer } from "../test/email/peers.ts";
import { openBenchDatabase, peerConfig, tableResolver, timeJob, verdictCounts } from "./lib/bulk_job.ts";

const N = Number(process.env.BENCH_N ?? 300);
const RCPT_DELAY_MS = Number(process.env.BENCH_RCPT_DELAY_MS ?? 300);
/** The engine's default per-MX connection limit, passed explicitly so the floor below is the one that applies. */
const CONNECTIONS_PER_MX = 3;
const DOMAIN = "slow.vrai-bulk.net";
const MX_IP = "127.0.11.10";
/** Lower bound on the wall time: every RCPT of the job goes through CONNECTIONS_PER_MX connections to one peer. */
const FLOOR_S = (N * RCPT_DELAY_MS) / 1000 / CONNECTIONS_PER_MX;
/** The job must end: past this the bench stops waiting and reports where the job was. */
const GIVE_UP_S = 4 * FLOOR_S + 60;

// MX answers come from a table: the bench measures the SMTP schedule, not a DNS server.
const resolver = tableResolver(() => MX_IP);

async function main(): Promise<void> {
  const db = await openBenchDatabase();
  // Four in five mailboxes exist (user0..user239 of 300); the catch-all probe's random name does not.
  const peer = await startFastSmtpPeer({
    host: MX_IP,
    rcptDelayMs: RCPT_DELAY_MS,
    pipelining: false,
    mailboxes: (local) => Number(/^user(\d+)$/.exec(local)?.[1] ?? NaN) < Math.floor((N * 4) / 5),
  });
  try {
    const emails = Array.from({ length: N }, (_, i) => `user${i}@${DOMAIN}`);
    const config = peerConfig({
      probeTimeoutMs: Number(process.env.BENCH_PROBE_TIMEOUT_MS ?? 0) || 3000,
      emailDeadlineMs: Number(process.env.BENCH_DEADLINE_MS ?? 0) || 6000,
    });
    const engine = createEmailEngine(config, { resolver, log: silentLogger, maxConnectionsPerMx: CONNECTIONS_PER_MX });
    const runner = startJobRunner({ sql: db.sql, verifier: engine, log: silentLogger, pollMs: 20 });
    const { seconds, job } = await timeJob(db, runner, { emails, giveUpMs: GIVE_UP_S * 1000 });
    await runner.stop();
    await engine.close();

    const timeouts = (job?.results ?? []).filter((r) => r.reasons.includes("probe_timeout")).length;
    const verdicts = verdictCounts(job);
    console.log(
      [
        `bulk_slow_mx n=${N} rcpt_delay_ms=${RCPT_DELAY_MS} mx_connections=${CONNECTIONS_PER_MX}`,
        `probe_timeout_ms=${config.probeTimeoutMs} deadline_ms=${config.emailDeadlineMs}`,
        `status=${job?.status ?? "missing"} processed=${job?.processed ?? 0}`,
        `wall_s=${seconds.toFixed(2)} addr_s=${(N / seconds).toFixed(1)} probe_timeout=${timeouts}`,
        `floor_s=${FLOOR_S.toFixed(2)} vs_floor=${(seconds / FLOOR_S).toFixed(2)} smtp_connections=${peer.connections}`,
        `verdicts=${verdicts} db=${db.kind} node=${process.version}`,
      ].join(" "),
    );
    // The promise of the bench: the job ends, and the service never blames the peer for its own queue.
    if (job?.status !== "completed" || timeouts > 0) process.exitCode = 1;
  } finally {
    await peer.stop();
    await db.close();
  }
}

await main();
