// Deduplication of a bulk submission (docs/contract.md §6): two items are the same address when they match once trimmed and
// lower-cased; the first spelling (trimmed) is kept, in submission order.

/** The key two items share when they are the same address: trimmed and lower-cased. */
export function dedupeKey(item: string): string {
  return item.trim().toLowerCase();
}

/** Indexes of the items kept, in submission order: `[" A@x.fr", "a@X.fr", "b@x.fr"]` -> `[0, 2]`. */
export function keptIndexes(items: readonly string[]): number[] {
  const seen = new Set<string>();
  const kept: number[] = [];
  for (let i = 0; i < items.length; i++) {
    const key = dedupeKey(items[i]!);
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push(i);
  }
  return kept;
}

/** `[" A@x.fr", "a@X.fr", "b@x.fr"]` -> `["A@x.fr", "b@x.fr"]`. */
export function dedupeEmails(items: readonly string[]): string[] {
  return keptIndexes(items).map((i) => items[i]!.trim());
}
