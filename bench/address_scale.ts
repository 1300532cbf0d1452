// address_scale: a synthetic index of France's size (about 26 million addresses in 35,000 communes, built by
// replicating and perturbing the Paris streets under real communes of other départements), built and loaded on this
// machine: build time, load time, resident memory (the index is shared by every thread), matches per second.
// Baseline from the same run: the Paris index alone (load time, matches per second).
//   npx tsx bench/address_scale.ts    (env: SCALE_ADDRESSES=26000000, SCALE_COMMUNES=35000, SCALE_QUERIES=20000,
//                                      WORKERS; SCALE_ADDRESSES=2000000 runs in seconds)
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import path from "node:path";
import { BanIndex } from "../src/address/index/ban_index.ts";
import { IndexBuilder } from "../src/address/index/builder.ts";
import { indexFileName } from "../src/address/index/format.ts";
import { importBan } from "../src/address/index/import.ts";
import { departementOfInsee } from "../src/address/index/departement.ts";
import { AddressMatcher } from "../src/address/match.ts";
import { readPackedFile } from "../src/address/packed_file.ts";
import { createMatchPool } from "../src/address/pool.ts";
import { compileReference } from "../src/address/reference/compile.ts";
import { packReference } from "../src/address/reference/pack_reference.ts";
import { Reference } from "../src/address/reference/reference.ts";
import type { AddressInput } from "../src/address/types.ts";
import { seededRandom } from "./lib/eval_set.ts";
import { parisFileOrSkip } from "./lib/paris.ts";

const PARIS = parisFileOrSkip("address_scale");
const targetAddresses = Number(process.env.SCALE_ADDRESSES ?? 26_000_000);
const targetCommunes = Number(process.env.SCALE_COMMUNES ?? 35_000);
const queryCount = Number(process.env.SCALE_QUERIES ?? 20_000);
const threads = Number(process.env.WORKERS ?? availableParallelism());
const mb = (n: number) => (n / 1e6).toFixed(0);

const dir = mkdtempSync(path.join(tmpdir(), "vrai-scale-"));
try {
  const [paris] = await importBan(PARIS, { banSource: path.dirname(PARIS), indexDir: path.join(dir, "paris") });
  const parisLoad0 = performance.now();
  const parisIndex = new BanIndex(readPackedFile(paris.path));
  const parisLoadMs = performance.now() - parisLoad0;
  const tables = compileReference();
  const referenceBuffer = packReference(tables);
  const reference = new Reference(referenceBuffer);

  // Paris streets as templates: name, short name, and their address rows.
  interface Template {
    name: string;
    afnor: string;
    numbers: number[];
    suffixes: string[];
    lats: number[];
    lons: number[];
  }
  const templates: Template[] = [];
  const { st, ad, header } = parisIndex;
  for (let s = 0; s < header.streetCount; s++) {
    const start = st.stAddrStart[s]!;
    const count = st.stAddrCount[s]!;
    if (!/^[A-Za-zÀ-ÿ]/.test(parisIndex.streetName(s)) || count === 0) continue;
    const t: Template = { name: parisIndex.streetName(s), afnor: "", numbers: [], suffixes: [], lats: [], lons: [] };
    for (let a = start; a < start + count; a++) {
      t.numbers.push(ad.adNumber[a]!);
      t.suffixes.push(header.suffixes[ad.adSuffix[a]!]!);
      t.lats.push(ad.adLat[a]! / 1e6);
      t.lons.push(ad.adLon[a]! / 1e6);
    }
    templates.push(t);
  }

  // Real communes outside Paris, each with one postcode and its delivery name.
  const communes: Array<{ insee: string; postcode: string; acheminement: string }> = [];
  const seen = new Set<string>();
  for (const line of tables.pairs.split("\n")) {
    const [postcode, insee, acheminement] = line.split("|") as [string, string, string];
    if (seen.has(insee) || insee.startsWith("75")) continue;
    seen.add(insee);
    communes.push({ insee, postcode, acheminement });
  }
  communes.length = Math.min(communes.length, targetCommunes);
  const byDept = new Map<string, typeof communes>();
  for (const c of communes) {
    const d = departementOfInsee(c.insee);
    const list = byDept.get(d) ?? [];
    list.push(c);
    byDept.set(d, list);
  }

  const random = seededRandom(2026);
  const TYPES = ["Rue", "Chemin", "Allée", "Route", "Impasse", "Avenue", "Place"];
  const perCommune = Math.ceil(targetAddresses / communes.length);
  const queries: AddressInput[] = [];
  const queryEvery = Math.max(1, Math.floor(targetAddresses / queryCount));
  let rows = 0;
  let streets = 0;
  let bytes = 0;
  const b0 = performance.now();
  const outDir = path.join(dir, "france");
  mkdirSync(outDir, { recursive: true });
  for (const [dept, list] of byDept) {
    const builder = new IndexBuilder(dept);
    for (const c of list) {
      const used = new Set<string>();
      let n = 0;
      const dLat = (random() - 0.5) * 6;
      const dLon = (random() - 0.5) * 8;
      while (n < perCommune && rows < targetAddresses) {
        const t = templates[Math.floor(random() * templates.length)]!;
        // Perturb: another street type a quarter of the time, so names vary between communes as they do in France.
        let name = t.name;
        if (random() < 0.25) name = name.replace(/^\S+/, TYPES[Math.floor(random() * TYPES.length)]!);
        if (used.has(name)) continue;
        used.add(name);
        streets++;
        for (let k = 0; k < t.numbers.length; k++) {
          builder.add({
            numero: t.numbers[k]!,
            rep: t.suffixes[k]!,
            nomVoie: name,
            nomAfnor: "",
            codePostal: c.postcode,
            codeInsee: c.insee,
            acheminement: c.acheminement,
            lat: t.lats[k]! + dLat,
            lon: t.lons[k]! + dLon,
          });
          if (rows % queryEvery === 0 && queries.length < queryCount) {
            const suffix = t.suffixes[k] ? ` ${t.suffixes[k]}` : "";
            queries.push({ line: `${t.numbers[k]}${suffix} ${name}, ${c.postcode} ${c.acheminement}` });
          }
          rows++;
          n++;
        }
      }
    }
    const data = builder.finish();
    bytes += data.length;
    writeFileSync(path.join(outDir, indexFileName(dept)), data, { flag: "w" });
  }
  const buildS = (performance.now() - b0) / 1000;

  // Load: every file read once into shared memory.
  globalThis.gc?.();
  const rss0 = process.memoryUsage().rss;
  const l0 = performance.now();
  const buffers = [...byDept.keys()].map((d) => readPackedFile(path.join(outDir, indexFileName(d))));
  const indexes = buffers.map((b) => new BanIndex(b));
  const loadMs = performance.now() - l0;
  const matcher = new AddressMatcher({ indexes, reference });
  const rssLoaded = process.memoryUsage().rss;

  for (const q of queries.slice(0, 2000)) matcher.match(q);
  let ok = 0;
  const m0 = performance.now();
  for (const q of queries) if (matcher.match(q).verdict === "deliverable") ok++;
  const ops = queries.length / ((performance.now() - m0) / 1000);

  // Baseline: the same kind of queries against Paris alone.
  const parisMatcher = new AddressMatcher({ indexes: [parisIndex], reference });
  const parisQueries: AddressInput[] = [];
  for (let i = 0; i < Math.min(queryCount, 20_000); i++) {
    const t = templates[Math.floor(random() * templates.length)]!;
    const s = parisIndex.header.streetCount;
    void s;
    parisQueries.push({ line: `${t.numbers[0]}${t.suffixes[0] ? ` ${t.suffixes[0]}` : ""} ${t.name}, Paris` });
  }
  for (const q of parisQueries.slice(0, 2000)) parisMatcher.match(q);
  const pm0 = performance.now();
  for (const q of parisQueries) parisMatcher.match(q);
  const parisOps = parisQueries.length / ((performance.now() - pm0) / 1000);

  // The pool over the same buffers: resident memory must not grow by a copy per thread.
  const pool = createMatchPool({ indexBuffers: buffers, referenceBuffer }, { threads });
  await Promise.all(Array.from({ length: threads * 4 }, (_, i) => pool.run({ inputs: [queries[i % queries.length]] })));
  const rssPool = process.memoryUsage().rss;
  await pool.destroy();

  console.log(
    `address_scale addresses=${rows} streets=${streets} communes=${communes.length} departements=${byDept.size} ` +
      `build_s=${buildS.toFixed(1)} index_mb=${mb(bytes)} load_ms=${Math.round(loadMs)} rss_loaded_mb=${mb(rssLoaded)} ` +
      `rss_index_delta_mb=${mb(rssLoaded - rss0)} rss_with_${threads}_threads_mb=${mb(rssPool)} ` +
      `ops_s=${Math.round(ops)} deliverable=${((ok / queries.length) * 100).toFixed(1)}% ` +
      `baseline_paris_load_ms=${parisLoadMs.toFixed(1)} baseline_paris_ops_s=${Math.round(parisOps)} node=${process.version}`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
