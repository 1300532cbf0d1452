// What a client sees when the disk under STATE_DIR fills up and is freed again (docs/decisions.md "Storage"), on the
// real program over a small tmpfs: calls that write answer 503 service-unavailable with Retry-After, never 500; /readyz
// says why; the episode is logged once; once the filler is removed the service serves again without a restart, and a
// job accepted before the disk filled completes. Both ways PGlite meets a full disk are driven: a table that cannot
// grow (an ERROR, the instance goes on) and a WAL segment that cannot be created (a PANIC, the instance is opened
// again).
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import postgres from "postgres";
import { ROOT, runKeysCli, startChildServer, type ServerProcess } from "../helpers/process.ts";
import { eventually } from "../helpers/eventually.ts";
import { mountTmpfs, type Tmpfs } from "../helpers/tmpfs.ts";

/** The embedded database takes about 40 MiB (one 16 MiB WAL segment among them): room for it and a few jobs. */
const TMPFS_MB = 96;
/** Addresses under a top-level domain that does not exist: answered at once, without DNS or SMTP. */
const DOMAIN = "disk-full.invalid";
/** How long the service may take to notice the freed space (a probe a second; reopening PGlite on a busy machine). */
const RECOVERY_MS = 120_000;

interface Logged {
  level: string;
  msg: string;
  [field: string]: unknown;
}

function logLines(server: ServerProcess): Logged[] {
  return server
    .output()
    .split("\n")
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as Logged];
      } catch {
        return [];
      }
    });
}

interface Setup {
  tmpfs: Tmpfs;
  server: ServerProcess;
  stateDir: string;
  /** Submits a job of `size` new addresses. */
  submit(size?: number): Promise<Response>;
  readJob(id: string): Promise<Response>;
  readyz(): Promise<{ status: number; body: { status: string; checks: { database: unknown } } }>;
}

async function setUp(t: TestContext): Promise<Setup | string> {
  const tmpfs = mountTmpfs(t, { sizeMb: TMPFS_MB });
  if (typeof tmpfs === "string") return tmpfs;
  const stateDir = join(tmpfs.path, "state");
  const env = { STATE_DIR: stateDir, BAN_DEPARTEMENTS: "", BAN_SOURCE: ROOT };
  // A new embedded database takes a while on a busy machine: the server makes it, the key goes through its socket.
  const server = await startChildServer("src/main.ts", { env, timeoutMs: 180_000 });
  t.after(() => server.stop());
  // The key is made once the server's database is ready (migrated), as an operator would after a first start.
  await eventually("/readyz to answer 200", () => fetch(`${server.url}/readyz`), {
    until: (answer) => answer.status === 200,
    timeoutMs: 120_000,
    intervalMs: 250,
  });
  const createKey = () => runKeysCli(env, ["create", "--account", "disk", "--plan", "unmetered", "--json"], 60_000);
  let created = await createKey();
  // Once in a full CI run (Node 24) the CLI's connection through the server's socket was reset at setup, before any
  // disk was filled; the cause is not found yet. What this test checks comes later.
  if (created.code !== 0 && /ECONNRESET/.test(created.stderr)) created = await createKey();
  assert.equal(created.code, 0, created.stderr);
  const headers = { "content-type": "application/json", authorization: `Bearer ${JSON.parse(created.stdout).key}` };
  let jobs = 0;
  return {
    tmpfs,
    server,
    stateDir,
    submit(size = 5000) {
      const n = jobs++;
      const emails = Array.from({ length: size }, (_, i) => `someone-${n}-${i}@${DOMAIN}`);
      return fetch(`${server.url}/v1/email/bulk`, { method: "POST", headers, body: JSON.stringify({ emails }) });
    },
    readJob: (id) => fetch(`${server.url}/v1/jobs/${id}`, { headers }),
    async readyz() {
      const answer = await fetch(`${server.url}/readyz`);
      return { status: answer.status, body: await answer.json() };
    },
  };
}

/** A refusal for lack of space, as the client sees it. */
async function assertDiskFullRefusal(answer: Response): Promise<void> {
  const body = await answer.text();
  assert.equal(answer.status, 503, body);
  assert.equal(answer.headers.get("content-type"), "application/problem+json");
  const problem = JSON.parse(body);
  assert.match(problem.type, /\/errors\/service-unavailable$/);
  assert.match(problem.detail, /disk is full/);
  assert.match(answer.headers.get("retry-after") ?? "", /^[1-9][0-9]*$/);
}

/** Once space is back: /readyz 200, a new job accepted, and every job named completes with all its results. */
async function assertRecovery(setup: Setup, accepted: string[]): Promise<void> {
  await eventually("/readyz to answer 200 once space is freed", () => setup.readyz(), {
    until: (ready) => ready.status === 200,
    timeoutMs: RECOVERY_MS,
    intervalMs: 250,
  });
  const after = await setup.submit(10);
  assert.equal(after.status, 202, await after.clone().text());
  for (const id of [...accepted, (await after.json()).job_id]) {
    const job = await eventually(`job ${id} to complete`, async () => (await setup.readJob(id)).json(), {
      until: (job) => job.status === "completed",
      // Items whose results could not be written return to the queue when their lease (60 s) runs out.
      timeoutMs: 180_000,
      intervalMs: 500,
      describe: (job) => `${job.status} ${job.processed}/${job.total}`,
    });
    assert.equal(job.processed, job.total);
    assert.equal(job.results.length, job.total);
    for (const result of job.results) assert.equal(result.verdict, "undeliverable", result.email);
  }
}

/** One warning for the episode, one line when it ends, never a 500, and the process stops cleanly. */
async function assertLogsAndStop(server: ServerProcess): Promise<void> {
  const lines = logLines(server);
  assert.equal(lines.filter((l) => l.msg === "database disk full").length, 1, "the episode is warned about once");
  assert.ok(lines.some((l) => l.msg === "database disk space is back"));
  assert.deepEqual(
    lines.filter((l) => l.msg === "request" && l.status === 500),
    [],
    "no call answered 500",
  );
  await server.stop();
  assert.equal(await server.exited, 0, "SIGTERM stops the process");
}

test("with no room left under STATE_DIR, bulk submissions answer 503 with Retry-After, job reads still answer, /readyz says why, and all comes back once space is freed", {
  timeout: 600_000,
}, async (t) => {
  const setup = await setUp(t);
  if (typeof setup === "string") return t.skip(setup);
  const { tmpfs, server, submit, readJob, readyz } = setup;
  const before = await submit();
  assert.equal(before.status, 202);
  const accepted = [(await before.json()).job_id as string];

  tmpfs.fill(0);
  // A table that cannot grow: PostgreSQL's ERROR 53100, "could not extend file".
  for (let i = 0; i < 3; i++) await assertDiskFullRefusal(await submit());
  const ready = await readyz();
  assert.equal(ready.status, 503);
  assert.equal(ready.body.status, "not ready");
  assert.match(String(ready.body.checks.database), /^disk full under STATE_DIR: .*No space left on device/);
  assert.equal((await fetch(`${server.url}/healthz`)).status, 200, "the process is alive");
  // Reads need no space.
  assert.equal((await readJob(accepted[0]!)).status, 200);

  tmpfs.unfill();
  await assertRecovery(setup, accepted);
  await assertLogsAndStop(server);
});

test("when a new WAL segment cannot be created (PGlite's PANIC), calls answer 503, /readyz says why, and the database is opened again once space is freed", {
  timeout: 600_000,
}, async (t) => {
  const setup = await setUp(t);
  if (typeof setup === "string") return t.skip(setup);
  const { tmpfs, server, stateDir, submit, readyz } = setup;
  const before = await submit();
  assert.equal(before.status, 202);
  const accepted = [(await before.json()).job_id as string];

  // Room for a few table pages, not for a 16 MiB WAL segment; then the WAL moves to a segment that does not exist
  // yet, so the next commit must create it. A run of 5,000-address jobs met the full disk so, at its fourth job.
  tmpfs.fill(2 * 1024 * 1024);
  const direct = postgres({ path: join(stateDir, ".s.PGSQL.5432"), max: 1, username: "postgres", onnotice: () => {} });
  await direct`select pg_switch_wal()`;
  await direct.end();

  await assertDiskFullRefusal(await submit(10));
  await eventually("the database to stop for the full disk", () => logLines(server), {
    until: (lines) => lines.some((l) => l.msg.startsWith("embedded database stopped by the full disk")),
    timeoutMs: 10_000,
  });
  // Meanwhile every call that needs the database is refused the same way, and /readyz says why.
  for (let i = 0; i < 3; i++) await assertDiskFullRefusal(await submit(10));
  const ready = await readyz();
  assert.equal(ready.status, 503);
  assert.match(String(ready.body.checks.database), /^disk full under STATE_DIR: .*pg_wal.*No space left on device/);

  tmpfs.unfill();
  await assertRecovery(setup, accepted);
  const lines = logLines(server);
  assert.ok(lines.some((l) => l.msg === "embedded database open again"));
  await assertLogsAndStop(server);
});
