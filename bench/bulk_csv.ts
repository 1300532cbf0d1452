// bulk_csv: a CSV list of 20,000 rows cleaned through the CLI (`npm run verify -- FILE --out RESULTS`, a child
// process, as a user runs it) against a running server (a child process too: embedded database, test key, a plan of
// 5,000 addresses per job), file to results file, at test-mode speed: the reserved @vrai.test addresses are answered
// offline, so the run measures the CLI, the HTTP exchange and the job store, not SMTP. Every row has a name and a note
// beside its address, and the five reserved addresses take turns in several spellings (a list's duplicates).
// Its peer, measured in the same run against the same server: a bare client in this process that sends the same
// requests (the same CSV bodies, cut in advance, then polls with limit=0 and reads each job back as CSV) and writes
// what it got, with no parsing, no joining of rows and no process start; the ratio is what the CLI adds, and
// cli_start_s (`npm run verify -- --help`) is how much of that is starting the command.
// Prints one line.
//   npx tsx bench/bulk_csv.ts   (BENCH_ROWS to change the size)
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "csv-stringify/sync";
import { RESERVED_EMAILS } from "../src/testmode/email.ts";
import { createKeyWithCli, ROOT, startChildServer } from "../test/helpers/process.ts";
import { tempDir } from "../test/helpers/temp_dir.ts";

const ROWS = Number(process.env.BENCH_ROWS ?? 20_000);
/** The plan's batch_max: the CLI learns it from the server's 413 and cuts the file into jobs of this size. */
const BATCH_MAX = 5000;

const state = tempDir("vrai-bench-csv-");
const plansFile = join(state.path, "plans.json");
writeFileSync(
  plansFile,
  JSON.stringify({
    plans: { bench: { quota: null, rate: { per_minute: 100_000_000, burst: 0 }, batch_max: BATCH_MAX } },
  }),
);
const env = {
  STATE_DIR: join(state.path, "state"),
  PLANS_FILE: plansFile,
  BAN_DEPARTEMENTS: "",
  BAN_SOURCE: state.path,
};

/** Row i: a name, an address (the reserved ones in turn, in three spellings), a note with a comma. */
function row(i: number): string[] {
  const email = RESERVED_EMAILS[i % RESERVED_EMAILS.length]!;
  const spelled = [email, email.toUpperCase(), ` ${email}`][Math.floor(i / RESERVED_EMAILS.length) % 3]!;
  return [`Person ${i}`, spelled, `note ${i}, kept as is`];
}
const header = ["name", "email", "note"];
const rows = Array.from({ length: ROWS }, (_, i) => row(i));
const input = join(state.path, "list.csv");
writeFileSync(input, stringify([header, ...rows]));

/** The CLI as a user runs it, with `args`; resolves to its wall time in seconds, and rejects unless it exits 0. */
function runCli(args: string[]): Promise<number> {
  const started = performance.now();
  const child = spawn("npm", ["run", "--silent", "verify", "--", ...args], {
    cwd: ROOT,
    env: { ...process.env, VRAI_URL: "", VRAI_KEY: "" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) =>
    child.once("close", (code) =>
      code === 0
        ? resolve((performance.now() - started) / 1000)
        : reject(new Error(`Cannot run the CLI: exit ${code}: ${stderr.trim().split("\n").slice(-3).join(" / ")}`)),
    ),
  );
}

/** The same requests from a bare client: the bodies cut in advance, the answers written as they come. */
async function runBare(url: string, key: string, out: string): Promise<number> {
  const bodies: string[] = [];
  for (let start = 0; start < rows.length; start += BATCH_MAX) {
    bodies.push(stringify([header, ...rows.slice(start, start + BATCH_MAX)], { record_delimiter: "windows" }));
  }
  const auth = { authorization: `Bearer ${key}` };
  const started = performance.now();
  const jobs: string[] = [];
  for (const body of bodies) {
    const answer = await fetch(`${url}/v1/email/bulk`, {
      method: "POST",
      headers: { ...auth, "content-type": "text/csv; charset=utf-8" },
      body,
    });
    if (answer.status !== 202) throw new Error(`Cannot submit a job: ${answer.status} ${await answer.text()}`);
    jobs.push(((await answer.json()) as { job_id: string }).job_id);
  }
  const parts: string[] = [];
  for (const job of jobs) {
    for (;;) {
      const poll = await fetch(`${url}/v1/jobs/${job}?limit=0`, { headers: auth });
      const { status } = (await poll.json()) as { status: string };
      if (status === "completed" || status === "failed") break;
      await new Promise((done) => setTimeout(done, 50));
    }
    const csv = await fetch(`${url}/v1/jobs/${job}`, { headers: { ...auth, accept: "text/csv" } });
    parts.push(await csv.text());
  }
  writeFileSync(out, parts.join(""));
  return (performance.now() - started) / 1000;
}

const server = await startChildServer("src/main.ts", { env, keepOutput: false, timeoutMs: 180_000 });
try {
  const key = await createKeyWithCli(env, ["--account", "bench-csv", "--plan", "bench", "--mode", "test"]);
  const bareOut = join(state.path, "bare.csv");
  const cliOut = join(state.path, "results.csv");
  // Warm-up: the server's first bulk calls compile their code paths; neither measured run pays for it.
  await runBare(server.url, key, bareOut);
  const bare = await runBare(server.url, key, bareOut);
  const cli = await runCli([input, "--out", cliOut, "--url", server.url, "--key", key]);
  // What a run of the CLI pays before its first request (npm, tsx, its modules), beside the whole run.
  const start = await runCli(["--help"]);
  // Every row comes back, with the header: the run did the whole job.
  const written =
    readFileSync(cliOut, "utf8")
      .split("\r\n")
      .filter((line) => line !== "").length - 1;
  if (written !== ROWS) throw new Error(`Cannot trust the run: ${written} rows written for ${ROWS}`);
  const jobs = Math.ceil(ROWS / BATCH_MAX);
  console.log(
    [
      `bulk_csv rows=${ROWS} jobs=${jobs} batch_max=${BATCH_MAX}`,
      `wall_s=${cli.toFixed(2)} rows_s=${Math.round(ROWS / cli)} cli_start_s=${start.toFixed(2)}`,
      `bare_wall_s=${bare.toFixed(2)} bare_rows_s=${Math.round(ROWS / bare)} vs_bare=${(cli / bare).toFixed(2)}`,
      `db=embedded node=${process.version}`,
    ].join(" "),
  );
} finally {
  await server.stop();
  state.remove();
}
