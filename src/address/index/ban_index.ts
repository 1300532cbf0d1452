// Read side of a département index (format.ts): typed-array views over one SharedArrayBuffer. Constructing a
// BanIndex copies nothing; the main thread and every worker can each build one over the same buffer.
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import {
  ADDRESS_COLUMNS, FORMAT_VERSION, hashBytes, HASH_TABLES, MAGIC, NIL, STREET_COLUMNS,
  type IndexHeader, type SectionType,
} from "./format.ts";
import { canonicalSuffix } from "./suffix.ts";

type View<T extends SectionType> = T extends "u8" ? Uint8Array : T extends "u16" ? Uint16Array : T extends "u32" ? Uint32Array : Int32Array;
type Columns<C extends Record<string, SectionType>> = { [K in keyof C]: View<C[K]> };

function view(buffer: ArrayBufferLike, type: SectionType, byteOffset: number, length: number) {
  switch (type) {
    case "u8": return new Uint8Array(buffer, byteOffset, length);
    case "u16": return new Uint16Array(buffer, byteOffset, length);
    case "u32": return new Uint32Array(buffer, byteOffset, length);
    case "i32": return new Int32Array(buffer, byteOffset, length);
  }
}

/** Reads an index file straight into shared memory (one copy per process, none per thread). */
export function readIndexFile(path: string): SharedArrayBuffer {
  // Straight from the file into the shared buffer: no intermediate Buffer, no second copy (582 MB at France scale).
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    const shared = new SharedArrayBuffer(size);
    const view = new Uint8Array(shared);
    let done = 0;
    while (done < size) {
      const n = readSync(fd, view, done, Math.min(size - done, 1 << 30), done);
      if (n === 0) throw new RangeError(`Cannot read address index: ${path} ended early`);
      done += n;
    }
    return shared;
  } finally {
    closeSync(fd);
  }
}

export class BanIndex {
  readonly header: IndexHeader;
  readonly buffer: SharedArrayBuffer | ArrayBuffer;
  readonly st: Columns<typeof STREET_COLUMNS>;
  readonly ad: Columns<typeof ADDRESS_COLUMNS>;
  readonly hash: Columns<typeof HASH_TABLES>;
  readonly blob: Uint8Array;
  readonly communeByCode: ReadonlyMap<string, number>;
  /** Canonical form of each suffix of the suffix table ("bis" → "b"). */
  readonly suffixCanon: readonly string[];
  readonly #mask: number;

  constructor(buffer: SharedArrayBuffer | ArrayBuffer) {
    this.buffer = buffer;
    const bytes = new Uint8Array(buffer);
    if (Buffer.from(bytes.subarray(0, 8)).toString("latin1") !== MAGIC) {
      throw new TypeError("Cannot read address index: not a vrai BAN index file");
    }
    const headerLength = new DataView(buffer).getUint32(8, true);
    this.header = JSON.parse(Buffer.from(buffer, 12, headerLength).toString("utf8")) as IndexHeader;
    if (this.header.version !== FORMAT_VERSION) {
      throw new TypeError(`Cannot read address index: format version ${this.header.version}, expected ${FORMAT_VERSION}`);
    }
    const dataStart = (12 + headerLength + 7) & ~7;
    const make = (name: string) => {
      const s = this.header.sections[name as keyof IndexHeader["sections"]];
      return view(buffer, s.type, dataStart + s.offset, s.length);
    };
    const pick = <C extends Record<string, SectionType>>(cols: C): Columns<C> =>
      Object.fromEntries(Object.keys(cols).map((k) => [k, make(k)])) as Columns<C>;
    this.st = pick(STREET_COLUMNS);
    this.ad = pick(ADDRESS_COLUMNS);
    this.hash = pick(HASH_TABLES);
    this.blob = make("blob") as Uint8Array;
    this.communeByCode = new Map(this.header.communes.map((c, i) => [c.code, i]));
    this.suffixCanon = this.header.suffixes.map(canonicalSuffix);
    this.#mask = (1 << this.header.hashBits) - 1;
  }

  get departement(): string {
    return this.header.departement;
  }

  /** Bytes held by this index (shared across threads). */
  get byteLength(): number {
    return this.buffer.byteLength;
  }

  #equals(off: number, len: number, key: Uint8Array): boolean {
    if (len !== key.length) return false;
    const blob = this.blob;
    for (let i = 0; i < len; i++) if (blob[off + i] !== key[i]) return false;
    return true;
  }

  /** Streets whose full key is exactly `key` ("rue rivoli"), all communes of the département. */
  byKey(key: Uint8Array, out: number[]): void {
    const st = this.st;
    for (let i = this.hash.hashKey[hashBytes(key, 0, key.length) & this.#mask]!; i !== NIL; i = st.stNextKey[i]!) {
      if (this.#equals(st.stKeyOff[i]!, st.stKeyLen[i]!, key)) out.push(i);
    }
  }

  /** Streets whose name without the type is exactly `name` ("rivoli"). */
  byName(name: Uint8Array, out: number[]): void {
    const st = this.st;
    for (let i = this.hash.hashName[hashBytes(name, 0, name.length) & this.#mask]!; i !== NIL; i = st.stNextName[i]!) {
      const t = st.stTypeLen[i]!;
      if (this.#equals(st.stKeyOff[i]! + t, st.stKeyLen[i]! - t, name)) out.push(i);
    }
  }

  /** Streets whose NF Z 10-011 short form ("bd mal j m lattre tassigny") has this key. */
  byAfnor(key: Uint8Array, out: number[]): void {
    const st = this.st;
    for (let i = this.hash.hashAfnor[hashBytes(key, 0, key.length) & this.#mask]!; i !== NIL; i = st.stNextAfnor[i]!) {
      if (this.#equals(st.stAfnorOff[i]!, st.stAfnorLen[i]!, key)) out.push(i);
    }
  }

  /** Streets whose phonetic key (of the name without type) is exactly `phon`. */
  byPhonetic(phon: Uint8Array, out: number[]): void {
    const st = this.st;
    for (let i = this.hash.hashPhon[hashBytes(phon, 0, phon.length) & this.#mask]!; i !== NIL; i = st.stNextPhon[i]!) {
      if (this.#equals(st.stPhonOff[i]!, st.stPhonLen[i]!, phon)) out.push(i);
    }
  }

  communeCode(street: number): string {
    return this.header.communes[this.st.stCommune[street]!]!.code;
  }

  streetName(street: number): string {
    return Buffer.from(this.blob.buffer, this.blob.byteOffset + this.st.stNameOff[street]!, this.st.stNameLen[street]!).toString("utf8");
  }

  streetKeyText(street: number): string {
    return Buffer.from(this.blob.buffer, this.blob.byteOffset + this.st.stKeyOff[street]!, this.st.stKeyLen[street]!).toString("latin1");
  }

  streetPostcode(street: number): string {
    return this.header.postcodes[this.st.stPostcode[street]!]!;
  }

  /** Every distinct postcode of a street's addresses. */
  streetPostcodes(street: number): Set<string> {
    const out = new Set<string>();
    const start = this.st.stAddrStart[street]!;
    const end = start + this.st.stAddrCount[street]!;
    for (let a = start; a < end; a++) out.add(this.header.postcodes[this.ad.adPostcode[a]!]!);
    return out;
  }

  /** Address rows of a street with this number: [first, end) (binary search; rows are sorted by number). */
  numberRange(street: number, num: number): [number, number] {
    const nums = this.ad.adNumber;
    const start = this.st.stAddrStart[street]!;
    const end = start + this.st.stAddrCount[street]!;
    let lo = start;
    let hi = end;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (nums[mid]! < num) lo = mid + 1;
      else hi = mid;
    }
    let stop = lo;
    while (stop < end && nums[stop] === num) stop++;
    return [lo, stop];
  }
}
