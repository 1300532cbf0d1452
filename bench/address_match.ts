// address_match: matches per second per worker thread on a mixed query set drawn from the real Paris file (the seven
// categories of address_accuracy, equal shares), p50/p99, the same through the service's worker pool (saturated, in
// MATCH_ROUNDS rounds that take turns with a pass in this thread, and in a closed loop of threads × 16 callers, whose
// p50/p99 are printed), index memory, resident memory each worker thread adds, and service start with Paris indexed.
// Baseline from the same run: the bare exact-key lookup (normalise + one hash probe), the floor of any matcher.
//   npx tsx bench/address_match.ts           (env: MATCH_PER_CATEGORY=1000, MATCH_ROUNDS=5, WORKERS)
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadConfig } from "../src/config.ts";
import { BanIndex } from "../src/address/index/ban_index.ts";
import { asciiBytes } from "../src/address/index/format.ts";
import { importBan } from "../src/address/index/import.ts";
import { AddressMatcher } from "../src/address/match.ts";
import { streetKey } from "../src/address/normalize/match_key.ts";
import { readPackedFile } from "../src/address/packed_file.ts";
import { parseAddress } from "../src/address/parse/parse_address.ts";
import { compileReference } from "../src/address/reference/compile.ts";
import { packReference } from "../src/address/reference/pack_reference.ts";
import { Reference } from "../src/address/reference/reference.ts";
import { createMatchPool } from "../src/address/pool.ts";
import { createAddressService } from "../src/address/service.ts";
import { buildEvalSet } from "./lib/eval_set.ts";
import { medianBy } from "./lib/rounds.ts";
import { parisFileOrSkip } from "./lib/paris.ts";

const threadsOf = () => Number(process.env.WORKERS ?? availableParallelism());

// Child mode: the resident memory each worker thread adds once started (isolate, modules, its matcher over the shared
// buffers), measured in a process that does nothing else: in the bench's own process, its garbage collections during
// the pool's start made the difference noise (from -7 to +45 MB per thread over three runs).
if (process.argv[2] === "--pool-rss") {
  const threads = threadsOf();
  const poolData = {
    indexBuffers: [readPackedFile(process.argv[3]!)],
    referenceBuffer: packReference(compileReference()),
  };
  // Collected, then given time to hand the freed pages back (V8 unmaps them in the background), before and after.
  const settle = async () => {
    globalThis.gc?.();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    globalThis.gc?.();
  };
  await settle();
  const before = process.memoryUsage().rss;
  const pool = createMatchPool(poolData, { threads });
  await Promise.all(Array.from({ length: threads }, () => pool.run({ inputs: [] })));
  await settle();
  process.stdout.write(String((process.memoryUsage().rss - before) / threads));
  await pool.destroy();
  process.exit(0);
}

function poolRssPerThread(indexPath: string): number {
  const child = spawnSync(
    process.execPath,
    ["--expose-gc", "--import", "tsx", fileURLToPath(import.meta.url), "--pool-rss", indexPath],
    { encoding: "utf8" },
  );
  if (child.status !== 0) throw new Error(`Cannot measure pool memory: ${child.stderr}`);
  return Number(child.stdout);
}

const PARIS = parisFileOrSkip("address_match");
const perCategory = Number(process.env.MATCH_PER_CATEGORY ?? 1000);
const rounds = Number(process.env.MATCH_ROUNDS ?? 5);
const threads = threadsOf();

function quantile(sorted: Float64Array, q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

const dir = mkdtempSync(path.join(tmpdir(), "vrai-match-"));
try {
  const [imported] = await importBan(PARIS, { banSource: path.dirname(PARIS), indexDir: dir });

  // Index memory: the shared buffer, and what loading it adds to the resident set.
  globalThis.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const index = new BanIndex(readPackedFile(imported.path));
  const rssIndex = process.memoryUsage().rss - rssBefore;
  const matcher = new AddressMatcher({ indexes: [index], reference: new Reference(packReference(compileReference())) });
  const queries = buildEvalSet(index, { seed: 7, perCategory }).map((c) => c.input);
  // Shuffle so that categories interleave as in real traffic (deterministic).
  for (let i = queries.length - 1; i > 0; i--) {
    const j = (i * 7919) % (i + 1);
    [queries[i], queries[j]] = [queries[j]!, queries[i]!];
  }

  for (const q of queries) matcher.match(q); // warm-up
  const lat = new Float64Array(queries.length * rounds);
  let k = 0;
  const t0 = performance.now();
  for (let r = 0; r < rounds; r++) {
    for (const q of queries) {
      const s = performance.now();
      matcher.match(q);
      lat[k++] = performance.now() - s;
    }
  }
  const elapsed = (performance.now() - t0) / 1000;
  lat.sort();

  // Baseline: the bare exact lookup of the same queries.
  const ref = new Reference(packReference(compileReference()));
  const baseline = (q: (typeof queries)[number]) => {
    const p = parseAddress(q);
    const ids: number[] = [];
    if (p.street) index.byKey(asciiBytes(streetKey(p.street).key), ids);
    const communes = p.postcode ? ref.communesOfPostcode(p.postcode) : [];
    return ids.find((i) => communes.includes(index.communeCode(i)));
  };
  for (const q of queries) baseline(q);
  const b0 = performance.now();
  for (let r = 0; r < rounds; r++) for (const q of queries) baseline(q);
  const baseOps = (queries.length * rounds) / ((performance.now() - b0) / 1000);

  const rssPerThread = poolRssPerThread(imported.path);

  // Service start with Paris already indexed: cold (the nationwide reference compiled from the npm packages and
  // cached beside the index) and warm (the usual restart: the cache is there).
  const serviceConfig = {
    ...loadConfig({}),
    banIndexDir: dir,
    banSource: path.dirname(PARIS),
    banDepartements: ["75"],
    workers: threads,
  };
  const c0 = performance.now();
  await (await createAddressService(serviceConfig)).close();
  const startColdMs = performance.now() - c0;
  const s0 = performance.now();
  const service = await createAddressService(serviceConfig);
  const startMs = performance.now() - s0;
  const rssWithPool = process.memoryUsage().rss;
  // Warm-up pass: the workers' JIT sees every category once, as the in-thread run did.
  await Promise.all(queries.map((q) => service.verify(q)));
  // Two offered loads. Closed loop: threads × 16 callers, each waiting for its answer before asking again (the pool's
  // latency bounds this one). Saturated: the whole query set asked at once, as a burst of HTTP calls or a signup
  // fan-out does, twice: the pool's throughput, the figure compared with the in-thread one.
  const poolLat = new Float64Array(queries.length * 2);
  let pk = 0;
  const p0 = performance.now();
  const inflight = threads * 16;
  let next = 0;
  const total = queries.length * 2;
  await Promise.all(
    Array.from({ length: inflight }, async () => {
      while (next < total) {
        const q = queries[next++ % queries.length]!;
        const s = performance.now();
        await service.verify(q);
        poolLat[pk++] = performance.now() - s;
      }
    }),
  );
  const closedOps = total / ((performance.now() - p0) / 1000);
  poolLat.sort();
  // The pool against this thread, in rounds that take turns: one pass over the queries here, then one through the
  // saturated pool, so that the machine's drift moves both sides of a round's ratio alike (as bench/lib/rounds.ts).
  // The pool's figures are those of the median round.
  const turns: Array<{ inThread: number; pool: number }> = [];
  for (let r = 0; r < rounds; r++) {
    const threadStart = performance.now();
    for (const q of queries) matcher.match(q);
    const inThread = queries.length / ((performance.now() - threadStart) / 1000);
    const poolStart = performance.now();
    await Promise.all(queries.map((q) => service.verify(q)));
    const pool = queries.length / ((performance.now() - poolStart) / 1000);
    turns.push({ inThread, pool });
  }
  const poolVsInThread = (turn: (typeof turns)[number]) => turn.pool / threads / turn.inThread;
  const { median, range } = medianBy(turns, poolVsInThread);
  await service.close();

  console.log(
    `address_match n=${queries.length * rounds} threads=${threads} ops_s_per_thread=${Math.round((queries.length * rounds) / elapsed)} ` +
      `p50_us=${(quantile(lat, 0.5) * 1000).toFixed(1)} p99_us=${(quantile(lat, 0.99) * 1000).toFixed(1)} ` +
      `pool_ops_s=${Math.round(median.pool)} pool_ops_s_per_thread=${Math.round(median.pool / threads)} ` +
      `pool_vs_in_thread=${Math.round(100 * poolVsInThread(median))}% pool_vs_in_thread_range=${range} ` +
      `pool_round_in_thread_ops_s=${Math.round(median.inThread)} ` +
      `closed_loop_${inflight}_ops_s=${Math.round(closedOps)} ` +
      `pool_p50_ms=${quantile(poolLat, 0.5).toFixed(2)} pool_p99_ms=${quantile(poolLat, 0.99).toFixed(2)} ` +
      `index_mb=${(index.byteLength / 1e6).toFixed(1)} index_rss_mb=${(rssIndex / 1e6).toFixed(1)} rss_with_pool_mb=${(rssWithPool / 1e6).toFixed(0)} rss_per_thread_mb=${(rssPerThread / 1e6).toFixed(1)} ` +
      `start_ms=${Math.round(startMs)} start_cold_ms=${Math.round(startColdMs)} baseline_exact_lookup_ops_s=${Math.round(baseOps)} node=${process.version}`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
