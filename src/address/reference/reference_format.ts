// Layout of the packed nationwide reference (pack_reference.ts writes it, reference.ts reads it), a packed file
// (../packed_file.ts: magic, header JSON, 8-byte aligned sections): the commune, postcode and city-name lookups as
// typed arrays in one SharedArrayBuffer, so that every worker thread reads the same bytes instead of building its own
// Maps (about 44 MB of heap per thread when it did).
//
// Communes and postcodes are numbers (codeNumber()), kept sorted so that a lookup is a binary search; lists hang off
// them CSR-style (`xStart[i]..xStart[i + 1]` in a flat list); strings live in one UTF-8 blob.

import type { PackedFormat, PackedHeader, SectionType } from "../packed_file.ts";

export const REFERENCE_MAGIC = "VRAIREF1";
export const REFERENCE_VERSION = 1;

/** What compile.ts reads out of the npm data packages and pack_reference.ts packs. */
export interface ReferenceTables {
  /** "postcode|insee|delivery name|city key" lines (35,684 in 2025). */
  pairs: string;
  /** "insee|name|parent|city key" lines: current communes and municipal arrondissements (parent = their commune). */
  communes: string;
  /** "insee|name|parent|city key" lines: delegated and associated former communes (parent = the current commune).
   *  City keys are computed here once, not in every worker. A line with no name (nor key) is a code a current
   *  commune had before a merger, which only maps BAN rows. */
  formers: string;
}

export const REFERENCE_SECTIONS = {
  /** Sorted codeNumber() of every INSEE code the tables name. */
  communeCode: "u32",
  /** Commune name (UTF-8) = blob[communeNameStart[i]..communeNameStart[i + 1]); empty when unknown. */
  communeNameStart: "u32",
  /** Commune index of the parent (a municipal arrondissement's commune), -1 for none. */
  communeParent: "i32",
  /** Arrondissements of a commune (commune indices), in the packages' order. */
  childStart: "u32",
  childList: "u32",
  /** Postcodes serving a commune (codeNumber()), in the packages' order. */
  postcodeOfStart: "u32",
  postcodeOfList: "u32",
  /** Sorted codeNumber() of every postcode. */
  postcode: "u32",
  /** (commune, delivery name) pairs of a postcode, in the packages' order. */
  pairStart: "u32",
  pairCommune: "u32",
  pairAchem: "u32",
  /** Delivery name (UTF-8) = blob[achemStart[i]..achemStart[i + 1]). */
  achemStart: "u32",
  /** City key (ASCII) = blob[cityKeyStart[i]..cityKeyStart[i + 1]). */
  cityKeyStart: "u32",
  /** Open addressing over hashBytes() of the key: city key index + 1, 0 for an empty slot. */
  cityHash: "u32",
  /** Matches of a city key, best kind first: kind (CITY_KINDS) and communes. */
  cityMatchStart: "u32",
  matchKind: "u8",
  matchCommuneStart: "u32",
  matchCommune: "u32",
  blob: "u8",
} as const satisfies Record<string, SectionType>;

export type RefSectionName = keyof typeof REFERENCE_SECTIONS;

/** The header holds nothing but the version and the sections' places. */
export type ReferenceHeader = PackedHeader<typeof REFERENCE_SECTIONS>;

export const REFERENCE_FORMAT: PackedFormat<typeof REFERENCE_SECTIONS> = {
  magic: REFERENCE_MAGIC,
  version: REFERENCE_VERSION,
  sections: REFERENCE_SECTIONS,
  errors: {
    notThisFormat: "Cannot read address reference: not a packed reference",
    version: (found) => `Cannot read address reference: version ${found}, expected ${REFERENCE_VERSION}`,
  },
};

export const CITY_KINDS = ["name", "acheminement", "former"] as const;

const FIVE_DIGITS = /^\d{5}$/;
const CORSICA = /^2([AB])(\d{3})$/;

/**
 * A five-character INSEE code or postcode as a number: its digits ("75056" → 75056), Corsican codes above every
 * other ("2A004" → 100004, "2B033" → 101033). -1 for anything else (a postcode a user mistyped as "7500").
 */
export function codeNumber(code: string): number {
  if (FIVE_DIGITS.test(code)) return Number(code);
  const m = CORSICA.exec(code);
  if (m === null) return -1;
  return 100_000 + (m[1] === "A" ? 0 : 1000) + Number(m[2]);
}

/** codeNumber() back to the code. */
export function codeText(n: number): string {
  if (n < 100_000) return String(n).padStart(5, "0");
  const rest = n - 100_000;
  return `2${rest < 1000 ? "A" : "B"}${String(rest % 1000).padStart(3, "0")}`;
}

/** Position of `value` in a sorted array, or -1. */
export function sortedIndexOf(sorted: Uint32Array, value: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = sorted[mid]!;
    if (v === value) return mid;
    if (v < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** FNV-1a over the char codes of an ASCII key, equal to format.ts hashBytes() over its bytes, without creating them. */
export function hashKey(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i) & 0xff;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
