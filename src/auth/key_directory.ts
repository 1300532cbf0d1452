// Which keys exist, in memory: the hashes of every unrevoked key, read from the database as a whole, at most once a
// second and only when asked about a key it does not hold. It lets the guard tell a key that may verify from a guess
// without a query per key: while a flood of guessed keys comes from an address (a shared NAT, a corporate proxy), a
// valid key from that same address is still looked up and answered, and each guess costs a hash and a set lookup.
// Holding a hash here proves nothing: the key is then looked up and compared as any other (auth/key_store.ts).
import type { Sql } from "../store/db.ts";
import { hashApiKey, parseApiKey } from "./api_key.ts";

/** A key created since the last read is seen at the next one: at most this long after it was first refused. */
export const KEY_DIRECTORY_REFRESH_MS = 1000;

export interface KeyDirectory {
  /** Whether `key` is well-formed and its hash is one of an unrevoked key's; rejects only when never read yet. */
  mayExist(key: string): Promise<boolean>;
}

/** The first 16 bytes of the hash: enough to tell keys apart in a set (a match is checked in full by the lookup). */
function entryOf(hash: Buffer): string {
  return hash.toString("base64", 0, 16);
}

export function createKeyDirectory(sql: Sql, options: { refreshMs?: number; now?: () => number } = {}): KeyDirectory {
  const { refreshMs = KEY_DIRECTORY_REFRESH_MS, now = Date.now } = options;
  let hashes: Set<string> | undefined;
  let readAt = Number.NEGATIVE_INFINITY;
  let reading: Promise<void> | undefined;

  function read(): Promise<void> {
    readAt = now();
    reading ??= (async () => {
      try {
        const rows = await sql<{ hash: Uint8Array }[]>`select hash from api_keys where revoked_at is null`;
        hashes = new Set(rows.map((row) => entryOf(Buffer.from(row.hash))));
      } finally {
        reading = undefined;
      }
    })();
    return reading;
  }

  return {
    async mayExist(key) {
      if (parseApiKey(key) === undefined) return false;
      const entry = entryOf(hashApiKey(key));
      if (hashes?.has(entry)) return true;
      if (reading) await reading.catch(() => {});
      else if (now() - readAt >= refreshMs) {
        // A failed read leaves the last set in place; only a directory never read has nothing to answer with.
        await read().catch((error) => {
          if (hashes === undefined) throw error;
        });
      }
      return hashes?.has(entry) ?? false;
    },
  };
}
