// Keys are read on every call: a short cache keeps the database out of the hot path, and its 4-second life is what
// bounds how long a revoked key still works in any process (docs/contract.md §2: within 5 seconds).
import { LRUCache } from "lru-cache";
import type { Sql } from "../store/db.ts";
import { findKey, type KeyRecord } from "./key_store.ts";

export const KEY_CACHE_TTL_MS = 4000;

export interface KeyResolver {
  resolve(key: string): Promise<KeyRecord | undefined>;
}

export function createKeyCache(sql: Sql, options: { ttlMs?: number; max?: number } = {}): KeyResolver {
  const { ttlMs = KEY_CACHE_TTL_MS, max = 10_000 } = options;
  // Unknown keys are cached too (as null), so that garbage keys cannot turn into one query each.
  const cache = new LRUCache<string, { record: KeyRecord | null }>({ max, ttl: ttlMs });
  const pending = new Map<string, Promise<KeyRecord | undefined>>();
  return {
    async resolve(key) {
      const hit = cache.get(key);
      if (hit) return hit.record ?? undefined;
      let lookup = pending.get(key);
      if (!lookup) {
        lookup = findKey(sql, key).finally(() => pending.delete(key));
        pending.set(key, lookup);
        const record = await lookup;
        cache.set(key, { record: record ?? null });
        return record;
      }
      return lookup;
    },
  };
}
