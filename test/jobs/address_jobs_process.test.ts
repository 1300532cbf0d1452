// test-scope: once
// (Answers over the Paris file, which no runtime changes: CI runs this file on its recommended runtime only.)
// Bulk address jobs across processes, as an operator runs them (`npm start`'s program as child processes, on the real
// Paris BAN file): a server killed with SIGKILL mid-job and started again finishes the job with every row answered
// once and charged once; on PostgreSQL two processes work the same job; `npm run verify` sends an address file in
// jobs of the plan's size and writes the rows back in order.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { parse } from "csv-parse/sync";
import { importBan } from "../../src/address/index/import.ts";
import { openTestDatabase, urlWithSchema } from "../helpers/database.ts";
import { createKeyWithCli, type ServerProcess, startChildServer } from "../helpers/process.ts";
import { cell, lineOf, PARIS_BAN, PARIS_SKIP, parisRows } from "../helpers/paris_rows.ts";
import { copyCachedReference } from "../helpers/reference_cache.ts";
import { tempDir } from "../helpers/temp_dir.ts";
import { runVerifyCli } from "../cli/verify_cli.ts";

const skip = PARIS_SKIP;
const temp = tempDir("vrai-address-jobs-");
const indexDir = join(temp.path, "ban");
const plansFile = join(temp.path, "plans.json");
const fast = { per_minute: 60_000, burst: 0 };
writeFileSync(
  plansFile,
  JSON.stringify({
    plans: {
      metered: { quota: { email: 10, address: 100_000 }, rate: fast, batch_max: 10 },
      tiny: { quota: null, rate: fast, batch_max: 10, address_batch_max: 4 },
    },
  }),
);
/** Distinct Paris addresses, then the first hundred again: every row is answered, the distinct ones charged. */
const DISTINCT = 30_000;
let csv = "";

before(async () => {
  if (skip) return;
  mkdirSync(indexDir, { recursive: true });
  copyCachedReference(indexDir);
  await importBan(PARIS_BAN, { banSource: dirname(PARIS_BAN), indexDir });
  const rows = await parisRows(DISTINCT, 5);
  const lines = [...rows, ...rows.slice(0, 100)].map((row, i) => `${i + 1};${cell(lineOf(row))}`);
  csv = `id;adresse\n${lines.join("\n")}\n`;
});
after(() => temp.remove());

function serverEnv(extra: Record<string, string>): Record<string, string> {
  return {
    PLANS_FILE: plansFile,
    BAN_DEPARTEMENTS: "75",
    BAN_SOURCE: dirname(PARIS_BAN),
    BAN_INDEX_DIR: indexDir,
    WORKERS: "1",
    ...extra,
  };
}

function start(env: Record<string, string>): Promise<ServerProcess> {
  return startChildServer("src/main.ts", { env, readyPath: "/readyz", timeoutMs: 180_000, keepOutput: true });
}

async function submit(url: string, key: string, body: string): Promise<{ id: string; remaining: string | null }> {
  const response = await fetch(`${url}/v1/address/bulk`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "text/csv" },
    body,
  });
  assert.equal(response.status, 202, await response.clone().text());
  return { id: (await response.json()).job_id, remaining: response.headers.get("x-quota-remaining") };
}

async function state(
  url: string,
  key: string,
  id: string,
): Promise<{ status: string; processed: number; total: number }> {
  const response = await fetch(`${url}/v1/jobs/${id}?limit=0`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(response.status, 200);
  return response.json();
}

async function completed(url: string, key: string, id: string, timeoutMs = 180_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const job = await state(url, key, id);
    if (job.status === "completed") return job;
    if (Date.now() > until) assert.fail(`the job did not complete: ${JSON.stringify(job)}`);
    await sleep(200);
  }
}

/** The job's CSV results: every row once, in input order, each with a verdict; duplicates answered as their first. */
async function checkEveryRowOnce(url: string, key: string, id: string): Promise<void> {
  const response = await fetch(`${url}/v1/jobs/${id}`, {
    headers: { authorization: `Bearer ${key}`, accept: "text/csv" },
  });
  const [header, ...rows] = parse(await response.text()) as string[][];
  assert.deepEqual(header!.slice(0, 3), ["id", "adresse", "verdict"]);
  assert.equal(rows.length, DISTINCT + 100);
  assert.deepEqual(
    rows.map((r) => Number(r[0])),
    Array.from({ length: DISTINCT + 100 }, (_, i) => i + 1),
  );
  for (const row of rows) assert.notEqual(row[2], "", `row ${row[0]} has a verdict`);
  for (let i = 0; i < 100; i++) assert.deepEqual(rows[DISTINCT + i]!.slice(2), rows[i]!.slice(2));
  // Rows drawn from BAN itself: nearly all deliverable as written.
  const deliverable = rows.filter((r) => r[2] === "deliverable").length;
  assert.ok(deliverable > rows.length * 0.95, `${deliverable} deliverable of ${rows.length}`);
}

test("kill -9 of the server mid-job, then a restart: the job completes, every row answered once and charged once", {
  skip,
  timeout: 600_000,
}, async () => {
  const env = serverEnv({ STATE_DIR: join(temp.path, "state") });
  let server = await start(env);
  try {
    const key = await createKeyWithCli(env, ["--account", "acme", "--plan", "metered", "--mode", "live"]);
    const { id, remaining } = await submit(server.url, key, csv);
    assert.equal(remaining, String(100_000 - DISTINCT));
    let atKill = await state(server.url, key, id);
    while (atKill.processed === 0) {
      await sleep(10);
      atKill = await state(server.url, key, id);
    }
    server.child.kill("SIGKILL");
    await server.exited;
    assert.ok(atKill.processed < atKill.total, `killed mid-job (${atKill.processed} of ${atKill.total} answered)`);

    server = await start(env);
    const job = await completed(server.url, key, id);
    // Counted once each: a row written twice would count twice.
    assert.equal(job.processed, DISTINCT + 100);
    // Charged at submission only: one more call leaves the quota one lower. Asked before the results are parsed: that
    // parse holds this process for seconds on a loaded machine (12 s seen), and a call sent after it on a pooled
    // connection can cross the server's close of that connection, idle past HTTP_KEEP_ALIVE_TIMEOUT_MS meanwhile.
    const single = await fetch(`${server.url}/v1/address`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ line: "150 rue de Rivoli 75001 Paris" }),
    });
    assert.equal(single.status, 200);
    assert.equal(single.headers.get("x-quota-remaining"), String(100_000 - DISTINCT - 1));
    await checkEveryRowOnce(server.url, key, id);
  } finally {
    await server.stop();
  }
});

test("on PostgreSQL two processes both work the same job", { skip, timeout: 600_000 }, async () => {
  const db = await openTestDatabase("postgres");
  const env = serverEnv({ DATABASE_URL: urlWithSchema(db.schema!), LOG_LEVEL: "debug" });
  const [one, two] = await Promise.all([start(env), start(env)]);
  try {
    const key = await createKeyWithCli(env, ["--account", "acme", "--plan", "metered", "--mode", "live"]);
    const { id } = await submit(one.url, key, csv);
    const job = await completed(two.url, key, id);
    assert.equal(job.processed, DISTINCT + 100);
    await checkEveryRowOnce(one.url, key, id);
    const answered = (server: ServerProcess) =>
      server
        .output()
        .split("\n")
        .filter((line) => line.includes('"address job rows answered"'))
        .reduce((n, line) => n + JSON.parse(line).rows, 0);
    const [byOne, byTwo] = [answered(one), answered(two)];
    assert.ok(byOne > 0 && byTwo > 0, `rows answered by each process: ${byOne}, ${byTwo}`);
    // Every row of every chunk, duplicates included (copied from their first row, not matched again).
    assert.equal(byOne + byTwo, DISTINCT + 100);
  } finally {
    await Promise.all([one.stop(), two.stop()]);
    await db.close();
  }
});

test("npm run verify sends an address file in jobs of the plan's address_batch_max and writes it back in order", {
  skip,
  timeout: 300_000,
}, async () => {
  const env = serverEnv({ STATE_DIR: join(temp.path, "state-cli") });
  const server = await start(env);
  try {
    const key = await createKeyWithCli(env, ["--account", "acme", "--plan", "tiny", "--mode", "live"]);
    const input = join(temp.path, "clients.csv");
    const out = join(temp.path, "clients-verified.csv");
    const rows = [
      ["1", "150", "Rue de Rivoli", "75001", "Paris"],
      ["2", "12", "Rue des Zorglubs Imaginaires", "75001", "Paris"],
      ["3", "150", "Rue de Rivili", "75001", "Paris"],
      ["4", "9999", "Rue de Rivoli", "75001", "Paris"],
      ["5", "150", "Rue de Rivoli", "75001", "Paris"],
      ["6", "", "Rue de Rivoli", "75001", "Paris"],
      ["7", "1", "Rue de la République", "69001", "Lyon"],
    ];
    writeFileSync(input, `\uFEFFclient;numero;voie;cp;ville\r\n${rows.map((r) => r.join(";")).join("\r\n")}\r\n`);
    const run = await runVerifyCli([input, "--out", out, "--url", server.url, "--key", key, "--poll", "0.05"]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /The plan allows 4 addresses per job/);
    const text = readFileSync(out, "utf8");
    assert.ok(text.startsWith("\uFEFF"), "written with the input's BOM");
    const [header, ...written] = parse(text, { bom: true, delimiter: ";" }) as string[][];
    assert.deepEqual(header!.slice(0, 7), ["client", "numero", "voie", "cp", "ville", "verdict", "reasons"]);
    assert.deepEqual(
      written.map((r) => [r[0], r[5], r[6]]),
      [
        ["1", "deliverable", ""],
        ["2", "nonexistent", "street_not_found"],
        ["3", "corrected", "street_corrected"],
        ["4", "nonexistent", "house_number_out_of_range"],
        ["5", "deliverable", ""],
        ["6", "incomplete", "missing_house_number"],
        ["7", "unknown", "postcode_not_covered"],
      ],
    );
    const jobs = JSON.parse(readFileSync(`${out}.jobs.json`, "utf8")).jobs as Array<{ start: number; end: number }>;
    assert.deepEqual(
      jobs.map((j) => [j.start, j.end]),
      [
        [0, 4],
        [4, 7],
      ],
    );
    // Resumed: every row is in a recorded job, so nothing is sent again and the same rows are written.
    const resumed = await runVerifyCli([input, "--out", out, "--url", server.url, "--key", key, "--resume"]);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(readFileSync(out, "utf8"), text);
  } finally {
    await server.stop();
  }
});
