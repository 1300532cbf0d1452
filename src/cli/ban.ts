// `npm run ban -- import SOURCE...`: builds the street index under BAN_INDEX_DIR (data/ban/ by default) from BAN
// files, one index per département. SOURCE is a département code ("75", "2A", "971") or `france` (the whole-country
// file), fetched from BAN_SOURCE (a directory or a URL base, through HTTP(S)_PROXY unless NO_PROXY names it), or a
// path to any BAN CSV (`adresses-XX.csv.gz`, `adresses-france.csv.gz`, an extract spanning several départements),
// gzipped or plain (told by its first bytes). A progress bar is drawn on a terminal; elsewhere one line per
// département written. A server running on the same BAN_INDEX_DIR takes the new indexes up by itself.
import { loadConfig } from "../config.ts";
import { importBan, type ImportProgress } from "../address/index/import.ts";

const USAGE =
  "Usage: npm run ban -- import SOURCE...   (SOURCE: a département code such as 75, france for the whole country, or a path to a BAN CSV such as adresses-XX.csv.gz or adresses-XX.csv)";

function bar(p: ImportProgress): string {
  const width = 30;
  const share = p.totalBytes > 0 ? Math.min(1, p.bytes / p.totalBytes) : 0;
  const full = Math.round(share * width);
  const pct = p.totalBytes > 0 ? `${Math.floor(share * 100)}%`.padStart(4) : "  ?%";
  return `\r${p.departement.padEnd(3)} [${"#".repeat(full)}${".".repeat(width - full)}] ${pct} ${p.rows.toLocaleString("en")} rows`;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...sources] = argv;
  if (command !== "import" || sources.length === 0) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const config = loadConfig();
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
      failed++;
    }
  }
  return failed > 0 ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
