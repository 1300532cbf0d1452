// Edit distances, one module for the whole codebase. All three count the optimal-string-alignment distance:
// Levenshtein plus the transposition of two adjacent characters ("Rivlio" is one slip from "Rivoli", "gmial.com" one
// from "gmail.com"), each operation costing 1.
//
// - editDistance(): over two strings (UTF-16 code units), capped. The email typo check compares a domain with every
//   popular mailbox domain.
// - boundedDistance(): over two byte ranges, bounded, computing only the diagonal band that can stay within the
//   bound. The address matcher compares names in place in the shared street index, without creating strings.
//   stringDistance() is the same over two latin1 strings (city names, words of a street name).
//   slipDistance() counts only letters dropped, added and swapped (a letter replaced is two): the slips of a hand that
//   typed the right letters, not another name's.
// - withinOneEdit(): at most one edit apart, without any table: the normalisers' test for a misspelt street type or
//   ordinal word.
//
// Each distance keeps its rows in module state reused by every call (three rolling rows, the one before the last
// for transpositions): they run per popular domain and per street scanned, where allocating rows per call dominated
// their cost. Safe because each call is synchronous and uses them only while it runs.

let previous2 = new Int32Array(64);
let previous = new Int32Array(64);
let current = new Int32Array(64);

/** Optimal string alignment distance (Damerau-Levenshtein with adjacent transpositions), capped for speed: past
 *  `cap` (default 3) the answer is only "too far", some value above `cap`. */
export function editDistance(a: string, b: string, options: { cap?: number } = {}): number {
  const { cap = 3 } = options;
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  if (b.length + 1 > current.length) {
    previous2 = new Int32Array(b.length + 1);
    previous = new Int32Array(b.length + 1);
    current = new Int32Array(b.length + 1);
  }
  for (let j = 0; j <= b.length; j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (
        i > 1 &&
        j > 1 &&
        a.charCodeAt(i - 1) === b.charCodeAt(j - 2) &&
        a.charCodeAt(i - 2) === b.charCodeAt(j - 1)
      ) {
        d = Math.min(d, previous2[j - 2]! + 1);
      }
      current[j] = d;
      if (d < rowMin) rowMin = d;
    }
    // Every later row is at least this row's minimum: past the cap, the answer is only "too far".
    if (rowMin > cap) return cap + 1;
    [previous2, previous, current] = [previous, current, previous2];
  }
  return previous[b.length]!;
}

const rows = { prev2: new Int32Array(256), prev: new Int32Array(256), cur: new Int32Array(256) };

/** Distance between a[aStart..aEnd) and b[bStart..bEnd), or max + 1 when it is larger than max. Only the diagonal
 *  band |i - j| <= max is computed: cells outside it cannot lead to a distance within the bound. `substitution` is
 *  what replacing one character costs (1; 2 counts only letters dropped, added or swapped, as slipDistance does). */
export function boundedDistance(
  a: Uint8Array,
  b: Uint8Array,
  range: { aStart: number; aEnd: number; bStart: number; bEnd: number; max: number; substitution?: number },
): number {
  const { aStart, aEnd, bStart, bEnd, max, substitution = 1 } = range;
  const n = aEnd - aStart;
  const m = bEnd - bStart;
  if (Math.abs(n - m) > max) return max + 1;
  if (n === 0) return m;
  if (m === 0) return n;
  if (m + 2 > rows.cur.length) {
    rows.prev2 = new Int32Array(m + 2);
    rows.prev = new Int32Array(m + 2);
    rows.cur = new Int32Array(m + 2);
  }
  const BIG = max + 1;
  let { prev2, prev, cur } = rows;
  for (let j = 0; j <= m; j++) prev[j] = j <= max ? j : BIG;
  prev2.fill(BIG, 0, m + 1);
  for (let i = 1; i <= n; i++) {
    const lo = Math.max(i - max, 1);
    const hi = Math.min(i + max, m);
    cur[0] = i <= max ? i : BIG;
    if (lo > 1) cur[lo - 1] = BIG;
    let rowMin = cur[0]!;
    const ai = a[aStart + i - 1]!;
    for (let j = lo; j <= hi; j++) {
      const bj = b[bStart + j - 1]!;
      let v = prev[j - 1]! + (ai === bj ? 0 : substitution);
      const del = prev[j]! + 1;
      if (del < v) v = del;
      const ins = cur[j - 1]! + 1;
      if (ins < v) v = ins;
      if (i > 1 && j > 1 && ai === b[bStart + j - 2] && a[aStart + i - 2] === bj) {
        const t = prev2[j - 2]! + 1;
        if (t < v) v = t;
      }
      if (v > BIG) v = BIG;
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (hi < m) cur[hi + 1] = BIG;
    if (rowMin > max) return BIG;
    const tmp = prev2;
    prev2 = prev;
    prev = cur;
    cur = tmp;
  }
  rows.prev2 = prev2;
  rows.prev = prev;
  rows.cur = cur;
  const d = prev[m]!;
  return d > max ? BIG : d;
}

// stringDistance() runs per word of a query against every article and city name: encoding into these reused
// buffers rather than into two new Buffers a call cut its cost to a third (the same reasoning as the rows above).
let latinA = new Uint8Array(64);
let latinB = new Uint8Array(64);

/** The latin1 bytes of `text` at the start of `into`, or of a larger buffer when it does not fit. */
function latin1Into(text: string, into: Uint8Array<ArrayBuffer>): Uint8Array<ArrayBuffer> {
  const bytes = into.length >= text.length ? into : new Uint8Array(text.length * 2);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

/** boundedDistance() over two latin1 strings (city names, words of a street name, tests). */
export function stringDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  latinA = latin1Into(a, latinA);
  latinB = latin1Into(b, latinB);
  return boundedDistance(latinA, latinB, { aStart: 0, aEnd: a.length, bStart: 0, bEnd: b.length, max });
}

/** boundedDistance() with a replaced letter counted as two edits (one dropped, one added): letters left out ("Hles"
 *  for Halles), typed twice or swapped are one edit each, as in the distance, and another letter typed for one is
 *  not a slip of this kind. */
export function slipDistance(
  a: Uint8Array,
  b: Uint8Array,
  range: { aStart: number; aEnd: number; bStart: number; bEnd: number; max: number },
): number {
  return boundedDistance(a, b, { ...range, substitution: 2 });
}

/** True when a and b are at most one substitution, insertion, deletion or adjacent transposition apart: the cheap
 *  test the normalisers use before the matcher's full distance is ever needed. */
export function withinOneEdit(a: string, b: string): boolean {
  if (a === b) return true;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const ra = a.slice(i);
  const rb = b.slice(i);
  if (ra.slice(1) === rb.slice(1) || ra.slice(1) === rb || ra === rb.slice(1)) return true;
  return ra.length >= 2 && ra[0] === rb[1] && ra[1] === rb[0] && ra.slice(2) === rb.slice(2);
}
