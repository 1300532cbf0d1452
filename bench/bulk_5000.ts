// bulk_5000: one bulk job of 5000 addresses over 50 domains, through the job store, the runner and the email engine,
// against loopback SMTP peers (127.0.5.x:25) that answer each command after 50 ms. The same job runs twice, with
// connection reuse and without, so the gain reads as a ratio from one run. Prints one line.
//   npx tsx bench/bulk_5000.ts        (BENCH_N, BENCH_DELAY_MS, BENCH_BATCH, BENCH_LANES, BENCH_ENGINE_CONCURRENCY to change
//                                      the bounds;
//                                      DATABASE_URL to use a PostgreSQL instead of an embedded database)
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config.ts";
import { createEmailEngine, type MxResolver } from "../src/email/engine.ts";
import { createJobStore } from "../src/jobs/job_store.ts";
import { startJobRunner } from "../src/jobs/runner.ts";
import { silentLogger } from "../src/log.ts";
import { openDatabase } from "../src/store/db.ts";
import { startFastSmtpPeer, type SmtpPeer } from "../test/email/peers.ts";

const N = Number(process.env.BENCH_N ?? 5000);
const DELAY_MS = Number(process.env.BENCH_DELAY_MS ?? 50);
// The runner's defaults unless set.
const BATCH = Number(process.env.BENCH_BATCH ?? 0) || undefined;
const LANES = Number(process.env.BENCH_LANES ?? 0) || undefined;
const ENGINE_CONCURRENCY = Number(process.env.BENCH_ENGINE_CONCURRENCY ?? 0) || undefined; // the engine's default
const DOMAINS = 50;

/** An SMTP server that answers every command, the greeting included, after DELAY_MS; no PIPELINING. Mailboxes
 *  user0..user79 exist; the others (and the catch-all probe's random name) are unknown. */
function startSlowPeer(host: string): Promise<SmtpPeer> {
  return startFastSmtpPeer({
    host,
    delayMs: DELAY_MS,
    pipelining: false,
    mailboxes: (local) => {
      const n = /^user(\d+)$/.exec(local)?.[1];
      return n !== undefined && Number(n) < 80;
    },
  });
}

const domainName = (i: number) => `d${i}.vrai-bulk.net`;
const mxIp = (i: number) => `127.0.5.${10 + i}`;

// MX answers come from a table: the bench measures SMTP, not a DNS server.
const resolver: MxResolver = {
  async resolveMx(domain) {
    return [{ exchange: `mx.${domain}`, priority: 10 }];
  },
  async resolveAddresses(host) {
    const i = Number(/^mx\.d(\d+)\./.exec(host)?.[1]);
    return [mxIp(i)];
  },
};

async function main(): Promise<void> {
  const peers: SmtpPeer[] = [];
  const stateDir = process.env.DATABASE_URL ? "" : mkdtempSync(join(tmpdir(), "vrai-bulk-bench-"));
  const schema = process.env.DATABASE_URL ? `bench_${randomUUID().replaceAll("-", "").slice(0, 12)}` : undefined;
  const db = await openDatabase({ databaseUrl: process.env.DATABASE_URL || undefined, stateDir }, { schema });
  try {
    for (let i = 0; i < DOMAINS; i++) peers.push(await startSlowPeer(mxIp(i)));
    const account = randomUUID();
    await db.sql`insert into accounts (id, name, plan) values (${account}, ${"bench-" + account}, 'unmetered')`;
    const store = createJobStore(db.sql);
    // Addresses spread over the domains as a real list would be; one in five mailboxes does not exist.
    const emails = Array.from({ length: N }, (_, i) => `user${Math.floor(i / DOMAINS) % 100}@${domainName(i % DOMAINS)}`);
    const config = {
      ...loadConfig({}),
      probeAllowCidrs: ["127.0.0.0/8"],
      smtpPort: 25,
      probeTimeoutMs: 10 * DELAY_MS + 2000,
      emailDeadlineMs: 20 * DELAY_MS + 5000,
    };

    async function run(reuseConnections: boolean): Promise<{ seconds: number; connections: number; verdicts: string }> {
      const engine = createEmailEngine(config, { resolver, log: silentLogger, concurrency: ENGINE_CONCURRENCY });
      const opened = () => peers.reduce((sum, p) => sum + p.connections, 0);
      const before = opened();
      const runner = startJobRunner({ sql: db.sql, verifier: engine, log: silentLogger, reuseConnections, pollMs: 20, batchSize: BATCH, lanes: LANES });
      const started = performance.now();
      const { jobId } = await store.submit(account, emails);
      runner.wake();
      let job = await store.read(account, jobId);
      while (job && job.status !== "completed" && job.status !== "failed") {
        await new Promise((done) => setTimeout(done, 50));
        job = await store.read(account, jobId);
      }
      const seconds = (performance.now() - started) / 1000;
      await runner.stop();
      await engine.close();
      const counts = new Map<string, number>();
      for (const r of job?.results ?? []) counts.set(r.verdict, (counts.get(r.verdict) ?? 0) + 1);
      const verdicts = [...counts].map(([v, n]) => `${v}:${n}`).sort().join(",");
      return { seconds, connections: opened() - before, verdicts };
    }

    const reuse = await run(true);
    const fresh = await run(false);
    console.log(
      [
        `bulk_5000 n=${N} domains=${DOMAINS} delay_ms=${DELAY_MS} batch=${BATCH ?? "default"} lanes=${LANES ?? "default"} engine_concurrency=${ENGINE_CONCURRENCY ?? "default"}`,
        `wall_s=${reuse.seconds.toFixed(2)} addr_s=${Math.round(N / reuse.seconds)} smtp_connections=${reuse.connections}`,
        `noreuse_wall_s=${fresh.seconds.toFixed(2)} noreuse_addr_s=${Math.round(N / fresh.seconds)} noreuse_smtp_connections=${fresh.connections}`,
        `speedup=${(fresh.seconds / reuse.seconds).toFixed(2)} connection_ratio=${(fresh.connections / Math.max(1, reuse.connections)).toFixed(2)}`,
        `verdicts=${reuse.verdicts} db=${db.kind} node=${process.version}`,
      ].join(" "),
    );
  } finally {
    await Promise.all(peers.map((p) => p.stop()));
    if (schema) await db.sql.unsafe(`drop schema ${schema} cascade`);
    await db.close();
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
  }
}

await main();
