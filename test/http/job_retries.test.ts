// A bulk job whose addresses wait out a retry cool-off, read as a poller reads it, against the real server process on
// each store (the embedded database, and a schema of the local PostgreSQL). A DNS server that never answers makes
// every MX lookup time out: each address is handed out, times out, waits for its one retry (the MX cool-off, seconds
// with PROBE_TIMEOUT_MS=1000), times out again and ends unknown [probe_timeout]. While they wait, `processed` (final
// answers, the spec's) stays 0: the job read's summary must say that they wait for a retry and when the first is due,
// and so must `npm run verify`'s progress.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type TestContext, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { startSilentDns } from "../email/peers.ts";
import { type DatabaseKind, testDatabase, urlWithSchema } from "../helpers/database.ts";
import { ROOT, readyzOk, runKeysCli, startChildServer } from "../helpers/process.ts";
import { tempDir } from "../helpers/temp_dir.ts";
import { openDatabase } from "../../src/store/db.ts";
import { runVerifyCli } from "../cli/verify_cli.ts";

const PROBE_TIMEOUT_MS = 1000;
/** What the server waits before the retry of a timed-out address (src/main.ts: the MX cool-off, then one budget). */
const RETRY_DELAY_MS = 6 * PROBE_TIMEOUT_MS + PROBE_TIMEOUT_MS;
/** Three domains, so three lookups: none is the same as another, and none is a typo of a known provider. */
const EMAILS = ["ann@retry-vrai-one.com", "bob@retry-vrai-two.net", "cat@retry-vrai-three.org"];
/** The whole job: two timed-out lookups and one cool-off per address, with room for a loaded machine. */
const JOB_BOUND_MS = 60_000;

interface JobRead {
  /** When the read was sent: the server's clock (this machine's) was at least this during it. */
  sent: number;
  /** When its answer came. */
  at: number;
  status: string;
  processed: number;
  summary: { retrying: number; next_retry_at: string | null; unknown: number };
  results: Array<{ verdict: string; reasons: string[] }>;
}

async function serverOn(t: TestContext, kind: DatabaseKind) {
  const dns = await startSilentDns();
  t.after(() => dns.stop());
  const db = testDatabase(kind);
  t.after(() => db.dispose());
  if (db.schema !== undefined) {
    // The schema is made and migrated here, as by an operator before the first start.
    const setup = await openDatabase({ databaseUrl: db.databaseUrl, stateDir: "" }, { schema: db.schema });
    await setup.close();
  }
  const env: Record<string, string> = {
    STATE_DIR: db.stateDir,
    ...(db.schema === undefined ? {} : { DATABASE_URL: urlWithSchema(db.schema) }),
    DNS_SERVERS: dns.server,
    PROBE_TIMEOUT_MS: String(PROBE_TIMEOUT_MS),
  };
  // Started as startServerProcess() does, with room for a machine that other test runs load.
  const server = await startChildServer("src/main.ts", {
    env: { BAN_DEPARTEMENTS: "", BAN_SOURCE: ROOT, ...env },
    timeoutMs: 180_000,
  });
  t.after(() => server.stop());
  assert.equal(server.child.exitCode, null, `the server did not start:\n${server.output()}`);
  // A PostgreSQL server listens before its database is migrated: jobs are accepted once /readyz says ready.
  await readyzOk(server.url, 120_000);
  const key = async (account: string) => {
    const created = await runKeysCli(env, ["create", "--account", account, "--plan", "unmetered", "--json"]);
    assert.equal(created.code, 0, created.stderr);
    return (JSON.parse(created.stdout) as { key: string }).key;
  };
  return { server, key };
}

for (const kind of ["embedded", "postgres"] as const) {
  test(`a job whose addresses wait for a retry says so in its summary, on the ${kind} store`, {
    timeout: 300_000,
  }, async (t) => {
    const { server, key: keyFor } = await serverOn(t, kind);
    const key = await keyFor("retries");
    const headers = { authorization: `Bearer ${key}` };
    const submitted = await fetch(`${server.url}/v1/email/bulk`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ emails: EMAILS }),
    });
    assert.equal(submitted.status, 202, await submitted.clone().text());
    const { job_id: id } = (await submitted.json()) as { job_id: string };

    // Polled as a client would (4 reads a second, within the 60/min read allowance), every read kept.
    const reads: JobRead[] = [];
    let csvWhileWaiting: { retrying: string | null; next: string | null; body: string } | undefined;
    const started = Date.now();
    for (;;) {
      const sent = Date.now();
      const response = await fetch(`${server.url}/v1/jobs/${id}`, { headers });
      assert.equal(response.status, 200);
      const read = { ...((await response.json()) as JobRead), sent, at: Date.now() };
      reads.push(read);
      if (read.summary.retrying === EMAILS.length && csvWhileWaiting === undefined) {
        const csv = await fetch(`${server.url}/v1/jobs/${id}`, { headers: { ...headers, accept: "text/csv" } });
        csvWhileWaiting = {
          retrying: csv.headers.get("x-job-retrying"),
          next: csv.headers.get("x-job-next-retry-at"),
          body: await csv.text(),
        };
      }
      if (read.status === "completed" || read.status === "failed") break;
      assert.ok(Date.now() - started < JOB_BOUND_MS, `the job did not end: ${JSON.stringify(read)}`);
      await sleep(250);
    }

    const waiting = reads.filter((r) => r.summary.retrying === EMAILS.length);
    assert.ok(
      waiting.length > 0,
      `some read saw every address waiting: ${JSON.stringify(reads.map((r) => r.summary))}`,
    );
    for (const read of waiting) {
      assert.equal(read.processed, 0, "a retry to come is no final answer");
      assert.deepEqual(read.results, []);
      // Due within one retry delay of the read (the server's clock is this machine's), never before the read.
      const due = Date.parse(read.summary.next_retry_at ?? "");
      assert.ok(
        due >= read.sent - 5 && due <= read.at + RETRY_DELAY_MS,
        `next_retry_at ${read.summary.next_retry_at} at ${new Date(read.at).toISOString()}`,
      );
    }
    assert.deepEqual(
      [csvWhileWaiting?.retrying, csvWhileWaiting?.next !== null, csvWhileWaiting?.body.trim()],
      ["3", true, "email,verdict,reasons,suggestion,disposable,role,catch_all"],
      "the CSV read says the same in its X-Job-* headers",
    );
    // No read counts an address both waiting and answered, and the count never goes past the job.
    for (const read of reads) assert.ok(read.processed + read.summary.retrying <= EMAILS.length, JSON.stringify(read));

    const last = reads.at(-1)!;
    assert.equal(last.status, "completed");
    assert.equal(last.processed, EMAILS.length);
    assert.deepEqual([last.summary.retrying, last.summary.next_retry_at, last.summary.unknown], [0, null, 3]);
    assert.deepEqual(
      last.results.map((r) => `${r.verdict} ${r.reasons.join("|")}`),
      Array(EMAILS.length).fill("unknown probe_timeout"),
    );

    if (kind !== "embedded") return;
    await t.test("npm run verify says the addresses wait for a retry while the count stands at 0", async () => {
      const dir = tempDir("vrai-retries-");
      t.after(() => dir.remove());
      const input = join(dir.path, "list.csv");
      writeFileSync(input, `email\n${EMAILS.join("\n")}\n`);
      const run = await runVerifyCli([
        input,
        "--out",
        "-",
        "--url",
        server.url,
        "--key",
        await keyFor("cli"),
        "--poll",
        "0.25",
      ]);
      assert.equal(run.code, 0, run.stderr);
      assert.match(
        run.stderr,
        /^verify: 0\/3 addresses \(0%\), 0\.0\/s, 3 waiting for a retry, (next in \d+s|due now)$/m,
      );
      assert.match(run.stderr, /^verify: 3\/3 addresses \(100%\), [\d.]+\/s$/m);
      assert.match(run.stderr, /^Done: 3 rows written to stdout$/m);
    });
  });
}
