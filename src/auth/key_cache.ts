// Keys are read on every call: a short cache keeps the database out of the hot path, and its 4-second life is what
// bounds how long a revoked key still works in any process (docs/contract.md §2: within 5 seconds).
import { LRUCache } from "lru-cache";
import type { Sql } from "../store/db.ts";
import { createKeyDirectory } from "./key_directory.ts";
import { findKey, type KeyRecord } from "./key_store.ts";

export const KEY_CACHE_TTL_MS = 4000;
/**
 * How long a key stays known as valid after its last lookup found it (unrevoked). Known keys pass the failed-
 * authentication limit of their address (http/guard.ts) without even a hash: a client sharing an address with a key
 * guesser (NAT) keeps working. It only lets a key be looked up: revocation still takes effect within KEY_CACHE_TTL_MS.
 */
export const KNOWN_VALID_TTL_MS = 10 * 60_000;

export interface KeyResolver {
  resolve(key: string): Promise<KeyRecord | undefined>;
  /**
   * Whether `key` may verify: known valid, or its hash is an unrevoked key's (auth/key_directory.ts: a hash and a set
   * lookup, no query per key). False for every guess; true does not admit, it only lets the key be looked up.
   */
  mayBeValid(key: string): Promise<boolean>;
}

export function createKeyCache(sql: Sql, options: { ttlMs?: number; max?: number } = {}): KeyResolver {
  const { ttlMs = KEY_CACHE_TTL_MS, max = 10_000 } = options;
  // Unknown keys are cached too (as null), so that garbage keys cannot turn into one query each.
  const cache = new LRUCache<string, { record: KeyRecord | null }>({ max, ttl: ttlMs });
  const pending = new Map<string, Promise<KeyRecord | undefined>>();
  const valid = new LRUCache<string, true>({ max, ttl: KNOWN_VALID_TTL_MS });
  const directory = createKeyDirectory(sql);
  return {
    mayBeValid: async (key) => valid.has(key) || directory.mayExist(key),
    async resolve(key) {
      const hit = cache.get(key);
      if (hit) return hit.record ?? undefined;
      let lookup = pending.get(key);
      if (!lookup) {
        lookup = findKey(sql, key).finally(() => pending.delete(key));
        pending.set(key, lookup);
        const record = await lookup;
        cache.set(key, { record: record ?? null });
        if (record && !record.revokedAt) valid.set(key, true);
        else valid.delete(key);
        return record;
      }
      return lookup;
    },
  };
}
