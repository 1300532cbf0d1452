// House number against BAN (docs/contract.md §4): listed → fine; outside the street's listed range, or a suffix the number
// does not have → out of range; inside the range but unlisted → fine, coordinates interpolated between the nearest
// listed numbers of the same side of the street (same parity), or null.
import type { BanIndex } from "../index/ban_index.ts";

const ORDINAL_WORDS = new Set(["bis", "ter", "quater", "quinquies", "sexies"]);

export type NumberStatus = "listed" | "in_range" | "out_of_range";

export interface NumberCheck {
  status: NumberStatus;
  /** Address row when listed. */
  row: number | null;
  /** Suffix to print ("bis", "A") or null. */
  suffix: string | null;
  latitude: number | null;
  longitude: number | null;
}

/** The letters BAN reads as words (adresses-util rewriteSuffixes): b, t, q only. Every other letter stays a letter,
 *  c and s included ("1C Rue Neuve" is 1 C, never "1 quinquies": a letter stays a letter). */
const WORD_LETTERS: Readonly<Record<string, string>> = Object.assign(Object.create(null) as Record<string, string>, {
  b: "bis",
  t: "ter",
  q: "quater",
});

/** BAN rule (adresses-util rewriteSuffixes): b/t/q read as bis/ter/quater only when every suffix of that number
 *  in the street is one of those letters; otherwise they are letters (1, 1a, 1b). */
function displaySuffix(index: BanIndex, at: { rows: [number, number]; row: number }): string | null {
  const { rows, row } = at;
  const rep = index.header.suffixes[index.ad.adSuffix[row]!]!;
  if (rep === "") return null;
  if (rep.length > 1) return rep.toLowerCase();
  let allOrdinal = true;
  for (let r = rows[0]; r < rows[1]; r++) {
    const other = index.header.suffixes[index.ad.adSuffix[r]!]!;
    if (other !== "" && !(other.length === 1 && WORD_LETTERS[other] !== undefined) && !ORDINAL_WORDS.has(other)) {
      allOrdinal = false;
    }
  }
  return allOrdinal && WORD_LETTERS[rep] ? WORD_LETTERS[rep]! : rep.toUpperCase();
}

function interpolate(
  index: BanIndex,
  at: { street: number; num: number },
): { latitude: number | null; longitude: number | null } {
  const { street, num } = at;
  const { adNumber, adLat, adLon } = index.ad;
  const start = index.st.stAddrStart[street]!;
  const end = start + index.st.stAddrCount[street]!;
  let lo = -1;
  let hi = -1;
  for (let r = start; r < end; r++) {
    const n = adNumber[r]!;
    if ((n & 1) !== (num & 1)) continue;
    if (n < num) lo = r;
    else if (n > num) {
      hi = r;
      break;
    }
  }
  if (lo < 0 || hi < 0) return { latitude: null, longitude: null };
  const f = (num - adNumber[lo]!) / (adNumber[hi]! - adNumber[lo]!);
  const lat = adLat[lo]! + (adLat[hi]! - adLat[lo]!) * f;
  const lon = adLon[lo]! + (adLon[hi]! - adLon[lo]!) * f;
  return { latitude: Math.round(lat) / 1e6, longitude: Math.round(lon) / 1e6 };
}

/** Checks a number (and canonical suffix, "b" for bis) against a street's listed addresses. */
export interface NumberQuery {
  street: number;
  number: number;
  /** Canonical suffix ("b" for bis), null without one. */
  suffix: string | null;
}

export function checkHouseNumber(index: BanIndex, query: NumberQuery): NumberCheck {
  const { street, number: num, suffix } = query;
  const rows = index.numberRange(street, num);
  const wanted = suffix ?? "";
  for (let r = rows[0]; r < rows[1]; r++) {
    if (index.suffixCanon[index.ad.adSuffix[r]!] === wanted) {
      return {
        status: "listed",
        row: r,
        suffix: displaySuffix(index, { rows, row: r }),
        latitude: index.ad.adLat[r]! / 1e6,
        longitude: index.ad.adLon[r]! / 1e6,
      };
    }
  }
  if (rows[1] > rows[0]) {
    // The number exists but not with this suffix (or exists only with suffixes when none was given: then the plain
    // number is a building of its own that BAN does not list; the suffixed ones prove the number is real).
    if (suffix !== null) return { status: "out_of_range", row: null, suffix: null, latitude: null, longitude: null };
    const r = rows[0];
    return {
      status: "in_range",
      row: null,
      suffix: null,
      latitude: index.ad.adLat[r]! / 1e6,
      longitude: index.ad.adLon[r]! / 1e6,
    };
  }
  const start = index.st.stAddrStart[street]!;
  const count = index.st.stAddrCount[street]!;
  if (count === 0) return { status: "in_range", row: null, suffix: null, latitude: null, longitude: null };
  const min = index.ad.adNumber[start]!;
  const max = index.ad.adNumber[start + count - 1]!;
  if (num < min || num > max)
    return { status: "out_of_range", row: null, suffix: null, latitude: null, longitude: null };
  return {
    status: "in_range",
    row: null,
    suffix: suffix === null ? null : (WORD_LETTERS[suffix] ?? suffix.toUpperCase()),
    ...interpolate(index, { street, num }),
  };
}
