// What the bulk benches share (bulk_5000, bulk_slow_mx): a database (a fresh schema of DATABASE_URL, or a fresh
// embedded one), MX answers from a table, the engine's settings for loopback peers, and one job timed from its
// submission to its end. The poll reads the job's status alone, one row by its key: a poll that fetched every result
// so far (or even counted them by verdict, as every API read does) every 50 ms would cost the database as much as the
// runner's own writes, and the bench would measure its own reads. The results are read once, after the clock stops.
import { loadConfig, type Config } from "../../src/config.ts";
import type { MxResolver } from "../../src/email/engine.ts";
import { createJobStore, type Job } from "../../src/jobs/job_store.ts";
import { VERDICTS } from "../../src/email/vocabulary.ts";
import type { JobRunner } from "../../src/jobs/runner.ts";
import { createAccount, openTestDatabase, type OpenTestDatabase } from "../../test/helpers/database.ts";

/** A fresh schema of DATABASE_URL when set, else a fresh embedded database; close() deletes either. */
export function openBenchDatabase(): Promise<OpenTestDatabase> {
  const databaseUrl = process.env.DATABASE_URL;
  return openTestDatabase(databaseUrl ? "postgres" : "embedded", { databaseUrl });
}

/** MX answers from a table, so that a bench measures SMTP, not a DNS server: `mx.<domain>` at `addressOf(domain)`. */
export function tableResolver(addressOf: (domain: string) => string): MxResolver {
  return {
    async resolveMx(domain) {
      return [{ exchange: `mx.${domain}`, priority: 10 }];
    },
    async resolveAddresses(host) {
      return [addressOf(host.replace(/^mx\./, ""))];
    },
  };
}

/** The server's configuration, with SMTP on port 25 of loopback peers and the given budgets. */
export function peerConfig(budgets: { probeTimeoutMs: number; emailDeadlineMs: number }): Config {
  return { ...loadConfig({}), probeAllowCidrs: ["127.0.0.0/8"], smtpPort: 25, ...budgets };
}

export interface TimedJob {
  seconds: number;
  /** The job as read after it ended (or when the bench gave up), every result included. */
  job: Job | undefined;
}

/**
 * Submits `emails` as one job of a new account, wakes `runner` and waits until the job ends or `giveUpMs` passes;
 * the time runs from the submission to the poll that saw the job end.
 */
export async function timeJob(
  db: OpenTestDatabase,
  runner: JobRunner,
  options: { emails: readonly string[]; giveUpMs?: number },
): Promise<TimedJob> {
  const { emails, giveUpMs = Number.POSITIVE_INFINITY } = options;
  const store = createJobStore(db.sql);
  const account = await createAccount(db.sql, "bench");
  const started = performance.now();
  const { jobId } = await store.submit(account, emails);
  runner.wake();
  const ended = async () => {
    const [row] = await db.sql`select status from jobs where id = ${jobId}`;
    return row === undefined || row.status === "completed" || row.status === "failed";
  };
  while (!(await ended()) && performance.now() - started < giveUpMs) {
    await new Promise((done) => setTimeout(done, 50));
  }
  const seconds = (performance.now() - started) / 1000;
  return { seconds, job: await store.read(account, jobId) };
}

/** "deliverable:4000,undeliverable:1000": the results counted by verdict, sorted. */
export function verdictCounts(job: Job | undefined): string {
  return VERDICTS.map((verdict) => [verdict, job?.summary[verdict] ?? 0] as const)
    .filter(([, n]) => n > 0)
    .map(([verdict, n]) => `${verdict}:${n}`)
    .sort()
    .join(",");
}
