// Packs the compiled reference tables (compile.ts) into the shared layout of reference_format.ts, once per process on
// the main thread: the Maps are built here, the way each worker thread used to build them, then flattened into typed
// arrays that every thread reads in place (reference.ts).
import { hashBytes } from "../index/format.ts";
import { writePacked } from "../packed_file.ts";
import {
  CITY_KINDS,
  codeNumber,
  REFERENCE_FORMAT,
  REFERENCE_VERSION,
  type RefSectionName,
  type ReferenceHeader,
  type ReferenceTables,
} from "./reference_format.ts";

type CityKind = (typeof CITY_KINDS)[number];

interface CityMatchAcc {
  kind: CityKind;
  communes: string[];
}

/** The lookups as Maps of strings: the reference's meaning, before it is flattened. */
interface ReferenceMaps {
  name: Map<string, string>;
  parent: Map<string, string>;
  children: Map<string, string[]>;
  byPostcode: Map<string, Array<{ insee: string; acheminement: string }>>;
  postcodesOf: Map<string, string[]>;
  cities: Map<string, CityMatchAcc[]>;
}

function buildMaps(tables: ReferenceTables): ReferenceMaps {
  const m: ReferenceMaps = {
    name: new Map(),
    parent: new Map(),
    children: new Map(),
    byPostcode: new Map(),
    postcodesOf: new Map(),
    cities: new Map(),
  };
  const expand = (insee: string) => m.children.get(insee) ?? [insee];
  const addCity = (key: string, kind: CityKind, insee: string) => {
    let matches = m.cities.get(key);
    if (matches === undefined) {
      matches = [];
      m.cities.set(key, matches);
    }
    let match: CityMatchAcc | undefined;
    for (const x of matches) if (x.kind === kind) match = x;
    if (match === undefined) {
      match = { kind, communes: [] };
      // Kinds arrive name, acheminement, former (the order of the passes below), so the array stays best first.
      matches.push(match);
    }
    if (!match.communes.includes(insee)) match.communes.push(insee);
  };
  for (const line of tables.communes.split("\n")) {
    const [code, name, parent] = line.split("|") as [string, string, string];
    m.name.set(code, name);
    if (parent) {
      m.parent.set(code, parent);
      const list = m.children.get(parent) ?? [];
      list.push(code);
      m.children.set(parent, list);
    }
  }
  for (const line of tables.communes.split("\n")) {
    const [code, , , key] = line.split("|") as [string, string, string, string];
    for (const c of expand(code)) addCity(key, "name", c);
  }
  // "Paris 1er", "Paris 01", "Paris 1": cityKey() folds them all to "paris 1".
  for (const line of tables.pairs.split("\n")) {
    const [postcode, insee, acheminement, key] = line.split("|") as [string, string, string, string];
    const pairs = m.byPostcode.get(postcode) ?? [];
    pairs.push({ insee, acheminement });
    m.byPostcode.set(postcode, pairs);
    const pcs = m.postcodesOf.get(insee) ?? [];
    if (!pcs.includes(postcode)) pcs.push(postcode);
    m.postcodesOf.set(insee, pcs);
    addCity(key, "acheminement", insee);
  }
  for (const line of tables.formers.split("\n")) {
    const [, , parent, key] = line.split("|") as [string, string, string, string];
    // A former code without a name (compile.ts) only maps BAN rows.
    if (key === "") continue;
    for (const c of expand(parent)) addCity(key, "former", c);
  }
  return m;
}

function number(code: string, what: string): number {
  const n = codeNumber(code);
  if (n < 0) throw new TypeError(`Cannot pack address reference: "${code}" is no ${what}`);
  return n;
}

class BlobWriter {
  readonly parts: Buffer[] = [];
  length = 0;
  put(text: string, encoding: "utf8" | "latin1"): void {
    const b = Buffer.from(text, encoding);
    this.parts.push(b);
    this.length += b.length;
  }
}

/** Tables → one SharedArrayBuffer in the reference_format.ts layout (about 200 ms, once per process). */
export function packReference(tables: ReferenceTables): SharedArrayBuffer {
  const m = buildMaps(tables);
  const blob = new BlobWriter();

  // Communes: every INSEE code the tables name, sorted by number.
  const codeSet = new Set<string>([...m.name.keys(), ...m.parent.values(), ...m.postcodesOf.keys()]);
  for (const pairs of m.byPostcode.values()) for (const p of pairs) codeSet.add(p.insee);
  for (const matches of m.cities.values()) for (const x of matches) for (const c of x.communes) codeSet.add(c);
  const codes = [...codeSet].map((c) => ({ c, n: number(c, "INSEE code") })).sort((a, b) => a.n - b.n);
  const communeOf = new Map(codes.map(({ c }, i) => [c, i]));
  const N = codes.length;
  const communeCode = Uint32Array.from(codes, ({ n }) => n);
  const communeNameStart = new Uint32Array(N + 1);
  const communeParent = new Int32Array(N).fill(-1);
  const childStart = new Uint32Array(N + 1);
  const childList: number[] = [];
  const postcodeOfStart = new Uint32Array(N + 1);
  const postcodeOfList: number[] = [];
  for (let i = 0; i < N; i++) {
    const code = codes[i]!.c;
    communeNameStart[i] = blob.length;
    blob.put(m.name.get(code) ?? "", "utf8");
    const parent = m.parent.get(code);
    if (parent !== undefined) communeParent[i] = communeOf.get(parent)!;
    childStart[i] = childList.length;
    for (const child of m.children.get(code) ?? []) childList.push(communeOf.get(child)!);
    postcodeOfStart[i] = postcodeOfList.length;
    for (const pc of m.postcodesOf.get(code) ?? []) postcodeOfList.push(number(pc, "postcode"));
  }
  communeNameStart[N] = blob.length;
  childStart[N] = childList.length;
  postcodeOfStart[N] = postcodeOfList.length;

  // Postcodes and their (commune, delivery name) pairs; delivery names interned.
  const postcodes = [...m.byPostcode.keys()].map((c) => ({ c, n: number(c, "postcode") })).sort((a, b) => a.n - b.n);
  const P = postcodes.length;
  const postcode = Uint32Array.from(postcodes, ({ n }) => n);
  const pairStart = new Uint32Array(P + 1);
  const pairCommune: number[] = [];
  const pairAchem: number[] = [];
  const achemIds = new Map<string, number>();
  const achems: string[] = [];
  for (let p = 0; p < P; p++) {
    pairStart[p] = pairCommune.length;
    for (const pair of m.byPostcode.get(postcodes[p]!.c)!) {
      let id = achemIds.get(pair.acheminement);
      if (id === undefined) {
        id = achems.length;
        achems.push(pair.acheminement);
        achemIds.set(pair.acheminement, id);
      }
      pairCommune.push(communeOf.get(pair.insee)!);
      pairAchem.push(id);
    }
  }
  pairStart[P] = pairCommune.length;
  const achemStart = new Uint32Array(achems.length + 1);
  for (let a = 0; a < achems.length; a++) {
    achemStart[a] = blob.length;
    blob.put(achems[a]!, "utf8");
  }
  achemStart[achems.length] = blob.length;

  // City keys (ASCII by construction of cityKey(); checked, since lookups compare char codes to bytes).
  const keys = [...m.cities.keys()];
  const K = keys.length;
  const cityKeyStart = new Uint32Array(K + 1);
  let hashBits = 4;
  while (1 << hashBits < K * 2) hashBits++;
  const cityHash = new Uint32Array(1 << hashBits);
  const mask = (1 << hashBits) - 1;
  const cityMatchStart = new Uint32Array(K + 1);
  const matchKind: number[] = [];
  const matchCommuneStart: number[] = [];
  const matchCommune: number[] = [];
  for (let k = 0; k < K; k++) {
    const key = keys[k]!;
    if (/[^\x00-\x7f]/.test(key)) throw new TypeError(`Cannot pack address reference: city key "${key}" is not ASCII`);
    cityKeyStart[k] = blob.length;
    const bytes = Buffer.from(key, "latin1");
    blob.put(key, "latin1");
    let slot = hashBytes(bytes, 0, bytes.length) & mask;
    while (cityHash[slot] !== 0) slot = (slot + 1) & mask;
    cityHash[slot] = k + 1;
    cityMatchStart[k] = matchKind.length;
    for (const x of m.cities.get(key)!) {
      matchKind.push(CITY_KINDS.indexOf(x.kind));
      matchCommuneStart.push(matchCommune.length);
      for (const c of x.communes) matchCommune.push(communeOf.get(c)!);
    }
  }
  cityKeyStart[K] = blob.length;
  cityMatchStart[K] = matchKind.length;
  matchCommuneStart.push(matchCommune.length);

  const data: Record<RefSectionName, ArrayLike<number> & { length: number }> = {
    communeCode,
    communeNameStart,
    communeParent,
    childStart,
    childList,
    postcodeOfStart,
    postcodeOfList,
    postcode,
    pairStart,
    pairCommune,
    pairAchem,
    achemStart,
    cityKeyStart,
    cityHash,
    cityMatchStart,
    matchKind,
    matchCommuneStart,
    matchCommune,
    blob: Buffer.concat(blob.parts, blob.length),
  };
  const packed = writePacked(REFERENCE_FORMAT, data, {
    header: (sections): ReferenceHeader => ({ version: REFERENCE_VERSION, sections }),
    shared: true,
  });
  return packed.buffer as SharedArrayBuffer;
}
