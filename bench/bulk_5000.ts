// bulk_5000: one bulk job of 5000 addresses over 50 domains, through the job store, the runner and the email engine,
// against loopback SMTP peers (127.0.5.x:25, in a process of their own: lib/peer_process.ts) that answer each command
// after 50 ms, one reply after another on each connection. The same job runs three times: multi-recipient transactions against peers without PIPELINING, then
// with it, then one connection per address (no reuse), and each wall time is printed as a ratio of the lower bound
// the per-MX connection limit and the reply delay set:
//   bound = ceil((R + 1 + 3·C) / C) · delay
// where R = N / DOMAINS recipients per MX, +1 its catch-all probe, C connections per MX, and each connection pays at
// least a banner, an EHLO and one MAIL FROM (3 replies); a connection answers one reply per `delay`, whatever is
// pipelined. Prints one line.
//   npx tsx bench/bulk_5000.ts        (BENCH_N, BENCH_DELAY_MS, BENCH_BATCH, BENCH_LANES, BENCH_ENGINE_CONCURRENCY to change
//                                      the bounds;
//                                      DATABASE_URL to use a PostgreSQL instead of an embedded database;
//                                      BENCH_DIAG=1 to print, on stderr, where each run's time went on the SMTP side)
import { monitorEventLoopDelay } from "node:perf_hooks";
import { createEmailEngine } from "../src/email/engine.ts";
import { startJobRunner } from "../src/jobs/runner.ts";
import { silentLogger } from "../src/log.ts";
import { openBenchDatabase, peerConfig, tableResolver, timeJob, verdictCounts } from "./lib/bulk_job.ts";
import { startPeerProcess, type PeerProcess, type PeerReport } from "./lib/peer_process.ts";

const N = Number(process.env.BENCH_N ?? 5000);
const DELAY_MS = Number(process.env.BENCH_DELAY_MS ?? 50);
// The runner's defaults unless set.
const BATCH = Number(process.env.BENCH_BATCH ?? 0) || undefined;
const LANES = Number(process.env.BENCH_LANES ?? 0) || undefined;
const ENGINE_CONCURRENCY = Number(process.env.BENCH_ENGINE_CONCURRENCY ?? 0) || undefined; // the engine's default
const DOMAINS = 50;
/** The engine's default per-MX connection limit, passed explicitly so the bound below is the one that applies. */
const CONNECTIONS_PER_MX = 3;
const RECIPIENTS_PER_MX = Math.ceil(N / DOMAINS);
const BOUND_S = (Math.ceil((RECIPIENTS_PER_MX + 1 + 3 * CONNECTIONS_PER_MX) / CONNECTIONS_PER_MX) * DELAY_MS) / 1000;

const domainName = (i: number) => `d${i}.vrai-bulk.net`;
const mxIp = (i: number) => `127.0.5.${10 + i}`;

// MX answers come from a table: the bench measures SMTP, not a DNS server.
const resolver = tableResolver((domain) => mxIp(Number(/^d(\d+)\./.exec(domain)?.[1])));

async function main(): Promise<void> {
  let peers: PeerProcess | undefined;
  const db = await openBenchDatabase();
  try {
    // Addresses spread over the domains as a real list would be; one in five mailboxes does not exist.
    const emails = Array.from(
      { length: N },
      (_, i) => `user${Math.floor(i / DOMAINS) % 100}@${domainName(i % DOMAINS)}`,
    );
    const config = peerConfig({ probeTimeoutMs: 10 * DELAY_MS + 2000, emailDeadlineMs: 20 * DELAY_MS + 5000 });

    async function run(
      reuseConnections: boolean,
      pipelining: boolean,
    ): Promise<{ seconds: number; connections: number; verdicts: string }> {
      await peers?.stop();
      // Every command answered after DELAY_MS; mailboxes user0..user79 exist, the others (and the catch-all probe's
      // random name) are unknown.
      peers = await startPeerProcess({
        hosts: Array.from({ length: DOMAINS }, (_, i) => mxIp(i)),
        delayMs: DELAY_MS,
        pipelining,
        existingBelow: 80,
      });
      const engine = createEmailEngine(config, {
        resolver,
        log: silentLogger,
        concurrency: ENGINE_CONCURRENCY,
        maxConnectionsPerMx: CONNECTIONS_PER_MX,
      });
      const before = (await peers.report()).connections;
      const runner = startJobRunner({
        sql: db.sql,
        verifier: engine,
        log: silentLogger,
        reuseConnections,
        pollMs: 20,
        batchSize: BATCH,
        lanes: LANES,
      });
      const submitted = performance.now();
      const busy = performance.eventLoopUtilization();
      const lag = monitorEventLoopDelay({ resolution: 5 });
      lag.enable();
      const { seconds, job } = await timeJob(db, runner, { emails });
      const report = await peers.report();
      const elu = performance.eventLoopUtilization(busy).utilization;
      lag.disable();
      const lagMs = `loop_delay_ms_p50=${(lag.percentile(50) / 1e6).toFixed(0)} p99=${(lag.percentile(99) / 1e6).toFixed(0)}`;
      if (process.env.BENCH_DIAG)
        console.error(
          `${diagnose(report, reuseConnections, pipelining, submitted, seconds)} elu=${elu.toFixed(2)} ${lagMs}`,
        );
      await runner.stop();
      await engine.close();
      return { seconds, connections: report.connections - before, verdicts: verdictCounts(job) };
    }

    /**
     * Where the time went, from the peers' command logs: commands by verb, transactions and recipients per
     * connection, when the first and last commands came, and how long connections sat idle while holding a slot
     * (time not covered by a reply being worked on).
     */
    function diagnose(
      report: PeerReport,
      reuse: boolean,
      pipelining: boolean,
      submitted: number,
      seconds: number,
    ): string {
      const verbs = new Map<string, number>();
      let first = Number.POSITIVE_INFINITY;
      let last = 0;
      let idle = 0;
      let connectionCount = 0;
      let busiest = 0;
      const replyMs = DELAY_MS;
      const byConnection = new Map<string, number[]>();
      for (const { host, connection, line, at: epochMs } of report.lines) {
        const at = epochMs - performance.timeOrigin; // on this process's clock, as `submitted`
        const verb = line.slice(0, 4).toUpperCase();
        verbs.set(verb, (verbs.get(verb) ?? 0) + 1);
        first = Math.min(first, at);
        last = Math.max(last, at);
        if (verb === "QUIT") continue;
        const key = `${host}#${connection}`;
        const times = byConnection.get(key) ?? [];
        times.push(at);
        byConnection.set(key, times);
      }
      for (const times of byConnection.values()) {
        connectionCount++;
        busiest = Math.max(busiest, times.length + 1);
        // The peer works on one reply at a time: replies end at max(arrival, previous end) + delay.
        let end = times[0]!; // the banner was sent delay ms after connect, before the first command
        let waited = 0;
        for (const at of times) {
          if (at > end) waited += at - end;
          end = Math.max(at, end) + replyMs;
        }
        idle += waited;
      }
      const ms = (t: number) => Math.round(t);
      return [
        `diag reuse=${reuse} pipelining=${pipelining} wall_ms=${ms(seconds * 1000)}`,
        `first_command_ms=${ms(first - submitted)} last_command_ms=${ms(last - submitted)}`,
        `connections=${connectionCount} max_replies_per_connection=${busiest}`,
        `idle_ms_per_connection=${ms(idle / Math.max(1, connectionCount))}`,
        ...[...verbs].map(([verb, n]) => `${verb.toLowerCase()}=${n}`),
      ].join(" ");
    }

    const reuse = await run(true, false);
    const piped = await run(true, true);
    const fresh = await run(false, false);
    const ratio = (seconds: number) => (seconds / BOUND_S).toFixed(2);
    console.log(
      [
        `bulk_5000 n=${N} domains=${DOMAINS} delay_ms=${DELAY_MS} connections_per_mx=${CONNECTIONS_PER_MX} batch=${BATCH ?? "default"} lanes=${LANES ?? "default"} engine_concurrency=${ENGINE_CONCURRENCY ?? "default"}`,
        `bound_s=${BOUND_S.toFixed(2)}`,
        `wall_s=${reuse.seconds.toFixed(2)} ratio=${ratio(reuse.seconds)} addr_s=${Math.round(N / reuse.seconds)} smtp_connections=${reuse.connections}`,
        `pipelined_wall_s=${piped.seconds.toFixed(2)} pipelined_ratio=${ratio(piped.seconds)} pipelined_smtp_connections=${piped.connections}`,
        `noreuse_wall_s=${fresh.seconds.toFixed(2)} noreuse_ratio=${ratio(fresh.seconds)} noreuse_smtp_connections=${fresh.connections}`,
        `speedup=${(fresh.seconds / reuse.seconds).toFixed(2)}`,
        `verdicts=${reuse.verdicts} db=${db.kind} node=${process.version}`,
      ].join(" "),
    );
  } finally {
    await peers?.stop();
    await db.close();
  }
}

await main();
