// How far a typed domain is from a mail domain, counted in the slips people make on a keyboard rather than in plain
// edits. A likely slip costs 1: a key beside the right one on an AZERTY or a QWERTY keyboard (gmaol → gmail,
// hotmail.fe → .fr), two letters swapped (gmial), a letter doubled (yahooo) or struck with its neighbour (gmaiul), a
// letter dropped (gmai), a comma for the dot (gmail,com), a dot dropped (gmailcom) or moved one place (gmailc.om).
// Any other edit costs 2: a letter replaced by one far from it on both keyboards, or one inserted out of nowhere.
// So two slips cost 2, and one unlikely edit costs as much as two likely ones.
//
// The same optimal-string-alignment table as text/edit_distance.ts, with these costs, rolling rows kept in module
// state (it runs once per target domain on every call) and an early exit past the cap.

/** Digit and letter rows of both layouts; each row sits half a key to the right of the one above it. */
const LAYOUTS: readonly (readonly string[])[] = [
  ["1234567890-", "qwertyuiop", "asdfghjkl", "zxcvbnm"],
  ["1234567890-", "azertyuiop", "qsdfghjklm", "wxcvbn"],
];

/** 1 where two ASCII characters sit side by side on either layout, at a * 128 + b: one array read per cell of the
 *  table, which runs for every target on every call. */
const NEIGHBOURS: Uint8Array = (() => {
  const table = new Uint8Array(128 * 128);
  const add = (a: string, b: string) => {
    table[a.charCodeAt(0) * 128 + b.charCodeAt(0)] = 1;
    table[b.charCodeAt(0) * 128 + a.charCodeAt(0)] = 1;
  };
  for (const rows of LAYOUTS) {
    rows.forEach((row, r) => {
      for (let c = 0; c < row.length; c++) {
        if (c + 1 < row.length) add(row[c]!, row[c + 1]!);
        // The row below is shifted right: the keys under c are c - 1 and c of that row.
        const below = rows[r + 1];
        if (below === undefined) continue;
        if (c - 1 >= 0 && c - 1 < below.length) add(row[c]!, below[c - 1]!);
        if (c < below.length) add(row[c]!, below[c]!);
      }
    });
  }
  // The comma sits beside the full stop on QWERTY and shares its key on AZERTY: gmail,com is one slip.
  add(",", ".");
  return table;
})();

function neighbours(a: number, b: number): boolean {
  return a < 128 && b < 128 && NEIGHBOURS[a * 128 + b] === 1;
}

/** True when the two characters are side by side on an AZERTY or a QWERTY keyboard. */
export function keyNeighbours(a: string, b: string): boolean {
  return neighbours(a.charCodeAt(0), b.charCodeAt(0));
}

/** Stands for "outside the band": farther than any cap. */
const FAR = 1 << 20;

let previous2 = new Int32Array(64);
let previous = new Int32Array(64);
let current = new Int32Array(64);
/** Cost of each character of `costsOf` when the meant domain lacks it. */
let extraCost = new Int32Array(64);
let costsOf = "";

// A character typed that the meant domain lacks costs 1 when it doubles or neighbours the character before or after
// it. The same for every target: worked out once per domain typed.
function fillExtraCosts(typed: string): void {
  for (let i = 0; i < typed.length; i++) {
    const c = typed.charCodeAt(i);
    const before = i > 0 ? typed.charCodeAt(i - 1) : -1;
    const after = i + 1 < typed.length ? typed.charCodeAt(i + 1) : -1;
    const likely = c === before || c === after || neighbours(c, before) || neighbours(c, after);
    extraCost[i] = likely ? 1 : 2;
  }
  costsOf = typed;
}

/**
 * Slips from `typed` to `meant` (lower-case), or `cap + 1` when more than `cap`. Pure for its caller; keeps rows in
 * module state (each call is synchronous).
 */
export function slipDistance(typed: string, meant: string, cap: number): number {
  if (Math.abs(typed.length - meant.length) > cap) return cap + 1;
  const size = Math.max(typed.length, meant.length) + 2;
  if (size > current.length) {
    previous2 = new Int32Array(size);
    previous = new Int32Array(size);
    current = new Int32Array(size);
    extraCost = new Int32Array(size);
    costsOf = "";
  }
  if (typed !== costsOf) fillExtraCosts(typed);
  // Rows run over `typed`, columns over `meant`. Column 0 of row i: every typed character so far was extra. Only the
  // band |i - j| <= cap is worked out: a cell outside it is more than `cap` characters added or dropped away.
  for (let j = 0; j <= meant.length; j++) previous[j] = j;
  let firstColumn = 0;
  for (let i = 1; i <= typed.length; i++) {
    const t = typed.charCodeAt(i - 1);
    const extra = extraCost[i - 1]!;
    firstColumn += extra;
    const lo = Math.max(1, i - cap);
    const hi = Math.min(meant.length, i + cap);
    current[lo - 1] = lo === 1 ? firstColumn : FAR;
    let rowMin = lo === 1 ? firstColumn : FAR;
    for (let j = lo; j <= hi; j++) {
      const m = meant.charCodeAt(j - 1);
      const substitution = t === m ? 0 : neighbours(t, m) ? 1 : 2;
      let d = Math.min(previous[j]! + extra, current[j - 1]! + 1, previous[j - 1]! + substitution);
      // Two neighbouring characters swapped (gmial).
      if (i > 1 && j > 1 && t !== m && t === meant.charCodeAt(j - 2) && typed.charCodeAt(i - 2) === m) {
        d = Math.min(d, previous2[j - 2]! + 1);
      }
      current[j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (hi < meant.length) current[hi + 1] = FAR;
    // Every later row is at least this row's minimum: past the cap, the answer is only "too far".
    if (rowMin > cap) return cap + 1;
    [previous2, previous, current] = [previous, current, previous2];
  }
  const result = previous[meant.length]!;
  return result > cap ? cap + 1 : result;
}
