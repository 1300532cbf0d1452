// Read side of a département index (format.ts, ../packed_file.ts): typed-array views over one SharedArrayBuffer. Constructing a
// BanIndex copies nothing; the main thread and every worker can each build one over the same buffer.
import { readPacked, type SectionType, type Views } from "../packed_file.ts";
import { MATCH_KEY_VERSION } from "../normalize/match_key.ts";
import {
  ADDRESS_COLUMNS,
  ALT_COLUMNS,
  hashBytes,
  HASH_TABLES,
  INDEX_FORMAT,
  type IndexHeader,
  NIL,
  STREET_COLUMNS,
} from "./format.ts";
import { canonicalSuffix } from "./suffix.ts";

const NO_STREETS: readonly number[] = [];

export class BanIndex {
  readonly header: IndexHeader;
  readonly buffer: SharedArrayBuffer | ArrayBuffer;
  readonly st: Views<typeof STREET_COLUMNS>;
  readonly ad: Views<typeof ADDRESS_COLUMNS>;
  readonly alt: Views<typeof ALT_COLUMNS>;
  readonly hash: Views<typeof HASH_TABLES>;
  readonly blob: Uint8Array;
  readonly communeByCode: ReadonlyMap<string, number>;
  /** Canonical form of each suffix of the suffix table ("bis" → "b"). */
  readonly suffixCanon: readonly string[];
  readonly #mask: number;
  #nameHeads: Set<string> | undefined;
  #byLastWord: Map<string, number[]> | undefined;

  constructor(buffer: SharedArrayBuffer | ArrayBuffer) {
    this.buffer = buffer;
    const { header, views } = readPacked<typeof INDEX_FORMAT.sections, IndexHeader>(buffer, INDEX_FORMAT);
    // Keys of another version would never meet the query's: the file is unreadable, and imported again.
    if (header.matchKeys !== MATCH_KEY_VERSION) {
      throw new TypeError(
        `Cannot read address index: match keys of version ${header.matchKeys}, expected ${MATCH_KEY_VERSION}`,
      );
    }
    this.header = header;
    // Grouped by kind of section: the same views, found by name.
    const pick = <C extends Record<string, SectionType>>(cols: C): Views<C> =>
      Object.fromEntries(Object.keys(cols).map((k) => [k, views[k as keyof typeof views]])) as Views<C>;
    this.st = pick(STREET_COLUMNS);
    this.ad = pick(ADDRESS_COLUMNS);
    this.alt = pick(ALT_COLUMNS);
    this.hash = pick(HASH_TABLES);
    this.blob = views.blob;
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

  /** Whether some street's name, without its type, begins with this word ("faubourg": Rue du Faubourg Saint-Antoine).
   *  The set is gathered on the first call, one pass over the streets. */
  hasNameHead(word: string): boolean {
    this.#nameHeads ??= this.#gatherNameHeads();
    return this.#nameHeads.has(word);
  }

  #gatherNameHeads(): Set<string> {
    const { st, blob } = this;
    const heads = new Set<string>();
    for (let i = 0; i < st.stKeyOff.length; i++) {
      const start = st.stKeyOff[i]! + st.stTypeLen[i]!;
      const end = st.stKeyOff[i]! + st.stKeyLen[i]!;
      let space = start;
      while (space < end && blob[space] !== 0x20) space++;
      if (space > start) heads.add(Buffer.from(blob.buffer, blob.byteOffset + start, space - start).toString("latin1"));
    }
    return heads;
  }

  /** Streets whose name (match key) ends with this word: the family name of a street named after someone, which people
   *  keep when they leave out the rest ("rue Mouchotte" for Rue du Commandant René Mouchotte). Built on first use, in
   *  the thread that asks: only lines the exact search did not find ask. */
  byLastWord(word: string): readonly number[] {
    this.#byLastWord ??= this.#gatherLastWords();
    return this.#byLastWord.get(word) ?? NO_STREETS;
  }

  #gatherLastWords(): Map<string, number[]> {
    const { st, blob } = this;
    const streets = new Map<string, number[]>();
    for (let i = 0; i < st.stKeyOff.length; i++) {
      const start = st.stKeyOff[i]! + st.stTypeLen[i]!;
      const end = st.stKeyOff[i]! + st.stKeyLen[i]!;
      let space = end;
      while (space > start && blob[space - 1] !== 0x20) space--;
      if (space === end) continue;
      const word = Buffer.from(blob.buffer, blob.byteOffset + space, end - space).toString("latin1");
      const list = streets.get(word);
      if (list === undefined) streets.set(word, [i]);
      else list.push(i);
    }
    return streets;
  }

  /** Streets whose NF Z 10-011 short form ("bd mal j m lattre tassigny") has this key. */
  byAfnor(key: Uint8Array, out: number[]): void {
    const st = this.st;
    for (let i = this.hash.hashAfnor[hashBytes(key, 0, key.length) & this.#mask]!; i !== NIL; i = st.stNextAfnor[i]!) {
      if (this.#equals(st.stAfnorOff[i]!, st.stAfnorLen[i]!, key)) out.push(i);
    }
  }

  /** Streets one of whose alternative names (alias, lieu-dit) has exactly `key` as its full key. */
  byAlt(key: Uint8Array, out: number[]): void {
    const alt = this.alt;
    for (let i = this.hash.hashAlt[hashBytes(key, 0, key.length) & this.#mask]!; i !== NIL; i = alt.altNext[i]!) {
      const street = alt.altStreet[i]!;
      if (this.#equals(alt.altKeyOff[i]!, alt.altKeyLen[i]!, key) && !out.includes(street)) out.push(street);
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

  /**
   * BAN's id of an address row of `street` (`75101_cfq3tf_00001_bis`, BAN's own form: the street's id, the number on
   * five digits, the suffix as BAN writes it), or null when the source had no ids.
   */
  addressBanId(street: number, row: number): string | null {
    const len = this.st.stBanIdLen[street]!;
    if (len === 0) return null;
    const prefix = Buffer.from(this.blob.buffer, this.blob.byteOffset + this.st.stBanIdOff[street]!, len).toString(
      "latin1",
    );
    const suffix = this.header.suffixes[this.ad.adSuffix[row]!]!;
    return `${prefix}_${String(this.ad.adNumber[row]!).padStart(5, "0")}${suffix ? `_${suffix}` : ""}`;
  }

  streetName(street: number): string {
    return Buffer.from(
      this.blob.buffer,
      this.blob.byteOffset + this.st.stNameOff[street]!,
      this.st.stNameLen[street]!,
    ).toString("utf8");
  }

  /** Whether the street's match key begins with these bytes and goes on after them. */
  keyStartsWith(street: number, head: Uint8Array): boolean {
    const off = this.st.stKeyOff[street]!;
    if (this.st.stKeyLen[street]! <= head.length) return false;
    for (let k = 0; k < head.length; k++) if (this.blob[off + k] !== head[k]) return false;
    return true;
  }

  streetKeyText(street: number): string {
    return Buffer.from(
      this.blob.buffer,
      this.blob.byteOffset + this.st.stKeyOff[street]!,
      this.st.stKeyLen[street]!,
    ).toString("latin1");
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
