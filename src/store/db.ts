// One way to reach the database, whichever it is: postgres.js over TCP to a real PostgreSQL (DATABASE_URL), or over
// the Unix socket of the embedded PGlite worker (STATE_DIR). Every store module takes the `sql` this returns.
import postgres from "postgres";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Config } from "../config.ts";
import { createLogger, type Logger } from "../log.ts";
import { stateDirOwner } from "./state_dir_lock.ts";
import { migrate } from "./migrate.ts";
import { watchedSocketFactory } from "./answer_watchdog.ts";
import { DatabaseNotReadyError, isDatabaseUnavailable } from "./unavailable.ts";
import { sleep } from "../async/deadline.ts";
import { canWrite, DiskFullWatch } from "./disk_full.ts";
import { openEmbeddedDatabase } from "./embedded_database.ts";

export type Sql = postgres.Sql;
/** A connection pool or an open transaction: what a query can run on. */
export type Queryable = postgres.Sql | postgres.TransactionSql;

export interface Database {
  sql: Sql;
  kind: "embedded" | "postgres";
  close(): Promise<void>;
  /**
   * Why the database cannot be used now: "unreachable: …" for a PostgreSQL opened by `openDatabaseWhenReachable`
   * and not reached yet; for the embedded one, while its worker is started again after it stopped (a full disk:
   * then the disk-full reason). Undefined when it can be used.
   */
  readonly unready?: string;
  /** Settles once the database is usable (migrated); rejects on a failure that waiting cannot fix, or on close. */
  readonly ready?: Promise<void>;
  /**
   * "disk full under STATE_DIR: …" (or "on the PostgreSQL server") from the first write refused for lack of space
   * until a probe finds room again (disk_full.ts); undefined otherwise.
   */
  readonly diskFull?: string;
  /**
   * Tells the database that a call failed with `error`: a disk-full failure begins an episode (logged once). Returns
   * the episode's reason when there is one, so that the caller can say why it refuses.
   */
  noteFailure?(error: unknown): string | undefined;
}

export interface OpenDatabaseOptions {
  /** PostgreSQL only: keep every table in this schema (created when missing); tests isolate themselves this way. */
  schema?: string;
  /** Embedded only: when a live process owns STATE_DIR, use its database socket instead of failing (keys CLI). */
  joinRunning?: boolean;
  /** Connections in the pool (PostgreSQL). */
  max?: number;
  /**
   * Where the warning about STATE_DIR entries open to other users (embedded), and the disk-full episodes, go
   * (default: stderr).
   */
  log?: Logger;
  /**
   * PostgreSQL only (DB_QUERY_TIMEOUT_MS): bound on connecting, on each statement (statement_timeout) and, as the
   * backstop we own, on a connection that owes an answer and sends nothing (answer_watchdog.ts). Default 5000.
   */
  queryTimeoutMs?: number;
}

/** The backstop waits this much longer than statement_timeout, so that the server's own cancellation can arrive. */
const BACKSTOP_GRACE_MS = 1000;

const SOCKET_NAME = ".s.PGSQL.5432";

function stderrLogger(): Logger {
  return createLogger({ write: (line) => process.stderr.write(line) });
}

/**
 * A PostgreSQL's disk-full episodes: its server says 53100 (could not extend file, no space left for WAL or temporary
 * files). Calls report them (noteFailure); the episode ends when a small write commits again: we cannot see the
 * server's file system from here.
 */
function postgresDiskWatch(sql: Sql, log: Logger): DiskFullWatch {
  return new DiskFullWatch({ where: "on the PostgreSQL server", log, intervalMs: 2000, probe: () => canWrite(sql) });
}

function connectOptions(extra: postgres.Options<Record<string, never>>): postgres.Options<Record<string, never>> {
  return { onnotice: () => {}, idle_timeout: 30, connect_timeout: 5, ...extra };
}

/**
 * Options for a pool to a real PostgreSQL: every wait bounded (see OpenDatabaseOptions.queryTimeoutMs), and a short
 * reconnection backoff (postgres.js's own grows to 20 s per connection after an outage, which would hold calls long
 * after the database is back).
 */
function postgresOptions(
  url: string,
  queryTimeoutMs: number,
  extra: postgres.Options<Record<string, never>>,
): postgres.Options<Record<string, never>> {
  // postgres.js reads sslmode (or ssl) from the URL's query, which a multi-host URL keeps readable too.
  const params = new URLSearchParams(url.split("?")[1] ?? "");
  const sslmode = params.get("sslmode") ?? params.get("ssl");
  const tls = sslmode !== null && !["", "disable", "false"].includes(sslmode);
  return connectOptions({
    connect_timeout: queryTimeoutMs / 1000,
    backoff: (retries: number) => Math.min(2 ** retries / 100, 1),
    // TLS is upgraded by postgres.js over the raw socket: there only statement_timeout and connect_timeout hold.
    ...(tls ? {} : { socket: watchedSocketFactory(queryTimeoutMs + BACKSTOP_GRACE_MS) as never }),
    ...extra,
  });
}

export async function openDatabase(
  config: Pick<Config, "databaseUrl" | "stateDir">,
  options: OpenDatabaseOptions = {},
): Promise<Database> {
  if (config.databaseUrl) return openPostgres(config.databaseUrl, options);
  const database = await openEmbedded(resolve(config.stateDir), options);
  try {
    await migrate(database.sql);
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}

async function openPostgres(url: string, options: OpenDatabaseOptions): Promise<Database> {
  const { sql, prepare } = postgresPool(url, options);
  try {
    await prepare();
  } catch (error) {
    await sql.end({ timeout: 5 });
    throw error;
  }
  const watch = postgresDiskWatch(sql, options.log ?? stderrLogger());
  return {
    sql,
    kind: "postgres",
    get diskFull() {
      return watch.reason;
    },
    noteFailure: (error) => watch.noteError(error),
    close() {
      watch.close();
      return sql.end({ timeout: 5 });
    },
  };
}

/** A pool (it connects on its first query) and what makes the database usable: its schema, then its migrations. */
function postgresPool(url: string, options: OpenDatabaseOptions): { sql: Sql; prepare(): Promise<void> } {
  const { schema, max = 10, queryTimeoutMs = 5000 } = options;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema)) {
    throw new TypeError(`Cannot open database: schema "${schema}" is not a plain lower-case identifier`);
  }
  if (!Number.isInteger(queryTimeoutMs) || queryTimeoutMs < 1) {
    throw new RangeError(`Cannot open database: queryTimeoutMs must be a positive integer, got ${queryTimeoutMs}`);
  }
  const sql = postgres(
    url,
    postgresOptions(url, queryTimeoutMs, {
      max,
      // postgres.js queries take no AbortSignal: statement_timeout bounds each statement on the server, and the
      // answer watchdog bounds the wait when the server itself no longer answers.
      connection: { statement_timeout: queryTimeoutMs, ...(schema ? { search_path: schema } : {}) } as never,
    }),
  );
  async function prepare() {
    if (schema) {
      const admin = postgres(url, postgresOptions(url, queryTimeoutMs, { max: 1 }));
      try {
        await admin.unsafe(`create schema if not exists ${schema}`);
      } finally {
        await admin.end({ timeout: 1 });
      }
    }
    await migrate(sql);
  }
  return { sql, prepare };
}

export interface WhenReachableOptions extends OpenDatabaseOptions {
  log: Logger;
  /** Wait before the second attempt, doubled after each failure up to `maxRetryMs`. Defaults: 1 s, 30 s. */
  firstRetryMs?: number;
  maxRetryMs?: number;
}

/**
 * Like `openDatabase`, but a PostgreSQL that cannot be reached yet does not fail the start: the returned database is
 * `unready` (with the reason) and is tried again with a bounded backoff until it answers, then migrated, then `ready`
 * resolves. Failures that waiting cannot fix (a refused password, a failed migration) reject `ready`. The embedded
 * database opens as `openDatabase` does: failing to open it is a local fault.
 */
export async function openDatabaseWhenReachable(
  config: Pick<Config, "databaseUrl" | "stateDir">,
  options: WhenReachableOptions,
): Promise<Database> {
  // The embedded database is `ready` once open (its getters must stay live: no spread).
  if (!config.databaseUrl) return openDatabase(config, options);
  const { log, firstRetryMs = 1000, maxRetryMs = 30_000 } = options;
  const { sql, prepare } = postgresPool(config.databaseUrl, options);
  const closing = new AbortController();
  let unready: string | undefined = "unreachable: not connected yet";
  const ready = (async () => {
    for (let wait = firstRetryMs; ; wait = Math.min(wait * 2, maxRetryMs)) {
      try {
        await prepare();
        unready = undefined;
        return;
      } catch (error) {
        if (closing.signal.aborted || !isDatabaseUnavailable(error)) throw error;
        unready = `unreachable: ${error instanceof Error ? error.message : String(error)}`;
        log.warn("database unreachable, trying again", { reason: unready, retry_in_ms: wait });
        await sleep(wait, { signal: closing.signal });
      }
    }
  })();
  ready.catch(() => {}); // the owner reads it; a close while waiting must not be an unhandled rejection
  const watch = postgresDiskWatch(sql, log);
  return {
    sql,
    kind: "postgres",
    get unready() {
      return unready;
    },
    ready,
    get diskFull() {
      return watch.reason;
    },
    noteFailure: (error) => watch.noteError(error),
    async close() {
      closing.abort(new DatabaseNotReadyError("the database is closing"));
      watch.close();
      await sql.end({ timeout: 5 });
    },
  };
}

/**
 * The running server that serves the embedded database of `stateDir` through its socket, if another process does:
 * `openDatabase(config, { joinRunning: true })` then goes through it (and the keys CLI says so before it opens).
 */
export function runningServerOf(stateDir: string): { pid: number; socketPath: string } | undefined {
  const socketPath = join(stateDir, SOCKET_NAME);
  const owner = stateDirOwner(stateDir);
  if (owner === undefined || owner === process.pid || !existsSync(socketPath)) return undefined;
  return { pid: owner, socketPath };
}

export interface WaitForOpeningServerOptions {
  /** Longest wait; after it the caller goes on, and opening the directory then reports its owner. */
  timeoutMs: number;
  /** Called once, with the owner's pid, when there is something to wait for. */
  onWait?: (pid: number) => void;
  /** Time between two looks at the lock and the socket. Default 100 ms. */
  pollMs?: number;
}

/**
 * Waits while another live process holds `stateDir` without serving its database socket: a server still opening its
 * embedded database (a first start makes it, which takes seconds), or opening it again after a failure. The keys CLI
 * run just after `npm start` then goes through that server, rather than failing on its lock. Resolves as soon as the
 * socket is there or nobody holds the directory any more, and at the latest after `timeoutMs`.
 */
export async function waitForOpeningServer(stateDir: string, options: WaitForOpeningServerOptions): Promise<void> {
  const { timeoutMs, onWait, pollMs = 100 } = options;
  const socketPath = join(stateDir, SOCKET_NAME);
  const started = performance.now();
  let told = false;
  for (;;) {
    const owner = stateDirOwner(stateDir);
    if (owner === undefined || owner === process.pid || existsSync(socketPath)) return;
    const left = timeoutMs - (performance.now() - started);
    if (left <= 0) return;
    if (!told) {
      told = true;
      onWait?.(owner);
    }
    await sleep(Math.min(pollMs, left));
  }
}

async function openEmbedded(stateDir: string, options: OpenDatabaseOptions): Promise<Database> {
  const socketPath = join(stateDir, SOCKET_NAME);
  const connect = () =>
    postgres(
      connectOptions({
        path: socketPath,
        max: 1,
        prepare: false,
        username: "postgres",
        database: "postgres",
        // While the worker is started again the socket is missing: reconnect at once when it is back (postgres.js's
        // own backoff grows to 20 s).
        backoff: (retries: number) => Math.min(2 ** retries / 100, 1),
      }),
    );
  if (options.joinRunning && runningServerOf(stateDir) !== undefined) {
    // Another process serves this directory: speak to it through its socket.
    const sql = connect();
    return { sql, kind: "embedded", ready: Promise.resolve(), close: () => sql.end({ timeout: 5 }) };
  }
  const embedded = await openEmbeddedDatabase(stateDir, { socketPath, connect, log: options.log ?? stderrLogger() });
  return {
    sql: embedded.sql,
    kind: "embedded",
    ready: Promise.resolve(),
    get unready() {
      return embedded.unready;
    },
    get diskFull() {
      return embedded.diskFull;
    },
    noteFailure: (error) => embedded.noteFailure(error),
    close: () => embedded.close(),
  };
}
