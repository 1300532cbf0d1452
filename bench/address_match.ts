// address_match: matches per second per worker thread on a mixed query set drawn from the real Paris file (the seven
// categories of address_accuracy, equal shares), p50/p99, index memory and service start with Paris indexed.
// Baseline from the same run: the bare exact-key lookup (normalise + one hash probe), the floor of any matcher.
//   npx tsx bench/address_match.ts           (env: MATCH_PER_CATEGORY=1000, MATCH_ROUNDS=5, WORKERS)
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import path from "node:path";
import { loadConfig } from "../src/config.ts";
import { buildEvalSet } from "../src/address/eval_set.ts";
import { BanIndex, readIndexFile } from "../src/address/index/ban_index.ts";
import { asciiBytes } from "../src/address/index/format.ts";
import { importBan } from "../src/address/index/import.ts";
import { AddressMatcher } from "../src/address/match.ts";
import { streetKey } from "../src/address/normalize/match_key.ts";
import { parseAddress } from "../src/address/parse/parse_address.ts";
import { compileReference } from "../src/address/reference/compile.ts";
import { Reference } from "../src/address/reference/reference.ts";
import { createAddressService } from "../src/address/service.ts";

const PARIS = path.resolve("../shared/data/ban/adresses-75.csv.gz");
if (!existsSync(PARIS)) {
  console.log(`address_match skipped=1 reason="Paris BAN file absent at ${PARIS}"`);
  process.exit(0);
}
const perCategory = Number(process.env.MATCH_PER_CATEGORY ?? 1000);
const rounds = Number(process.env.MATCH_ROUNDS ?? 5);
const threads = Number(process.env.WORKERS ?? availableParallelism());

function quantile(sorted: Float64Array, q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

const dir = mkdtempSync(path.join(tmpdir(), "vrai-match-"));
try {
  const [imported] = await importBan(PARIS, { banSource: path.dirname(PARIS), indexDir: dir });

  // Index memory: the shared buffer, and what loading it adds to the resident set.
  globalThis.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const index = new BanIndex(readIndexFile(imported.path));
  const rssIndex = process.memoryUsage().rss - rssBefore;
  const matcher = new AddressMatcher({ indexes: [index], reference: new Reference(compileReference()) });
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
  const ref = new Reference(compileReference());
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

  // Service start with Paris already indexed: cold (the nationwide reference compiled from the npm packages and
  // cached beside the index) and warm (the usual restart: the cache is there).
  const serviceConfig = { ...loadConfig({}), banIndexDir: dir, banSource: path.dirname(PARIS), banDepartements: ["75"], workers: threads };
  const c0 = performance.now();
  await (await createAddressService(serviceConfig)).close();
  const startColdMs = performance.now() - c0;
  const s0 = performance.now();
  const service = await createAddressService(serviceConfig);
  const startMs = performance.now() - s0;
  const rssWithPool = process.memoryUsage().rss;
  // Warm-up pass: the workers' JIT sees every category once, as the in-thread run did.
  await Promise.all(queries.map((q) => service.verify(q)));
  const poolLat = new Float64Array(queries.length * 2);
  let pk = 0;
  const p0 = performance.now();
  const inflight = threads * 16;
  let next = 0;
  const total = queries.length * 2;
  await Promise.all(Array.from({ length: inflight }, async () => {
    while (next < total) {
      const q = queries[next++ % queries.length]!;
      const s = performance.now();
      await service.verify(q);
      poolLat[pk++] = performance.now() - s;
    }
  }));
  const poolOps = total / ((performance.now() - p0) / 1000);
  poolLat.sort();
  await service.close();

  console.log(
    `address_match n=${queries.length * rounds} threads=${threads} ops_s_per_thread=${Math.round((queries.length * rounds) / elapsed)} ` +
      `p50_us=${(quantile(lat, 0.5) * 1000).toFixed(1)} p99_us=${(quantile(lat, 0.99) * 1000).toFixed(1)} ` +
      `pool_ops_s=${Math.round(poolOps)} pool_ops_s_per_thread=${Math.round(poolOps / threads)} ` +
      `pool_p50_ms=${quantile(poolLat, 0.5).toFixed(2)} pool_p99_ms=${quantile(poolLat, 0.99).toFixed(2)} ` +
      `index_mb=${(index.byteLength / 1e6).toFixed(1)} index_rss_mb=${(rssIndex / 1e6).toFixed(1)} rss_with_pool_mb=${(rssWithPool / 1e6).toFixed(0)} ` +
      `start_ms=${Math.round(startMs)} start_cold_ms=${Math.round(startColdMs)} baseline_exact_lookup_ops_s=${Math.round(baseOps)} node=${process.version}`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
