// Makes sure the configured départements are indexed (importing what is missing from BAN_SOURCE) and reads every
// index file of the directory into shared memory, once per process.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { OFFICIAL_BAN_SOURCE } from "../config.ts";
import type { Logger } from "../log.ts";
import { BanIndex } from "./index/ban_index.ts";
import { indexFileName } from "./index/format.ts";
import { importBan } from "./index/import.ts";
import { readPackedFile } from "./packed_file.ts";

export interface LoadedIndexes {
  buffers: SharedArrayBuffer[];
  departements: string[];
  /** Configured départements that could not be indexed (offline, missing file). */
  missing: string[];
}

/** What makes a missing département answer again: said in the startup warning and in /readyz. */
export const MISSING_INDEX_FIX =
  `download adresses-XX.csv.gz from ${OFFICIAL_BAN_SOURCE}/ and start with BAN_SOURCE=DIR (the directory that ` +
  "holds them), or run npm run ban -- import PATH, then restart";

function usable(path: string): boolean {
  if (!existsSync(path)) return false;
  try {
    new BanIndex(readPackedFile(path));
    return true;
  } catch {
    return false;
  }
}

export interface EnsureIndexOptions {
  departements: readonly string[];
  banSource: string;
  indexDir: string;
  log: Logger;
}

export async function ensureIndexes(options: EnsureIndexOptions): Promise<LoadedIndexes> {
  const { departements, banSource, indexDir, log } = options;
  const missing: string[] = [];
  const failures: string[] = [];
  for (const d of departements) {
    const path = join(indexDir, indexFileName(d));
    if (usable(path)) continue;
    try {
      const onWarning = (message: string) => log.warn(message, { departement: d });
      for (const r of await importBan(d, { banSource, indexDir, onWarning })) {
        log.info("address index imported", {
          departement: r.departement,
          rows: r.rows,
          bytes: r.bytes,
          ms: r.ms,
          remapped_rows: r.remappedRows,
        });
      }
    } catch (err) {
      missing.push(d.toUpperCase());
      failures.push(`${d}: ${(err as Error).message}`);
    }
  }
  if (missing.length > 0) {
    // One warning for all of them, with the fix: the service is ready all the same and answers
    // unknown/postcode_not_covered there (/readyz shows them as missing).
    log.warn(
      `address index missing: addresses there answer unknown (postcode_not_covered); to fix: ${MISSING_INDEX_FIX}`,
      {
        departements: missing,
        ban_source: banSource,
        errors: failures,
        fix: MISSING_INDEX_FIX,
      },
    );
  }
  const buffers: SharedArrayBuffer[] = [];
  const loaded: string[] = [];
  const files = existsSync(indexDir)
    ? readdirSync(indexDir)
        .filter((f) => /^ban-[0-9AB]{2,3}\.idx$/.test(f))
        .sort()
    : [];
  for (const f of files) {
    try {
      const buffer = readPackedFile(join(indexDir, f));
      const index = new BanIndex(buffer);
      buffers.push(buffer);
      loaded.push(index.departement);
    } catch (err) {
      log.warn("address index unreadable, skipped", { file: f, error: (err as Error).message });
    }
  }
  return { buffers, departements: loaded, missing };
}
