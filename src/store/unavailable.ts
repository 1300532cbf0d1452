// Which database failures mean "unreachable right now" (a 503 with Retry-After) rather than a fault of ours.
const UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOENT",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  // The database's host name does not resolve (yet): its container or service is not up.
  "ENOTFOUND",
  "EAI_AGAIN",
  // postgres.js
  "CONNECT_TIMEOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  // Ours: a connection that stopped answering (answer_watchdog.ts), a database not reached or migrated yet (db.ts).
  "DATABASE_TIMEOUT",
  "DATABASE_NOT_READY",
  // PostgreSQL: admin shutdown, crash shutdown, cannot connect now, too many connections, statement timeout
  "57P01",
  "57P02",
  "57P03",
  "53300",
  "57014",
  // PostgreSQL (and PGlite): disk full. Nothing was written; the call can be made again once space is freed, and
  // the database says so once (disk_full.ts), not every call.
  "53100",
]);

export function isDatabaseUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && UNAVAILABLE_CODES.has(code);
}

/** Thrown for a call that needs the database while it is not usable yet (not reached, or migrating). */
export class DatabaseNotReadyError extends Error {
  readonly code = "DATABASE_NOT_READY";
  constructor(reason: string) {
    super(`Cannot use the database: ${reason}`);
    this.name = "DatabaseNotReadyError";
  }
}
