// `npm test`'s runner: node:test over the files it is given, one file at a time, spec output. A test file whose process
// is killed by a signal (a native crash, not a failed test) is run once more, loudly; every other failure fails the run.
//
// Why: the embedded database's WebAssembly has crashed V8 in worker teardown now and then (nodejs/node#47748,
// nodejs/node#64500, electric-sql/pglite#1053; docs/decisions.md "Native crashes in tests"), once in some dozens of
// suite runs, in a different file each time, after that file's tests had passed. Such a crash says nothing about the
// file's tests, and it cannot be fixed here; a second run of the file tells a rare crash from a file that crashes.
// A file whose tests fail is never run again, nor is a run with more than MAX_CRASHED_FILES crashed files.
import { spawn } from "node:child_process";
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** More crashed files than this in one run is not a rare crash: the run fails without a second try. */
const MAX_CRASHED_FILES = 2;

const REPORTER = fileURLToPath(new URL("./crash_reporter.mjs", import.meta.url));

/**
 * How many test files run at once: TEST_CONCURRENCY, else two (one on a single core). Most of the suite's time is spent
 * waiting on servers, peers, timers and child processes, not computing, so two files at once nearly halve a run on
 * two cores. Files can share a run because each keeps to its own resources: a fresh PostgreSQL schema or PGlite
 * directory, a free port for dnsmasq and servers, and SMTP peers on loopback addresses no other file binds
 * (test/structure/loopback_addresses.test.ts holds that last rule).
 */
export function testConcurrency(given: string | undefined): number {
  const parsed = Number(given);
  if (given !== undefined && given !== "" && Number.isInteger(parsed) && parsed >= 1) return parsed;
  return Math.min(2, availableParallelism());
}

/** A line of crash_reporter.mjs: one failure reported by node:test. */
export interface FailureLine {
  /** The test file, as node:test names it. */
  file: string | undefined;
  name: string;
  /** The signal that killed the file's process; null for any other failure. */
  signal: string | null;
  /** The first lines of the failure's message, when it had one. */
  message?: string;
}

export interface Failures {
  /** Files whose process a signal killed, and which had no other failure. */
  crashed: Array<{ file: string; signal: string }>;
  /** Every other failure, as "file: test name", then the first lines of its message indented below. */
  failed: string[];
}

/** Sorts the reporter's lines into crashed files and other failures (a file with both counts as failed). */
export function sortFailures(lines: FailureLine[]): Failures {
  const failedFiles = new Set<string>();
  const failed: string[] = [];
  const signals = new Map<string, string>();
  for (const line of lines) {
    const file = line.file === undefined ? "(no file)" : relative(process.cwd(), line.file);
    if (line.signal !== null) signals.set(file, line.signal);
    else {
      failedFiles.add(file);
      const message = line.message ? `\n${line.message.replace(/^/gm, "      ")}` : "";
      failed.push(`${file}: ${line.name}${message}`);
    }
  }
  const crashed = [...signals].filter(([file]) => !failedFiles.has(file)).map(([file, signal]) => ({ file, signal }));
  for (const [file, signal] of signals) if (failedFiles.has(file)) failed.push(`${file}: killed by ${signal}`);
  return { crashed, failed };
}

/** One `node --test` run of `files`; resolves with its exit status and the failures the reporter wrote. */
async function runTests(files: string[]): Promise<{ status: number; failures: Failures }> {
  const dir = mkdtempSync(join(tmpdir(), "vrai-test-run-"));
  const failuresFile = join(dir, "failures.jsonl");
  try {
    const args = [
      "--import",
      "tsx",
      "--test",
      `--test-concurrency=${testConcurrency(process.env.TEST_CONCURRENCY)}`,
      "--test-reporter=spec",
      "--test-reporter-destination=stdout",
      `--test-reporter=${REPORTER}`,
      `--test-reporter-destination=${failuresFile}`,
      ...files,
    ];
    const child = spawn(process.execPath, args, { stdio: "inherit" });
    const status = await new Promise<number>((done) => {
      child.on("close", (code, signal) => done(code ?? (signal ? 1 : 0)));
    });
    let text = "";
    try {
      text = readFileSync(failuresFile, "utf8");
    } catch {
      // No line written: no failure was reported (or the runner itself died, which the status tells).
    }
    const parsed = text
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as FailureLine | { durations: Record<string, number> });
    for (const line of parsed) if ("durations" in line) printSlowest(line.durations);
    const lines = parsed.filter((line): line is FailureLine => !("durations" in line));
    return { status, failures: sortFailures(lines) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** How many of the slowest files are listed at the end of a run. */
const SLOWEST_LISTED = 15;

/** The slowest test files and their time, so that whoever keeps CI within its time limit sees where the time goes. */
function printSlowest(durations: Record<string, number>): void {
  const files = Object.entries(durations);
  if (files.length === 0) return;
  const total = files.reduce((sum, [, ms]) => sum + ms, 0);
  const slowest = files.sort((a, b) => b[1] - a[1]).slice(0, SLOWEST_LISTED);
  console.log(
    `\n=== test runner: the ${slowest.length} slowest of ${files.length} files (${Math.round(total / 1000)} s in all)`,
  );
  for (const [file, ms] of slowest)
    console.log(`${String(Math.round(ms / 1000)).padStart(6)} s  ${relative(process.cwd(), file)}`);
}

/** The marker, alone on a line near the top of a test file, of a file whose tests prove logic and data that no runtime
 *  changes (the matcher over the Paris file, say): CI runs it on one runtime only, to keep its three runs short. */
export const ONCE_MARKER = "// test-scope: once";

/** How far into a file the marker is looked for. */
const MARKER_SEARCH_CHARS = 4000;

/** With TESTS_ONCE_ELSEWHERE set (by .ci/run, to the runtime that runs them), the files marked ONCE_MARKER are left
 *  out of this run; otherwise every file runs. */
export function filesForThisRun(files: string[], onceElsewhere: string | undefined): { run: string[]; left: string[] } {
  if (onceElsewhere === undefined || onceElsewhere === "") return { run: files, left: [] };
  const run: string[] = [];
  const left: string[] = [];
  for (const file of files) {
    const head = readFileSync(file, "utf8").slice(0, MARKER_SEARCH_CHARS);
    (head.split("\n").some((line) => line.trim() === ONCE_MARKER) ? left : run).push(file);
  }
  return { run, left };
}

/**
 * Lists a failed run's failures last, where a reader of the log's tail sees them, and appends them to
 * TEST_FAILURES_FILE when it is set: .ci/run runs the suite on three runtimes and prints that file after the last one,
 * since a log kept by its tail loses the first runs' lines.
 */
function reportFailures({ failed, crashed }: Failures): void {
  const lines = [...failed, ...crashed.map((c) => `${c.file}: killed by ${c.signal}`)];
  if (lines.length === 0) return;
  const text = `=== test runner: ${lines.length} failures on Node ${process.version}\n${lines.map((l) => `  ${l}\n`).join("")}`;
  console.log(`\n${text}`);
  const file = process.env.TEST_FAILURES_FILE;
  if (file) appendFileSync(file, text);
}

async function main(given: string[]): Promise<number> {
  if (given.length === 0) {
    console.error("Cannot run the tests: give the test files as arguments");
    return 2;
  }
  const onceElsewhere = process.env.TESTS_ONCE_ELSEWHERE;
  const { run: files, left } = filesForThisRun(given, onceElsewhere);
  if (left.length > 0) {
    console.log(
      `=== test runner: ${left.length} files marked "${ONCE_MARKER}" run on ${onceElsewhere} only, not here: ` +
        left.join(", "),
    );
  }
  const first = await runTests(files);
  if (first.status === 0) return 0;
  const { crashed, failed } = first.failures;
  if (failed.length > 0 || crashed.length === 0 || crashed.length > MAX_CRASHED_FILES) {
    reportFailures(first.failures);
    return first.status;
  }
  const names = crashed.map((c) => `${c.file} (killed by ${c.signal})`).join(", ");
  console.log(
    `\n=== test runner: ${names}: the test process died from a signal, not from a failed test; ` +
      'running that file once more (docs/decisions.md, "Native crashes in tests")\n',
  );
  const second = await runTests(crashed.map((c) => resolve(c.file)));
  if (second.status !== 0) reportFailures(second.failures);
  console.log(
    second.status === 0
      ? `\n=== test runner: the second run of ${crashed.map((c) => c.file).join(", ")} passed; the suite passes`
      : `\n=== test runner: the second run of ${crashed.map((c) => c.file).join(", ")} failed too; the suite fails`,
  );
  return second.status;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) process.exitCode = await main(process.argv.slice(2));
