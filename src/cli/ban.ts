// `npm run ban -- import SOURCE...`: builds the street index under BAN_INDEX_DIR (data/ban/ by default) from BAN
// files, one index per département. SOURCE is a département code ("75", "2A", "971") or `france` (the whole-country
// file), fetched from BAN_SOURCE (a directory or a URL base, through HTTP(S)_PROXY unless NO_PROXY names it), or a
// path to any BAN CSV (`adresses-XX.csv.gz`, `adresses-france.csv.gz`, an extract spanning several départements),
// gzipped or plain (told by its first bytes). A progress bar is drawn on a terminal; elsewhere one line per
// département written. A server running on the same BAN_INDEX_DIR takes the new indexes up by itself.
import { loadConfig, OFFICIAL_BAN_SOURCE } from "../config.ts";
import { BanDownloadError, importBan, type ImportProgress } from "../address/index/import.ts";
import { parseCommandLine, USAGE_EXIT, CommandLineError } from "./command_line.ts";

const USAGE = `Usage: npm run ban -- import SOURCE...

Builds the street index of the address check under BAN_INDEX_DIR (default ./data/ban), one file per département,
from the Base Adresse Nationale (BAN). A server running on the same BAN_INDEX_DIR takes new indexes up by itself.

Commands:
  import SOURCE...   import each SOURCE: a département code, france, or a BAN CSV file
                     (npm run ban -- import --help says more)

  -h, --help         this text`;

const IMPORT_USAGE = `Usage: npm run ban -- import SOURCE...

Imports each SOURCE into BAN_INDEX_DIR (default ./data/ban), one index per département:

  75, 2A, 971 ...   a département code: adresses-75.csv.gz, fetched from BAN_SOURCE
  france            the whole country: adresses-france.csv.gz, fetched from BAN_SOURCE
  PATH              a BAN CSV file on this machine: adresses-XX.csv.gz, adresses-france.csv.gz, or an extract
                    spanning several départements; gzipped or plain

  -h, --help        this text

BAN_SOURCE is where codes are fetched: a URL base (default ${OFFICIAL_BAN_SOURCE},
through HTTPS_PROXY / HTTP_PROXY unless NO_PROXY names the host) or a directory holding adresses-XX.csv.gz files.
Without network, fetch the files elsewhere and give their paths, or set BAN_SOURCE to their directory.

A progress bar is drawn on a terminal; elsewhere one line per département written.
Exit codes: 0 done, 1 a source failed (the others are still imported), 2 usage.`;

function bar(p: ImportProgress): string {
  const width = 30;
  const share = p.totalBytes > 0 ? Math.min(1, p.bytes / p.totalBytes) : 0;
  const full = Math.round(share * width);
  const pct = p.totalBytes > 0 ? `${Math.floor(share * 100)}%`.padStart(4) : "  ?%";
  return `\r${p.departement.padEnd(3)} [${"#".repeat(full)}${".".repeat(width - full)}] ${pct} ${p.rows.toLocaleString("en")} rows`;
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine(
    { args: argv, allowPositionals: true, options: { help: { type: "boolean", short: "h", default: false } } },
    { command: firstWord(argv) === "import" ? "ban import" : "ban", help: helpOf(argv) },
  );
  const [command, ...sources] = positionals;
  if (command === undefined) {
    if (values.help) return help(USAGE);
    throw new CommandLineError("Cannot run ban: no command given (npm run ban -- --help lists them)");
  }
  if (command !== "import") {
    throw new CommandLineError(`Cannot run ban: unknown command ${command} (npm run ban -- --help lists them)`);
  }
  if (values.help) return help(IMPORT_USAGE);
  if (sources.length === 0) {
    throw new CommandLineError(
      "Cannot run ban import: no SOURCE given, such as 75 or a file's path (npm run ban -- import --help lists them)",
    );
  }
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    // A bad BAN_DEPARTEMENTS, PORT…: the server would refuse to start with it too.
    process.stderr.write(`${(error as Error).message}\n`);
    return USAGE_EXIT;
  }
  const tty = process.stderr.isTTY === true;
  let failed = 0;
  for (const source of sources) {
    try {
      const results = await importBan(source, {
        banSource: config.banSource,
        indexDir: config.banIndexDir,
        onProgress: tty ? (p) => process.stderr.write(bar(p)) : undefined,
      });
      if (tty) process.stderr.write("\n");
      for (const result of results) {
        process.stdout.write(
          `imported ${result.departement}: ${result.rows} addresses, ${(result.bytes / 1e6).toFixed(1)} MB index at ${result.path} in ${(result.ms / 1000).toFixed(1)} s\n`,
        );
      }
    } catch (err) {
      if (tty) process.stderr.write("\n");
      process.stderr.write(`Cannot import ${source}: ${(err as Error).message}\n`);
      if (err instanceof BanDownloadError) process.stderr.write(`${downloadFix(source, config.banSource)}\n`);
      failed++;
    }
  }
  return failed > 0 ? 1 : 0;
}

function help(text: string): number {
  process.stdout.write(`${text}\n`);
  return 0;
}

/** The command's first word, for the help pointer of a usage error (parseArgs has not read the line yet). */
function firstWord(argv: string[]): string | undefined {
  return argv.find((arg) => !arg.startsWith("-"));
}

function helpOf(argv: string[]): string {
  return firstWord(argv) === "import" ? "npm run ban -- import --help" : "npm run ban -- --help";
}

/** What to do when BAN_SOURCE cannot be reached: another source, or the file already on this machine. */
function downloadFix(source: string, banSource: string): string {
  const file = source.toLowerCase() === "france" ? "adresses-france.csv.gz" : `adresses-${source.toUpperCase()}.csv.gz`;
  return (
    `The download from BAN_SOURCE (${banSource}) failed: check the network (and HTTPS_PROXY), or set BAN_SOURCE ` +
    `to a directory or a mirror holding ${file}, or give the path of a copy on this machine: ` +
    `npm run ban -- import /path/to/${file}`
  );
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    if (!(error instanceof CommandLineError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exitCode = USAGE_EXIT;
  },
);
