// interactive_during_bulk: how long a single call to a mail exchanger takes while a bulk job keeps that exchanger
// busy, beside the same calls with no job running (the baseline, from the same run). One loopback SMTP peer
// (127.0.37.10:25, in a process of its own: lib/peer_process.ts) answers each RCPT TO after 300 ms and the rest of the
// dialogue at once; a bulk job of 200 of its addresses through the job store, the runner and the email engine holds
// every connection the per-MX limit allows for about 20 s. Single calls (engine.verify(), as POST /v1/email and the
// signup make them) for other mailboxes of the same exchanger run in two lanes, first with no job (baseline), then
// once the job has started; the bench prints their p50 and p99, how many ended probe_timeout, the job's wall time
// against its floor, and the most connections the peer saw at once. Twice: against a peer without PIPELINING, then
// with it. Prints one line.
//   npx tsx bench/interactive_during_bulk.ts   (BENCH_N, BENCH_CALLS, BENCH_RCPT_DELAY_MS to change the sizes;
//                                               DATABASE_URL to use a PostgreSQL instead of an embedded database)
import { createEmailEngine } from "../src/email/engine.ts";
import { startJobRunner } from "../src/jobs/runner.ts";
import { silentLogger } from "../src/log.ts";
import { openBenchDatabase, peerConfig, tableResolver, timeJob } from "./lib/bulk_job.ts";
import { startPeerProcess } from "./lib/peer_process.ts";

const N = Number(process.env.BENCH_N ?? 200);
const CALLS = Number(process.env.BENCH_CALLS ?? 30);
const RCPT_DELAY_MS = Number(process.env.BENCH_RCPT_DELAY_MS ?? 300);
/** The engine's default per-MX connection limit, passed explicitly so the floor below is the one that applies. */
const CONNECTIONS_PER_MX = 3;
const LANES = 2;
const DOMAIN = "busy.vrai-bulk.net";
const MX_IP = "127.0.37.10";
/** Lower bound on the job's wall time: every RCPT of the job goes through CONNECTIONS_PER_MX connections to one peer. */
const FLOOR_S = (N * RCPT_DELAY_MS) / 1000 / CONNECTIONS_PER_MX;
/** Budgets of a signup form's check: the single calls must answer well within them. */
const PROBE_TIMEOUT_MS = 3000;
const EMAIL_DEADLINE_MS = 6000;

// MX answers come from a table: the bench measures the SMTP schedule, not a DNS server.
const resolver = tableResolver(() => MX_IP);

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;

interface Calls {
  p50: number;
  p99: number;
  timeouts: number;
}

async function main(): Promise<void> {
  const db = await openBenchDatabase();
  const config = peerConfig({ probeTimeoutMs: PROBE_TIMEOUT_MS, emailDeadlineMs: EMAIL_DEADLINE_MS });
  // The job asks user0..user{N-1}, which exist; the single calls ask user{N}..user{N+CALLS-1}, half of which exist.
  const existingBelow = N + Math.ceil(CALLS / 2);
  try {
    /** CALLS single calls in LANES lanes, one after another in each; their durations and probe_timeout count. */
    async function singles(engine: ReturnType<typeof createEmailEngine>, round: number): Promise<Calls> {
      const durations: number[] = [];
      let timeouts = 0;
      let next = 0;
      const lane = async () => {
        while (next < CALLS) {
          const i = next++;
          // Mailboxes the job does not ask, at the job's domain (so at its MX host) in the round with a job.
          const email = `user${N + i}@r${round}.${DOMAIN}`;
          const started = performance.now();
          const result = await engine.verify(email);
          durations.push(performance.now() - started);
          if (result.reasons.includes("probe_timeout")) timeouts++;
        }
      };
      await Promise.all(Array.from({ length: LANES }, lane));
      durations.sort((a, b) => a - b);
      return { p50: percentile(durations, 50), p99: percentile(durations, 99), timeouts };
    }

    async function variant(pipelining: boolean) {
      const peers = await startPeerProcess({
        hosts: [MX_IP],
        delayMs: 0,
        rcptDelayMs: RCPT_DELAY_MS,
        pipelining,
        existingBelow,
      });
      try {
        // A fresh engine per phase: the catch-all answer is found anew by each (the first call, or the job's first item).
        const idleEngine = createEmailEngine(config, {
          resolver,
          log: silentLogger,
          maxConnectionsPerMx: CONNECTIONS_PER_MX,
        });
        const idle = await singles(idleEngine, 0);
        await idleEngine.close();

        const engine = createEmailEngine(config, {
          resolver,
          log: silentLogger,
          maxConnectionsPerMx: CONNECTIONS_PER_MX,
        });
        const runner = startJobRunner({ sql: db.sql, verifier: engine, log: silentLogger, pollMs: 20 });
        const emails = Array.from({ length: N }, (_, i) => `user${i}@r1.${DOMAIN}`);
        const job = timeJob(db, runner, { emails, giveUpMs: (4 * FLOOR_S + 60) * 1000 });
        // The job has claimed its items and holds every connection to the peer by then.
        await new Promise((resolve) => setTimeout(resolve, 1500));
        const busy = await singles(engine, 1);
        const { seconds, job: read } = await job;
        await runner.stop();
        await engine.close();
        const report = await peers.report();
        const jobTimeouts = (read?.results ?? []).filter((r) => r.reasons.includes("probe_timeout")).length;
        return { idle, busy, seconds, jobTimeouts, maxConcurrent: report.maxConcurrent };
      } finally {
        await peers.stop();
      }
    }

    const ms = (n: number) => Math.round(n);
    const fields = (prefix: string, v: Awaited<ReturnType<typeof variant>>) => [
      `${prefix}idle_p50_ms=${ms(v.idle.p50)} ${prefix}idle_p99_ms=${ms(v.idle.p99)}`,
      `${prefix}during_bulk_p50_ms=${ms(v.busy.p50)} ${prefix}during_bulk_p99_ms=${ms(v.busy.p99)}`,
      `${prefix}probe_timeouts=${v.idle.timeouts + v.busy.timeouts}`,
      `${prefix}job_wall_s=${v.seconds.toFixed(1)} ${prefix}job_probe_timeouts=${v.jobTimeouts}`,
      `${prefix}max_connections_seen=${v.maxConcurrent}`,
    ];
    const plain = await variant(false);
    const piped = await variant(true);
    console.log(
      [
        `interactive_during_bulk calls=${CALLS} lanes=${LANES} bulk_n=${N} rcpt_delay_ms=${RCPT_DELAY_MS}`,
        `connections_per_mx=${CONNECTIONS_PER_MX} deadline_ms=${EMAIL_DEADLINE_MS} job_floor_s=${FLOOR_S.toFixed(1)}`,
        ...fields("", plain),
        ...fields("pipelined_", piped),
        `db=${db.kind} node=${process.version}`,
      ].join(" "),
    );
  } finally {
    await db.close();
  }
}

await main();
