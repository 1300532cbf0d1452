// npm run verify -- FILE.csv --out RESULTS.csv [--url URL] [--key KEY] [--resume | --force]   (--help for the rest)
// Cleans a CSV list through a running server's bulk jobs: splits it by the plan's batch limit, submits, waits,
// and writes the rows back with their verdicts. This file only wires the parts (verify/*.ts) to the process: the
// arguments and environment in, the exit code and the one-line messages out.
import { readFile, rename, writeFile } from "node:fs/promises";
import { buffer } from "node:stream/consumers";
import { ApiError, createApiClient, NetworkError } from "./verify/api_client.ts";
import { CommandLineError } from "./command_line.ts";
import { parseVerifyArgs, USAGE, UsageError, type VerifyArgs } from "./verify/args.ts";
import { StateFileError } from "./verify/job_state.ts";
import { createProgress } from "./verify/progress.ts";
import { RunError, runVerify } from "./verify/run.ts";

/** Exit codes, as USAGE lists them. */
export const EXIT = { done: 0, failed: 1, usage: 2, quota: 3, interrupted: 130 } as const;

async function main(argv: string[]): Promise<number> {
  let args: VerifyArgs | "help";
  try {
    // VRAI_URL and VRAI_KEY are this client's settings, not the server's (src/config.ts): read here, at the entry
    // point, and handed down like the arguments.
    args = parseVerifyArgs(argv, process.env);
  } catch (error) {
    if (error instanceof CommandLineError) {
      process.stderr.write(`${error.message}\n`);
      return EXIT.usage;
    }
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\n\n${USAGE}\n`);
    return EXIT.usage;
  }
  if (args === "help") {
    process.stdout.write(`${USAGE}\n`);
    return EXIT.done;
  }

  // Ctrl-C ends every wait at once; the jobs file already holds every job submitted, so --resume picks up from it.
  const interrupt = new AbortController();
  process.once("SIGINT", () => interrupt.abort(new Error("interrupted")));
  const progress = createProgress();
  const client = createApiClient({
    url: args.url,
    key: args.key,
    timeoutMs: args.timeoutMs,
    signal: interrupt.signal,
    onWait: (message) => progress.note(message),
  });
  try {
    const input = await readInput(args.input);
    const outcome = await runVerify({
      input,
      client,
      progress,
      statePath: args.state,
      resume: args.resume,
      force: args.force,
      pollMs: args.pollMs,
      kind: args.kind,
      signal: interrupt.signal,
    });
    await writeOutput(args.out, outcome.csv);
    if (outcome.ended === "done") await outcome.recordFinished(args.out);
    const where = args.out === "-" ? "stdout" : args.out;
    if (outcome.ended === "quota") {
      process.stderr.write(
        `Quota spent: ${outcome.rowsWritten} of ${outcome.rowsTotal} rows verified and written to ${where}; ` +
          `run again with --resume when the quota allows (server: ${outcome.quotaDetail || "402 quota exceeded"})\n`,
      );
      return EXIT.quota;
    }
    const missing = outcome.rowsTotal - outcome.rowsWritten;
    process.stderr.write(
      `Done: ${outcome.rowsWritten} rows written to ${where}` +
        (missing > 0 ? ` (${missing} rows got no result from the server and are left out)` : "") +
        "\n",
    );
    return missing > 0 ? EXIT.failed : EXIT.done;
  } catch (error) {
    if (interrupt.signal.aborted) {
      process.stderr.write(
        args.state === undefined
          ? "Interrupted: the submitted jobs are not recorded (no --state), so a new run sends every row again\n"
          : `Interrupted: the submitted jobs are recorded in ${args.state}; run again with --resume to go on\n`,
      );
      return EXIT.interrupted;
    }
    if (
      error instanceof NetworkError ||
      error instanceof ApiError ||
      error instanceof RunError ||
      error instanceof StateFileError ||
      isFileError(error)
    ) {
      process.stderr.write(`${(error as Error).message}\n`);
      return EXIT.failed;
    }
    throw error;
  }
}

async function readInput(path: string): Promise<Uint8Array> {
  try {
    return path === "-" ? await buffer(process.stdin) : await readFile(path);
  } catch (error) {
    throw new RunError(`Cannot read ${path}: ${(error as Error).message}`);
  }
}

/** The whole results at once, through a temporary file: a file named RESULTS.csv is never half written. */
async function writeOutput(path: string, csv: string): Promise<void> {
  if (path === "-") {
    await new Promise<void>((resolve, reject) =>
      process.stdout.write(csv, (error) => (error ? reject(error) : resolve())),
    );
    return;
  }
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, csv);
  await rename(temporary, path);
}

function isFileError(error: unknown): boolean {
  return typeof (error as NodeJS.ErrnoException)?.code === "string" && typeof (error as Error).message === "string";
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`Cannot verify: ${(error as Error)?.stack ?? error}\n`);
    process.exitCode = EXIT.failed;
  },
);
