// bulk_5000: one bulk job of 5000 addresses over 50 domains, through the job store, the runner and the email engine,
// against loopback SMTP peers (127.0.5.x:25) that answer each command after 50 ms, one reply after another on each
// connection. The same job runs three times: multi-recipient transactions against peers without PIPELINING, then
// with it, then one connection per address (no reuse), and each wall time is printed as a ratio of the lower bound
// the per-MX connection limit and the reply delay set:
//   bound = ceil((R + 1 + 3·C) / C) · delay
// where R = N / DOMAINS recipients per MX, +1 its catch-all probe, C connections per MX, and each connection pays at
// least a banner, an EHLO and one MAIL FROM (3 replies); a connection answers one reply per `delay`, whatever is
// pipelined. Prints one line.
//   npx tsx bench/bulk_5000.ts        (BENCH_N, BENCH_DELAY_MS, BENCH_BATCH, BENCH_LANES, BENCH_ENGINE_CONCURRENCY to change
//                                      the bounds;
//                                      DATABASE_URL to use a PostgreSQL instead of an embedded database)
import { createEmailEngine } from "../src/email/engine.ts";
import { startJobRunner } from "../src/jobs/runner.ts";
import { silentLogger } from "../src/log.ts";
import { startFastSmtpPeer, type SmtpPeer } from "../test/email/peers.ts";
import { openBenchDatabase, peerConfig, tableResolver, timeJob, verdictCounts } from "./lib/bulk_job.ts";

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

/** An SMTP server that answers every command, the greeting included, after DELAY_MS. Mailboxes user0..user79
 *  exist; the others (and the catch-all probe's random name) are unknown. */
function startSlowPeer(host: string, pipelining: boolean): Promise<SmtpPeer> {
  return startFastSmtpPeer({
    host,
    delayMs: DELAY_MS,
    pipelining,
    mailboxes: (local) => {
      const n = /^user(\d+)$/.exec(local)?.[1];
      return n !== undefined && Number(n) < 80;
    },
  });
}

const domainName = (i: number) => `d${i}.vrai-bulk.net`;
const mxIp = (i: number) => `127.0.5.${10 + i}`;

// MX answers come from a table: the bench measures SMTP, not a DNS server.
const resolver = tableResolver((domain) => mxIp(Number(/^d(\d+)\./.exec(domain)?.[1])));

async function main(): Promise<void> {
  const peers: SmtpPeer[] = [];
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
      await Promise.all(peers.splice(0).map((p) => p.stop()));
      for (let i = 0; i < DOMAINS; i++) peers.push(await startSlowPeer(mxIp(i), pipelining));
      const engine = createEmailEngine(config, {
        resolver,
        log: silentLogger,
        concurrency: ENGINE_CONCURRENCY,
        maxConnectionsPerMx: CONNECTIONS_PER_MX,
      });
      const opened = () => peers.reduce((sum, p) => sum + p.connections, 0);
      const before = opened();
      const runner = startJobRunner({
        sql: db.sql,
        verifier: engine,
        log: silentLogger,
        reuseConnections,
        pollMs: 20,
        batchSize: BATCH,
        lanes: LANES,
      });
      const { seconds, job } = await timeJob(db, runner, { emails });
      await runner.stop();
      await engine.close();
      return { seconds, connections: opened() - before, verdicts: verdictCounts(job) };
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
    await Promise.all(peers.map((p) => p.stop()));
    await db.close();
  }
}

await main();
