// Layout of one département's street index file (data/ban/ban-XX.idx), a packed file (../packed_file.ts: magic,
// header JSON, 8-byte aligned sections), read once into a SharedArrayBuffer that every worker thread views in place.
// Strings (display names, match keys) live in one byte blob; streets and addresses are columns (struct of arrays).
import type { PackedFormat, SectionPlace, SectionType } from "../packed_file.ts";

export const MAGIC = "VRAIBAN4";
// 5: numbers inside street names are spelled out in the match keys (normalize/number_words.ts), and streets carry
// alternative names (ALT_COLUMNS). 6: the halves of a name joined by "et" are alternative names too
// (compound_names.ts). 7: so are the two names of a street written with a spaced dash ("Place de Fontenoy - Unesco").
// Older files are imported again.
// 8: streets carry their BAN id (the ids of their addresses are made from it).
// 9: the streets of each former commune of a commune nouvelle are apart (BAN's code_insee_ancienne_commune), and rows
// under codes the packages list only among a commune's former codes are the current commune's.
export const FORMAT_VERSION = 9;
/** End of a hash chain. */
export const NIL = 0xffffffff;

export interface CommuneEntry {
  /** INSEE code as BAN writes it (arrondissement codes for Paris, Lyon, Marseille). */
  code: string;
  firstStreet: number;
  streetCount: number;
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
  /** The street's BAN id in the blob (`75101_cfq3tf`), empty when the source had none. */
  stBanIdOff: "u32",
  stBanIdLen: "u8",
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

/** Alternative names of streets (BAN `alias`, and the lieu-dit of their addresses, `nom_ld` or
 *  `lieudit_complement_nom`): one row per (street, name), found exactly through hashAlt (lieux-dits named beside a street). */
export const ALT_COLUMNS = {
  altStreet: "u32",
  altKeyOff: "u32",
  altKeyLen: "u16",
  altNext: "u32",
} as const satisfies Record<string, SectionType>;

export const HASH_TABLES = {
  hashKey: "u32",
  hashName: "u32",
  hashAfnor: "u32",
  hashPhon: "u32",
  hashAlt: "u32",
} as const satisfies Record<string, SectionType>;

/** Every section in file order: the street columns, the address columns, the alternative names, the hash tables, then
 *  the string blob. */
export const INDEX_SECTIONS = {
  ...STREET_COLUMNS,
  ...ADDRESS_COLUMNS,
  ...ALT_COLUMNS,
  ...HASH_TABLES,
  blob: "u8",
} as const satisfies Record<string, SectionType>;

export type SectionName = keyof typeof INDEX_SECTIONS;

export const INDEX_FORMAT: PackedFormat<typeof INDEX_SECTIONS> = {
  magic: MAGIC,
  version: FORMAT_VERSION,
  sections: INDEX_SECTIONS,
  errors: {
    notThisFormat: "Cannot read address index: not a vrai BAN index file",
    version: (found) => `Cannot read address index: format version ${found}, expected ${FORMAT_VERSION}`,
  },
};

export interface IndexHeader {
  version: number;
  /** MATCH_KEY_VERSION of the keys written (normalize/match_key.ts). */
  matchKeys: number;
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
  /** Each section's place, with its element type repeated (the file says what it holds without this code). */
  sections: Record<SectionName, SectionPlace & { type: SectionType }>;
}

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
