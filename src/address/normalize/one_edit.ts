// "One slip apart": the cheap test the normalisers use to recognise a misspelt street type or ordinal word, before
// the matcher's full edit distance is ever needed.

/** True when a and b are at most one substitution, insertion, deletion or adjacent transposition apart. */
export function withinOneEdit(a: string, b: string): boolean {
  if (a === b) return true;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const ra = a.slice(i);
  const rb = b.slice(i);
  if (ra.slice(1) === rb.slice(1) || ra.slice(1) === rb || ra === rb.slice(1)) return true;
  return ra.length >= 2 && ra[0] === rb[1] && ra[1] === rb[0] && ra.slice(2) === rb.slice(2);
}
