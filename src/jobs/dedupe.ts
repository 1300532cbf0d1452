// Deduplication of a bulk submission (DECISIONS §6): two items are the same address when they match once trimmed and
// lower-cased; the first spelling (trimmed) is kept, in submission order.

/** `[" A@x.fr", "a@X.fr", "b@x.fr"]` -> `["A@x.fr", "b@x.fr"]`. */
export function dedupeEmails(items: readonly string[]): string[] {
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const item of items) {
    const trimmed = item.trim();
    const key = trimmed.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push(trimmed);
  }
  return kept;
}
