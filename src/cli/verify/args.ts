// The command line of `npm run verify`: what the user typed, checked once, before anything touches the network or
// the disk. A mistake here is a usage error (exit 2) with the usage beside it, never a half-started run.
import { parseCommandLine } from "../command_line.ts";

export const USAGE = `Usage: npm run verify -- FILE.csv --out RESULTS.csv [options]

Verifies every address of a CSV file through a vrai server's bulk jobs and writes the rows back, in input order,
with the columns verdict, reasons, suggestion, disposable, role and catch_all added (for a list of postal
addresses: verdict, reasons, the normalized fields, latitude, longitude, insee_code, ban_id, postal_line_4 and
postal_line_6), written as the input was (comma or semicolon, BOM or not).

  FILE.csv            the list (header row, an email column named email/e-mail/mail/courriel, or postal address
                      columns: see --kind); - reads stdin
  --out FILE          where the results go; - writes them to stdout
  --url URL           the server (default: $VRAI_URL, else http://localhost:8080)
  --key KEY           the API key (default: $VRAI_KEY; prefer it: npm prints the command line, --key included)
  --resume            go on from the jobs already submitted (RESULTS.csv.jobs.json, or --state): none is sent again
  --force             start over although the jobs file records a run of this file: every row is sent (and
                      charged) again
  --state FILE        where the submitted jobs are recorded (default: the --out file + .jobs.json)
  --poll SECONDS      how often the progress of an unfinished job is read (default: 2); the server holds each
                      read until the job ends or this time passes (Prefer: wait), so its end is seen at once
  --timeout SECONDS   time limit of each HTTP call (default: 30)
  --kind KIND         email or address: what the file lists (default: told by its columns; an email column makes
                      it an email list, else adresse/address/line or numero, voie, code_postal, ville make it an
                      address list, verified through POST /v1/address/bulk)
  -h, --help          this text

With --out -, run it as npm run -s verify: without -s, npm writes its own banner to stdout, before the results.

Exit codes: 0 done, 1 failure (network, server, unreadable file), 2 usage, 3 quota spent (the rows verified so far
are written; run again with --resume once the quota allows), 130 interrupted.`;

export const DEFAULT_URL = "http://localhost:8080";

export interface VerifyArgs {
  /** The CSV file, or "-" for stdin. */
  input: string;
  /** The results file, or "-" for stdout. */
  out: string;
  /** The server's base URL, without a trailing slash. */
  url: string;
  key: string;
  resume: boolean;
  /** Start over, forgetting the jobs the jobs file records. */
  force: boolean;
  /** The jobs file; undefined only when the results go to stdout and no --state was given (no resume then). */
  state: string | undefined;
  pollMs: number;
  timeoutMs: number;
  /** What the file lists; "auto": told by its columns. */
  kind: "email" | "address" | "auto";
}

/** A command line that cannot be run; its message says what is wrong, the caller prints USAGE after it. */
export class UsageError extends Error {
  override name = "UsageError";
}

/**
 * Reads `argv` (the arguments after the script) with `env` supplying VRAI_URL and VRAI_KEY. Returns "help" for
 * --help; throws CommandLineError for an option it does not know (or without its value), UsageError for anything
 * else it cannot run.
 */
export function parseVerifyArgs(argv: string[], env: Record<string, string | undefined>): VerifyArgs | "help" {
  // A refused option is one line naming it (CommandLineError); the mistakes below come with the usage.
  const { values, positionals } = parseOptions(argv);
  if (values.help) return "help";
  if (positionals.length === 0) throw new UsageError("Cannot verify: no input file (give a CSV file, or - for stdin)");
  if (positionals.length > 1) throw new UsageError(`Cannot verify: one input file only, got ${positionals.join(" ")}`);
  const input = positionals[0]!;
  const out = values.out;
  if (out === undefined || out === "")
    throw new UsageError("Cannot verify: --out is missing (a file, or - for stdout)");
  if (out !== "-" && out === input) throw new UsageError("Cannot verify: --out must not be the input file");
  const key = values.key ?? env.VRAI_KEY ?? "";
  if (key === "") throw new UsageError("Cannot verify: no API key (give --key or set VRAI_KEY)");
  const url = checkUrl(values.url ?? env.VRAI_URL ?? DEFAULT_URL);
  // Beside the results, so that the same command with --resume finds it; stdout has no "beside".
  const state = values.state ?? (out === "-" ? undefined : `${out}.jobs.json`);
  if (values.resume && values.force) {
    throw new UsageError("Cannot verify: --resume goes on from the recorded jobs, --force forgets them: give one");
  }
  if (values.resume && state === undefined) {
    throw new UsageError("Cannot resume: the results go to stdout, so give --state FILE to say where the jobs are");
  }
  return {
    input,
    out,
    url,
    key,
    resume: values.resume,
    force: values.force,
    state,
    pollMs: seconds("--poll", values.poll, 2, 0.05) * 1000,
    timeoutMs: seconds("--timeout", values.timeout, 30, 1) * 1000,
    kind: kindOf(values.kind),
  };
}

function parseOptions(argv: string[]) {
  return parseCommandLine(
    {
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        out: { type: "string", short: "o" },
        url: { type: "string" },
        key: { type: "string" },
        resume: { type: "boolean", default: false },
        force: { type: "boolean", default: false },
        state: { type: "string" },
        poll: { type: "string" },
        timeout: { type: "string" },
        kind: { type: "string" },
        help: { type: "boolean", short: "h", default: false },
      },
    },
    { command: "verify", help: "npm run verify -- --help" },
  );
}

function kindOf(raw: string | undefined): VerifyArgs["kind"] {
  if (raw === undefined) return "auto";
  if (raw === "email" || raw === "address") return raw;
  throw new UsageError(`Cannot verify: --kind must be email or address, got ${raw}`);
}

function checkUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`Cannot verify: --url is not a URL: ${raw}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(`Cannot verify: --url must be http or https, got ${raw}`);
  }
  return url.href.replace(/\/+$/, "");
}

function seconds(name: string, raw: string | undefined, fallback: number, min: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!(Number.isFinite(value) && value >= min && value <= 3600)) {
    throw new UsageError(`Cannot verify: ${name} must be a number of seconds from ${min} to 3600, got ${raw}`);
  }
  return value;
}
