// address_million: a file of N Paris addresses (1,000,000 by default: exact, typo, abbreviated, messy, invented,
// drawn from the real Paris BAN file, lib/eval_set.ts) through `npm run verify -- --kind address` against the
// compiled server on the embedded database, with the default plan limits (address_batch_max 100,000: verify splits
// the file into jobs). Measures the wall time from the command's start to its end, the rows written back, and the
// server's resident memory, sampled every second (its peak is the figure: the aim is <= 1.5 GB). The file is made in
// a temporary folder and removed after: nothing of the data is kept. Prints one line. verify's job reads are held by
// the server until the job ends (Prefer: wait, up to its 2 s poll), so each job's end is seen at once, not up to a
// poll interval late.
//   npx tsx bench/address_million.ts   (BENCH_ROWS=N to change the size; WORKERS=T)
import { spawn } from "node:child_process";
import { createReadStream, createWriteStream, mkdtempSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import path, { join } from "node:path";
import { createInterface } from "node:readline";
import { once } from "node:events";
import { BanIndex } from "../src/address/index/ban_index.ts";
import { importBan } from "../src/address/index/import.ts";
import { readPackedFile } from "../src/address/packed_file.ts";
import { ROOT, rssMb } from "../test/helpers/process.ts";
import { tempDir } from "../test/helpers/temp_dir.ts";
import { startAddressBenchServer } from "./lib/address_bench_server.ts";
import { ensureCompiled } from "./lib/compiled.ts";
import { buildEvalSet } from "./lib/eval_set.ts";
import { messy, quoted } from "./lib/user_written.ts";
import { parisFileOrSkip } from "./lib/paris.ts";

const PARIS = parisFileOrSkip("address_million");
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const THREADS = Number(process.env.WORKERS ?? 2);

ensureCompiled();
const state = tempDir("vrai-bench-address-million-");
const indexDir = mkdtempSync(join(tmpdir(), "vrai-bench-ban-"));
const [imported] = await importBan(PARIS, { banSource: path.dirname(PARIS), indexDir });

// The rows: real addresses written as users write them, in turn; more cases than a job holds, so that each job's rows
// are mostly distinct (equal rows are verified once per job, which would flatter the figure).
const index = new BanIndex(readPackedFile(imported!.path));
const kinds = new Set(["exact", "typo", "abbreviation", "invented"]);
const cases = buildEvalSet(index, { seed: 7, perCategory: Math.min(Math.ceil(ROWS / 4), 60_000) }).filter((c) =>
  kinds.has(c.category),
);
const input = join(state.path, "customers.csv");
const output = join(state.path, "customers.verified.csv");
{
  const file = createWriteStream(input);
  file.write("id;adresse\n");
  for (let i = 0; i < ROWS; i++) {
    const c = cases[i % cases.length]!;
    const line = c.input.line ?? [c.input.house_number, c.input.street, c.input.postcode, c.input.city].join(" ");
    // Every fifth row messy; a case met again in a later pass is written another way (upper case, or lower case).
    const pass = Math.floor(i / cases.length);
    const written =
      i % 5 === 4 ? messy(line) : pass % 3 === 1 ? line.toUpperCase() : pass % 3 === 2 ? line.toLowerCase() : line;
    if (!file.write(`${i + 1};${quoted(written)}\n`)) await once(file, "drain");
  }
  file.end();
  await once(file, "finish");
}

const { server, key } = await startAddressBenchServer({
  stateDir: state.path,
  indexDir,
  parisFile: PARIS,
  threads: THREADS,
});
let peakRss = 0;
const sampler = setInterval(() => {
  const rss = rssMb(server.child.pid!);
  if (rss > peakRss) peakRss = rss;
}, 1000);
try {
  const load = loadavg()[0]!;
  const started = performance.now();
  const verify = spawn(
    process.execPath,
    ["--import", "tsx", join(ROOT, "src/cli/verify.ts"), input, "--out", output, "--kind", "address"],
    { cwd: ROOT, env: { ...process.env, VRAI_URL: server.url, VRAI_KEY: key }, stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  verify.stderr.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const [code] = (await once(verify, "exit")) as [number | null];
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`Cannot trust the run: npm run verify exited ${code}\n${stderr}`);
  let rows = -1;
  for await (const _ of createInterface({ input: createReadStream(output) })) rows++;
  const finalRss = Math.round(rssMb(server.child.pid!));
  console.log(
    `address_million rows=${ROWS} rows_out=${rows} threads=${THREADS} total_s=${seconds.toFixed(1)} ` +
      `rows_s=${Math.round(ROWS / seconds)} server_rss_peak_mb=${Math.round(peakRss)} server_rss_end_mb=${finalRss} ` +
      `distinct_cases=${cases.length} load1=${load.toFixed(1)} cores=${cpus().length} node=${process.version}`,
  );
} finally {
  clearInterval(sampler);
  await server.stop();
  state.remove();
}
