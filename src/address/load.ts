// The street index files of BAN_INDEX_DIR (`ban-XX.idx`, one per département), read into shared memory. A file read
// before and unchanged since (same inode, size and modification time) keeps its buffer, so reading the directory
// again costs only what is new.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { OFFICIAL_BAN_SOURCE } from "../config.ts";
import type { Logger } from "../log.ts";
import { BanIndex } from "./index/ban_index.ts";
import { readPackedFile } from "./packed_file.ts";

/** What makes a missing département answer: said in the startup warning and in /readyz. */
export const MISSING_INDEX_FIX =
  `download adresses-XX.csv.gz from ${OFFICIAL_BAN_SOURCE}/ and start with BAN_SOURCE=DIR (the directory that ` +
  "holds them), or run npm run ban -- import PATH (the running server takes the new index up by itself)";

/** An index file's name; written under another name (`….tmp`) and renamed, so a file of this name is whole. */
export const INDEX_FILE = /^ban-[0-9AB]{2,3}\.idx$/;

export interface LoadedIndex {
  file: string;
  departement: string;
  addresses: number;
  buffer: SharedArrayBuffer;
  /** Inode, size and modification time when read: a file renamed over it changes it. */
  stamp: string;
}

export interface ReadIndexes {
  /** Every readable index of the directory, by file name, in name order. */
  indexes: Map<string, LoadedIndex>;
  /** Read for the first time or changed since `previous`. */
  added: LoadedIndex[];
  /** In `previous`, gone from the directory now. */
  removed: LoadedIndex[];
}

function stampOf(path: string): string | undefined {
  try {
    const s = statSync(path);
    return `${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch {
    return undefined;
  }
}

/** Reads every index file of `indexDir` into shared memory, reusing the buffers of `previous` that did not change. */
export function readIndexes(
  indexDir: string,
  previous: ReadonlyMap<string, LoadedIndex>,
  options: { log: Logger },
): ReadIndexes {
  const { log } = options;
  const files = existsSync(indexDir)
    ? readdirSync(indexDir)
        .filter((f) => INDEX_FILE.test(f))
        .sort()
    : [];
  const indexes = new Map<string, LoadedIndex>();
  const added: LoadedIndex[] = [];
  for (const file of files) {
    const path = join(indexDir, file);
    const stamp = stampOf(path);
    if (stamp === undefined) continue; // removed since the listing
    const known = previous.get(file);
    if (known?.stamp === stamp) {
      indexes.set(file, known);
      continue;
    }
    try {
      const buffer = readPackedFile(path);
      const index = new BanIndex(buffer);
      const loaded = {
        file,
        departement: index.departement.toUpperCase(),
        addresses: index.header.addressCount,
        buffer,
        stamp,
      };
      indexes.set(file, loaded);
      added.push(loaded);
    } catch (err) {
      log.warn("address index unreadable, skipped", { file, error: (err as Error).message });
    }
  }
  const removed = [...previous.values()].filter((p) => !indexes.has(p.file));
  return { indexes, added, removed };
}
