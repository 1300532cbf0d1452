// Optimal-string-alignment distance (Levenshtein plus adjacent transposition: "Rivlio" is one slip from "Rivoli"),
// bounded: it gives up as soon as the distance must exceed `max`, which keeps a scan over a commune's streets cheap.
// Works on bytes so that names are compared in place in the shared index, without creating strings.

const rows = { prev2: new Int32Array(256), prev: new Int32Array(256), cur: new Int32Array(256) };

/** Distance between a[aStart..aEnd) and b[bStart..bEnd), or max + 1 when it is larger than max. Only the diagonal
 *  band |i - j| <= max is computed: cells outside it cannot lead to a distance within the bound. */
export function boundedDistance(
  a: Uint8Array,
  b: Uint8Array,
  range: { aStart: number; aEnd: number; bStart: number; bEnd: number; max: number },
): number {
  const { aStart, aEnd, bStart, bEnd, max } = range;
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
    const lo = i - max > 1 ? i - max : 1;
    const hi = i + max < m ? i + max : m;
    cur[0] = i <= max ? i : BIG;
    if (lo > 1) cur[lo - 1] = BIG;
    let rowMin = cur[0]!;
    const ai = a[aStart + i - 1]!;
    for (let j = lo; j <= hi; j++) {
      const bj = b[bStart + j - 1]!;
      let v = prev[j - 1]! + (ai === bj ? 0 : 1);
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

/** Same distance over two strings (city names, tests). */
export function stringDistance(a: string, b: string, max: number): number {
  const ab = Buffer.from(a, "latin1");
  const bb = Buffer.from(b, "latin1");
  return boundedDistance(ab, bb, { aStart: 0, aEnd: ab.length, bStart: 0, bEnd: bb.length, max });
}

/** How many edits a name of this length may carry and still be recognised: "a handful", fewer on short names. */
export function maxEdits(length: number): number {
  // Measured on the Paris evaluation set: looser bounds on short names turned invented names into false
  // corrections ("Rue de Boilly" → "Rue Boulay") without catching more real typos.
  if (length < 4) return 0;
  if (length < 8) return 1;
  if (length < 13) return 2;
  if (length < 19) return 3;
  return 4;
}
