// Layout of one département's street index file (data/ban/ban-XX.idx). The whole file is read once into a
// SharedArrayBuffer and every worker thread builds typed-array views over the same bytes: nothing is copied per
// thread, nothing is parsed per address (STYLE habit 10, DECISIONS §8).
//
//   "VRAIBAN4" | u32 header length | header JSON | sections, each 8-byte aligned (offsets in the header)
//
// Strings (display names, match keys) live in one byte blob; streets and addresses are columns (struct of arrays).

export const MAGIC = "VRAIBAN4";
export const FORMAT_VERSION = 4;
/** End of a hash chain. */
export const NIL = 0xffffffff;

export type SectionType = "u8" | "u16" | "u32" | "i32";

export interface SectionInfo {
  type: SectionType;
  offset: number;
  length: number;
}

export interface CommuneEntry {
  /** INSEE code as BAN writes it (arrondissement codes for Paris, Lyon, Marseille). */
  code: string;
  firstStreet: number;
  streetCount: number;
}

export interface IndexHeader {
  version: number;
  departement: string;
  /** ISO date of the import. */
  builtAt: string;
  communes: CommuneEntry[];
  postcodes: string[];
  /** Delivery names (libellé d'acheminement) as BAN writes them ("PARIS", "PARIS 16"). */
  acheminements: string[];
  /** House-number suffixes as BAN writes them ("", "b", "bis", "a" …). */
  suffixes: string[];
  streetCount: number;
  addressCount: number;
  hashBits: number;
  sections: Record<SectionName, SectionInfo>;
}

export const STREET_COLUMNS = {
  stCommune: "u16",
  stNameOff: "u32",
  stNameLen: "u16",
  stKeyOff: "u32",
  stKeyLen: "u16",
  stTypeLen: "u8",
  stPhonOff: "u32",
  stPhonLen: "u16",
  stAfnorOff: "u32",
  stAfnorLen: "u16",
  stMask: "u32",
  stAddrStart: "u32",
  stAddrCount: "u32",
  stPostcode: "u16",
  stNextKey: "u32",
  stNextName: "u32",
  stNextAfnor: "u32",
  stNextPhon: "u32",
  /** Street numbers of each commune's range ordered by name length: a fuzzy scan reads only plausible lengths. */
  stLenOrder: "u32",
} as const satisfies Record<string, SectionType>;

export const ADDRESS_COLUMNS = {
  adNumber: "u32",
  adSuffix: "u8",
  adPostcode: "u16",
  adAchem: "u16",
  /** Degrees × 1e6 (BAN publishes 6 decimals, so this is exact). */
  adLat: "i32",
  adLon: "i32",
} as const satisfies Record<string, SectionType>;

export const HASH_TABLES = { hashKey: "u32", hashName: "u32", hashAfnor: "u32", hashPhon: "u32" } as const satisfies Record<string, SectionType>;

export type SectionName = keyof typeof STREET_COLUMNS | keyof typeof ADDRESS_COLUMNS | keyof typeof HASH_TABLES | "blob";

export const BYTES: Readonly<Record<SectionType, number>> = { u8: 1, u16: 2, u32: 4, i32: 4 };

/** FNV-1a over bytes: the same on both sides (import and query), no string is created for lookups. Three positional
 *  arguments on purpose: it runs per lookup and per street scanned, where an options object would be garbage. */
export function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) {
    h ^= bytes[i]!;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Bit per letter a–z present (bit 26 for digits): a cheap lower bound on the edit distance of two names. */
export function letterMask(bytes: Uint8Array, start: number, end: number): number {
  let m = 0;
  for (let i = start; i < end; i++) {
    const c = bytes[i]!;
    if (c >= 97 && c <= 122) m |= 1 << (c - 97);
    else if (c >= 48 && c <= 57) m |= 1 << 26;
  }
  return m >>> 0;
}

/** ASCII bytes of a match key (keys are ASCII by construction). */
export function asciiBytes(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i) & 0x7f;
  return out;
}

/** File name of a département's index. */
export function indexFileName(departement: string): string {
  return `ban-${departement.toUpperCase()}.idx`;
}
