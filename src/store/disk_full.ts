// A full disk under the database, as the service sees it (docs/decisions.md "Storage", a full disk). An episode begins
// with the first write refused for lack of space (SQLSTATE 53100 disk_full: PostgreSQL's "could not extend file",
// PGlite's "could not write to file … No space left on device") and ends when a probe finds room again: one warning
// when it begins, one info line when it ends, never one per call. Meanwhile calls that write answer 503
// service-unavailable with Retry-After (http/app.ts) and /readyz shows `reason` as `checks.database`.
import type postgres from "postgres";
import type { Logger } from "../log.ts";
import { deadline, untilAborted } from "../async/deadline.ts";

/** SQLSTATE disk_full: every "No space left on device" PostgreSQL (and so PGlite) reports. */
export const DISK_FULL_SQLSTATE = "53100";

/** A call refused for lack of space is worth retrying only once someone has freed some: not within seconds. */
export const DISK_FULL_RETRY_AFTER_S = 30;

/** True for a database error that says the disk is full (SQLSTATE 53100). */
export function isDiskFull(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === DISK_FULL_SQLSTATE;
}

/**
 * Whether the database can write and flush now: one row of schema_migrations is rewritten with its own value (a
 * tiny real write, so its commit waits for the WAL to reach the disk; a bare `txid_current()` commits without
 * waiting and proves nothing). Bounded by `timeoutMs`: a database that does not answer cannot write either.
 */
export async function canWrite(sql: postgres.Sql, timeoutMs = 2000): Promise<boolean> {
  const limit = deadline(timeoutMs, { what: "probe the database with a write" });
  try {
    const write = sql`
      update schema_migrations set applied_at = applied_at
      where name = (select min(name) from schema_migrations)`.then(() => true);
    return (await untilAborted(write, limit.signal)) === true;
  } finally {
    limit.dispose();
  }
}

export interface DiskFullWatchOptions {
  /** Where the space ran out, as the reason says it: "under STATE_DIR", "on the PostgreSQL server". */
  where: string;
  /** Resolves true once writes can be made again; false (or a rejection) means not yet. */
  probe: () => Promise<boolean>;
  log: Logger;
  /** Time between two probes while the disk is full. Default 1000. */
  intervalMs?: number;
}

/** Knows whether the database's disk is full now, says so once, and finds out by itself when it no longer is. */
export class DiskFullWatch {
  readonly #where: string;
  readonly #probe: () => Promise<boolean>;
  readonly #log: Logger;
  readonly #intervalMs: number;
  #cause: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: DiskFullWatchOptions) {
    const { where, probe, log, intervalMs = 1000 } = options;
    if (!Number.isInteger(intervalMs) || intervalMs < 1) {
      throw new RangeError(`Cannot watch the disk: intervalMs must be a positive integer, got ${intervalMs}`);
    }
    this.#where = where;
    this.#probe = probe;
    this.#log = log;
    this.#intervalMs = intervalMs;
  }

  /** "disk full under STATE_DIR: <the database's message>" while an episode lasts; undefined otherwise. */
  get reason(): string | undefined {
    return this.#cause === undefined ? undefined : `disk full ${this.#where}: ${this.#cause}`;
  }

  /** A write failed for lack of space: begins an episode (logged once), or does nothing when one is under way. */
  report(cause: string): void {
    if (this.#closed || this.#cause !== undefined) return;
    this.#cause = cause;
    this.#log.warn("database disk full", {
      where: this.#where,
      cause,
      effect: "calls that write answer 503 service-unavailable until space is freed",
    });
    this.#schedule();
  }

  /** Reports `error` when it says the disk is full, and then returns the episode's reason; undefined otherwise. */
  noteError(error: unknown): string | undefined {
    if (!isDiskFull(error)) return undefined;
    this.report(error instanceof Error ? error.message : String(error));
    return this.reason;
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
  }

  #schedule(): void {
    this.#timer = setTimeout(() => void this.#check(), this.#intervalMs);
    this.#timer.unref();
  }

  async #check(): Promise<void> {
    let room = false;
    try {
      room = await this.#probe();
    } catch {
      // Not yet: the next probe says.
    }
    if (this.#closed) return;
    if (!room) return this.#schedule();
    this.#log.info("database disk space is back", { where: this.#where, was: this.#cause });
    this.#cause = undefined;
  }
}
