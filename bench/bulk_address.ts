// bulk_address: a CSV file of N Paris addresses (exact, typo, abbreviated, messy, invented: drawn from the real Paris
// BAN file, lib/eval_set.ts) through POST /v1/address/bulk of the compiled server (embedded database, a live
// unmetered key), from the first byte of the upload to the last byte of the CSV download. Its baseline, from the same
// run and the same rows: the in-thread match rate (AddressMatcher in this process, no pool, no HTTP, no database)
// times the pool's threads, the ceiling a bulk job could reach if nothing but matching cost anything. The aim is
// ratio >= 0.6 (docs/decisions.md, "Address lists", says where a job loses to it). A second baseline tells the
// pipeline's cost from the machine's: the same rows through the address service's worker pool in this process
// (chunks of 1000 as stored, in slices, six chunks at once, as the job runner sends them), no HTTP and no database
// (pool_rows_s, ratio_to_pool). Also the server's resident memory, and the machine's load.
// Prints one line.
//   npx tsx bench/bulk_address.ts   (BENCH_ROWS=N to change the size; BENCH_FULL=1 for 100,000 rows; WORKERS=T)
import { mkdtempSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import path, { join } from "node:path";
import { BanIndex } from "../src/address/index/ban_index.ts";
import { importBan } from "../src/address/index/import.ts";
import { AddressMatcher } from "../src/address/match.ts";
import { createAddressService } from "../src/address/service.ts";
import { loadConfig } from "../src/config.ts";
import { readPackedFile } from "../src/address/packed_file.ts";
import { compileReference } from "../src/address/reference/compile.ts";
import { packReference } from "../src/address/reference/pack_reference.ts";
import { Reference } from "../src/address/reference/reference.ts";
import type { AddressInput } from "../src/address/types.ts";
import { joinSlices, type SliceAnswers } from "../src/address/chunk_answers.ts";
import { CHUNK_ROWS } from "../src/jobs/address_job_store.ts";
import { duplicateOf } from "../src/jobs/address_rows.ts";
import { SLICE_ROWS } from "../src/jobs/address_runner.ts";
import { cpuSeconds, rssMb } from "../test/helpers/process.ts";
import { tempDir } from "../test/helpers/temp_dir.ts";
import { startAddressBenchServer } from "./lib/address_bench_server.ts";
import { ensureCompiled } from "./lib/compiled.ts";
import { buildEvalSet } from "./lib/eval_set.ts";
import { messy, quoted } from "./lib/user_written.ts";
import { parisFileOrSkip } from "./lib/paris.ts";

const PARIS = parisFileOrSkip("bulk_address");
// 20,000 by default: on a shared two-core machine the full 100,000 takes minutes with the import and the warm-up.
const ROWS = Number(process.env.BENCH_ROWS ?? (process.env.BENCH_FULL ? 100_000 : 20_000));
const THREADS = Number(process.env.WORKERS ?? 2);
/** Chunks in flight, as the job runner's lanes. */
const LANES = 6;

ensureCompiled();
const state = tempDir("vrai-bench-bulk-address-");
const indexDir = mkdtempSync(join(tmpdir(), "vrai-bench-ban-"));
const [imported] = await importBan(PARIS, { banSource: path.dirname(PARIS), indexDir });

// The rows: real addresses written as users write them, in turn, as many as asked.
const index = new BanIndex(readPackedFile(imported!.path));
const kinds = new Set(["exact", "typo", "abbreviation", "invented"]);
const cases = buildEvalSet(index, { seed: 11, perCategory: Math.ceil(ROWS / 4) }).filter((c) => kinds.has(c.category));
const inputs: AddressInput[] = [];
for (let i = 0; inputs.length < ROWS; i++) {
  const c = cases[i % cases.length]!;
  const line = c.input.line ?? [c.input.house_number, c.input.street, c.input.postcode, c.input.city].join(" ");
  inputs.push(i % 5 === 4 ? { line: messy(line) } : { line });
}
const csv = `id;adresse\n${inputs.map((input, i) => `${i + 1};${quoted(input.line!)}`).join("\n")}\n`;

// Baseline: the same rows matched in this thread, after a warm-up pass; measured again right after the job, and the
// mean of the two taken, since other processes on a shared machine change the rate over the run.
const matcher = new AddressMatcher({ indexes: [index], reference: new Reference(packReference(compileReference())) });
for (const input of inputs.slice(0, Math.min(5000, inputs.length))) matcher.match(input);
/** The rows matched per second of wall time; also keeps the CPU seconds the matching took (this thread alone). */
let inThreadCpuS = 0;
function inThreadRate(): number {
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  for (const input of inputs) matcher.match(input);
  const cpu = process.cpuUsage(cpu0);
  inThreadCpuS = (cpu.user + cpu.system) / 1e6;
  return inputs.length / ((performance.now() - t0) / 1000);
}
const inThreadBefore = inThreadRate();

const { server, env, key } = await startAddressBenchServer({
  stateDir: state.path,
  indexDir,
  parisFile: PARIS,
  threads: THREADS,
});
try {
  const auth = { authorization: `Bearer ${key}` };
  /** One job, upload to download; answers the phases' seconds and the rows downloaded. */
  const serverCpu = () => cpuSeconds(server.child.pid!);
  const run = async (body: string) => {
    const started = performance.now();
    const cpuStarted = serverCpu();
    const submitted = await fetch(`${server.url}/v1/address/bulk`, {
      method: "POST",
      headers: { ...auth, "content-type": "text/csv; charset=utf-8" },
      body,
    });
    if (submitted.status !== 202) throw new Error(`Cannot submit: ${submitted.status} ${await submitted.text()}`);
    const { job_id: id } = (await submitted.json()) as { job_id: string };
    const uploaded = performance.now();
    const cpuUploaded = serverCpu();
    // Each read is held by the server until the job ends (Prefer: wait, at most 30 s), so the match phase ends when
    // the job does, not at the next poll. A read the server did not hold (Preference-Applied absent: too many reads
    // held there) is followed by a 500 ms pause, as polling was; a 429 is waited out.
    for (;;) {
      const poll = await fetch(`${server.url}/v1/jobs/${id}?limit=0`, { headers: { ...auth, prefer: "wait=30" } });
      if (poll.status === 200 && ((await poll.json()) as { status: string }).status === "completed") break;
      const held = poll.status === 200 && poll.headers.has("preference-applied");
      const wait = poll.status === 429 ? Number(poll.headers.get("retry-after") ?? 1) * 1000 : held ? 0 : 500;
      if (wait > 0) await new Promise((done) => setTimeout(done, wait));
    }
    const matched = performance.now();
    const cpuMatched = serverCpu();
    const download = await fetch(`${server.url}/v1/jobs/${id}`, { headers: { ...auth, accept: "text/csv" } });
    if (download.status !== 200) throw new Error(`Cannot download: ${download.status} ${await download.text()}`);
    // Line feeds counted in the bytes (0x0A is never part of a multi-byte UTF-8 sequence): decoding 20 MB and
    // walking it a character at a time cost this process, on the server's two cores, more than the server's writing.
    let lines = 0;
    for await (const chunk of download.body as unknown as AsyncIterable<Uint8Array>) {
      for (let at = chunk.indexOf(0x0a); at >= 0; at = chunk.indexOf(0x0a, at + 1)) lines++;
    }
    const ended = performance.now();
    const cpuEnded = serverCpu();
    return {
      upload: (uploaded - started) / 1000,
      match: (matched - uploaded) / 1000,
      download: (ended - matched) / 1000,
      total: (ended - started) / 1000,
      cpu: {
        upload: cpuUploaded - cpuStarted,
        match: cpuMatched - cpuUploaded,
        download: cpuEnded - cpuMatched,
        total: cpuEnded - cpuStarted,
      },
      rows: lines - 1,
    };
  };
  // Warm-up: the same job once, unmeasured, as the in-thread baseline is measured warm. A server that has run a while
  // has its threads' code optimised; a 2000-row warm-up left the threads' first big job a third slower than their
  // next (the optimising compiler still at work on the machine's two cores), which measured the compiler, not the
  // pipeline. Rows are verified once per job only: nothing of the first job is reused by the second.
  await run(csv);
  const load = loadavg()[0]!;
  const measured = await run(csv);
  const rss = Math.round(rssMb(server.child.pid!));
  if (measured.rows !== ROWS) throw new Error(`Cannot trust the run: ${measured.rows} rows downloaded for ${ROWS}`);
  const inThreadAfter = inThreadRate();
  const inThread = (inThreadBefore + inThreadAfter) / 2;
  await server.stop();
  const service = await createAddressService(loadConfig({ ...env, STATE_DIR: join(state.path, "pool") }), {
    watch: false,
  });
  let poolRate = 0;
  try {
    // The rows as the job runner hands them out: chunks of 1000 stored as JSON texts, slices of SLICE_ROWS, LANES
    // chunks in flight, each started as soon as one ends.
    const chunks: Array<{ inputs: string; dupOf: string; firstRow: number; size: number }> = [];
    for (let at = 0; at < inputs.length; at += CHUNK_ROWS) {
      const rows = inputs.slice(at, at + CHUNK_ROWS);
      chunks.push({
        inputs: JSON.stringify(rows),
        dupOf: JSON.stringify(duplicateOf(rows)),
        firstRow: 1,
        size: rows.length,
      });
    }
    const runChunk = (c: (typeof chunks)[number]) => {
      const slices: Array<Promise<SliceAnswers>> = [];
      for (let from = 0; from < c.size; from += SLICE_ROWS) {
        slices.push(service.verifySlice({ ...c, from, to: Math.min(c.size, from + SLICE_ROWS) }));
      }
      return Promise.all(slices).then(joinSlices);
    };
    // Warm-up: the whole file once, unmeasured, as the server's threads are warmed by a whole job first and the
    // in-thread loop by 5000 rows. A 1000-row warm-up left the threads' code unoptimised: the pool then read 0.60-0.67
    // of the ceiling, and about 0.9 once warm (2026-12-07).
    for (const c of chunks) await runChunk(c);
    const p0 = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: LANES }, async () => {
        while (next < chunks.length) await runChunk(chunks[next++]!);
      }),
    );
    poolRate = inputs.length / ((performance.now() - p0) / 1000);
  } finally {
    await service.close();
  }
  const rate = ROWS / measured.total;
  const { cpu } = measured;
  const ceiling = inThread * THREADS;
  const f = (n: number, d = 2) => n.toFixed(d);
  console.log(
    `bulk_address rows=${ROWS} threads=${THREADS} upload_s=${f(measured.upload)} match_s=${f(measured.match)} ` +
      `download_s=${f(measured.download)} total_s=${f(measured.total)} rows_s=${Math.round(rate)} ` +
      `in_thread_rows_s=${Math.round(inThread)} in_thread_before=${Math.round(inThreadBefore)} ` +
      `in_thread_after=${Math.round(inThreadAfter)} ceiling_rows_s=${Math.round(ceiling)} ratio=${f(rate / ceiling)} ` +
      `pool_rows_s=${Math.round(poolRate)} ratio_to_pool=${f(rate / poolRate)} ` +
      // The server's CPU seconds for the job (all threads), beside the matching alone's in this thread: steadier than
      // wall time on a shared machine, and the ratio the wall one tends to when the cores are the server's alone.
      `server_cpu_s=${f(cpu.total)} upload_cpu_s=${f(cpu.upload)} match_phase_cpu_s=${f(cpu.match)} ` +
      `download_cpu_s=${f(cpu.download)} in_thread_cpu_s=${f(inThreadCpuS)} cpu_ratio=${f(inThreadCpuS / cpu.total)} ` +
      `server_rss_mb=${rss} load1=${load.toFixed(1)} cores=${cpus().length} node=${process.version}`,
  );
} finally {
  await server.stop();
  state.remove();
}
