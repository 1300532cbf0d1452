// cluster_bulk: the same bulk job of 5000 addresses over 50 domains worked by one process, then by three processes
// sharing one PostgreSQL (the real program, `ROLE=worker`, src/main.ts), against loopback SMTP peers (127.0.41.100+,
// in a process of their own: lib/peer_process.ts) that answer each command after 50 ms. The per-MX connection limit
// holds for the whole cluster (docs/decisions.md, "A cluster of processes"), so three processes cannot go faster than
// one; what is measured is what the coordination costs: `ratio` = three processes' wall time / one process's (the
// issue asks at most 1.5), and each against the bound the limit and the reply delay set:
//   bound = ceil((R + 1 + 3·C) / C) · delay    (as in bulk_5000.ts: R recipients per MX, C connections per MX)
// `max_per_mx` is the most connections one peer saw at once over each run (the limit C must hold).
// Needs dnsmasq (DNS for the worker processes), root (peers on port 25) and PostgreSQL (TEST_DATABASE_URL or the
// local one).
//   npx tsx bench/cluster_bulk.ts     (BENCH_N, BENCH_DELAY_MS, BENCH_PROCESSES to change it)
import { createJobStore } from "../src/jobs/job_store.ts";
import { startDnsmasq } from "../test/email/peers.ts";
import { createAccount, openTestDatabase, urlWithSchema } from "../test/helpers/database.ts";
import { eventually } from "../test/helpers/eventually.ts";
import { startChildServer, type ServerProcess } from "../test/helpers/process.ts";
import { verdictCounts } from "./lib/bulk_job.ts";
import { startPeerProcess } from "./lib/peer_process.ts";

const N = Number(process.env.BENCH_N ?? 5000);
const DELAY_MS = Number(process.env.BENCH_DELAY_MS ?? 50);
const PROCESSES = Number(process.env.BENCH_PROCESSES ?? 3);
const DOMAINS = 50;
const CONNECTIONS_PER_MX = 3;
const RECIPIENTS_PER_MX = Math.ceil(N / DOMAINS);
const BOUND_S = (Math.ceil((RECIPIENTS_PER_MX + 1 + 3 * CONNECTIONS_PER_MX) / CONNECTIONS_PER_MX) * DELAY_MS) / 1000;
const ZONE = "vrai-cluster-bench.net";

const domainName = (i: number) => `d${i}.${ZONE}`;
const mxIp = (i: number) => `127.0.41.${100 + i}`;

async function main(): Promise<void> {
  const dns = await startDnsmasq({
    zones: [ZONE],
    mx: Array.from({ length: DOMAINS }, (_, i) => ({
      domain: domainName(i),
      exchange: `mx.${domainName(i)}`,
      priority: 10,
    })),
    hosts: Array.from({ length: DOMAINS }, (_, i) => ({ name: `mx.${domainName(i)}`, address: mxIp(i) })),
  });
  const emails = Array.from({ length: N }, (_, i) => `user${Math.floor(i / DOMAINS) % 100}@${domainName(i % DOMAINS)}`);
  try {
    async function run(
      processes: number,
    ): Promise<{ seconds: number; maxPerMx: number; connections: number; verdicts: string }> {
      const peers = await startPeerProcess({
        hosts: Array.from({ length: DOMAINS }, (_, i) => mxIp(i)),
        delayMs: DELAY_MS,
        pipelining: false,
        existingBelow: 80,
      });
      const db = await openTestDatabase("postgres");
      const workers: ServerProcess[] = [];
      try {
        const env = {
          DATABASE_URL: urlWithSchema(db.schema!),
          ROLE: "worker",
          DNS_SERVERS: dns.server,
          PROBE_ALLOW_CIDRS: "127.0.0.0/8",
          SMTP_MAX_PER_MX: String(CONNECTIONS_PER_MX),
          PROBE_TIMEOUT_MS: String(10 * DELAY_MS + 2000),
          BAN_DEPARTEMENTS: "",
          LOG_LEVEL: "info",
        };
        for (let i = 0; i < processes; i++)
          workers.push(await startChildServer("src/main.ts", { env, readyPath: "/healthz", keepOutput: true }));
        for (const worker of workers) {
          await eventually("a worker to work jobs", () => worker.output().includes('"msg":"job runner started"'), {
            timeoutMs: 30_000,
          });
        }
        const store = createJobStore(db.sql);
        const account = await createAccount(db.sql, "bench");
        const started = performance.now();
        const { jobId } = await store.submit(account, emails);
        // The workers claim on their poll (every second, as they would a job an API process took).
        for (;;) {
          const [row] = await db.sql`select status from jobs where id = ${jobId}`;
          if (row === undefined || row.status === "completed" || row.status === "failed") break;
          await new Promise((done) => setTimeout(done, 50));
        }
        const seconds = (performance.now() - started) / 1000;
        const report = await peers.report();
        const verdicts = verdictCounts(await store.read(account, jobId));
        return { seconds, maxPerMx: report.maxConcurrent, connections: report.connections, verdicts };
      } finally {
        await Promise.all(workers.map((w) => w.stop()));
        await peers.stop();
        await db.close();
      }
    }

    const one = await run(1);
    const many = await run(PROCESSES);
    console.log(
      [
        `cluster_bulk n=${N} domains=${DOMAINS} delay_ms=${DELAY_MS} connections_per_mx=${CONNECTIONS_PER_MX}`,
        `bound_s=${BOUND_S.toFixed(2)}`,
        `one_wall_s=${one.seconds.toFixed(2)} one_bound_ratio=${(one.seconds / BOUND_S).toFixed(2)} one_max_per_mx=${one.maxPerMx} one_smtp_connections=${one.connections}`,
        `processes=${PROCESSES} wall_s=${many.seconds.toFixed(2)} bound_ratio=${(many.seconds / BOUND_S).toFixed(2)} max_per_mx=${many.maxPerMx} smtp_connections=${many.connections}`,
        `ratio=${(many.seconds / one.seconds).toFixed(2)}`,
        `verdicts=${many.verdicts} one_verdicts=${one.verdicts} node=${process.version}`,
      ].join(" "),
    );
  } finally {
    await dns.stop();
  }
}

await main();
