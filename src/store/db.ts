// One way to reach the database, whichever it is: postgres.js over TCP to a real PostgreSQL (DATABASE_URL), or over
// the Unix socket of the embedded PGlite worker (STATE_DIR). Every store module takes the `sql` this returns.
import postgres from "postgres";
import { Worker } from "node:worker_threads";
import { existsSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Config } from "../config.ts";
import { createLogger, type Logger } from "../log.ts";
import { makeOwnerOnly, restrictUmask, secureStateDir } from "./owner_only.ts";
import { lockStateDir, stateDirOwner, type StateDirLock } from "./state_dir_lock.ts";
import { migrate } from "./migrate.ts";
import { workerModule } from "../paths.ts";
import { watchedSocketFactory } from "./answer_watchdog.ts";
import { DatabaseNotReadyError, isDatabaseUnavailable } from "./unavailable.ts";
import { sleep } from "../async/deadline.ts";

export type Sql = postgres.Sql;
/** A connection pool or an open transaction: what a query can run on. */
export type Queryable = postgres.Sql | postgres.TransactionSql;

export interface Database {
  sql: Sql;
  kind: "embedded" | "postgres";
  close(): Promise<void>;
  /**
   * Why the database cannot be used yet ("unreachable: …"); undefined once it can. Only a database opened
   * by `openDatabaseWhenReachable` is ever unready.
   */
  readonly unready?: string;
  /** Settles once the database is usable (migrated); rejects on a failure that waiting cannot fix, or on close. */
  readonly ready?: Promise<void>;
}

export interface OpenDatabaseOptions {
  /** PostgreSQL only: keep every table in this schema (created when missing); tests isolate themselves this way. */
  schema?: string;
  /** Embedded only: when a live process owns STATE_DIR, use its database socket instead of failing (keys CLI). */
  joinRunning?: boolean;
  /** Connections in the pool (PostgreSQL). */
  max?: number;
  /** Embedded only: where the warning about STATE_DIR entries open to other users goes (default: stderr). */
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
/** PGlite's worker thread: compiled, or through tsx from source (paths.ts). */
const pgliteWorker = workerModule("src/store/pglite_worker.ts");

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
  return { sql, kind: "postgres", close: () => sql.end({ timeout: 5 }) };
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
  if (!config.databaseUrl) {
    const database = await openDatabase(config, options);
    return { ...database, ready: Promise.resolve() };
  }
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
  return {
    sql,
    kind: "postgres",
    get unready() {
      return unready;
    },
    ready,
    async close() {
      closing.abort(new DatabaseNotReadyError("the database is closing"));
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

async function openEmbedded(stateDir: string, options: OpenDatabaseOptions): Promise<Database> {
  const socketPath = join(stateDir, SOCKET_NAME);
  if (options.joinRunning && runningServerOf(stateDir) !== undefined) {
    // Another process serves this directory: speak to it through its socket.
    const sql = postgres(
      connectOptions({ path: socketPath, max: 1, prepare: false, username: "postgres", database: "postgres" }),
    );
    return { sql, kind: "embedded", close: () => sql.end({ timeout: 5 }) };
  }
  // Owner-only state (owner_only.ts): from now on this process creates nothing that others can read, and what is
  // there already is made owner-only (and named in a warning) before the database writes anything.
  restrictUmask();
  const lock: StateDirLock = lockStateDir(stateDir);
  secureStateDir(stateDir, { log: options.log ?? createLogger({ write: (line) => process.stderr.write(line) }) });
  rmSync(socketPath, { force: true }); // left by a process that died
  const worker = new Worker(pgliteWorker.filename, {
    workerData: { ...pgliteWorker.workerData, dataDir: join(stateDir, "pgdata"), socketPath },
  });
  try {
    await new Promise<void>((ready, fail) => {
      worker.once("error", fail);
      worker.once("exit", (code) =>
        fail(new Error(`Cannot start the embedded database: its worker exited with code ${code}`)),
      );
      worker.once("message", (message: { type: string }) => message.type === "ready" && ready());
    });
  } catch (error) {
    await worker.terminate();
    lock.release();
    throw error;
  }
  // PGlite wrote the files of a new database 0666 whatever the umask: they are its own, so no warning.
  makeOwnerOnly(stateDir);
  worker.removeAllListeners("exit");
  worker.removeAllListeners("error");
  worker.on("error", () => {}); // reported through failing queries
  // One connection: PGlite runs one statement at a time anyway. The keys CLI's occasional connection is the only
  // other one; the worker's socket hands the session to one connection at a time, by whole exchanges and whole
  // transactions, so the two never interleave (pglite_worker.ts).
  const sql = postgres(
    connectOptions({ path: socketPath, max: 1, prepare: false, username: "postgres", database: "postgres" }),
  );
  let closed = false;
  return {
    sql,
    kind: "embedded",
    async close() {
      if (closed) return;
      closed = true;
      await sql.end({ timeout: 5 });
      const stopped = new Promise<void>((done) => {
        worker.once("message", (message: { type: string }) => message.type === "stopped" && done());
        worker.once("exit", () => done());
      });
      worker.postMessage({ type: "stop" });
      await Promise.race([stopped, new Promise((done) => setTimeout(done, 5000))]);
      await worker.terminate();
      rmSync(socketPath, { force: true });
      lock.release();
    },
  };
}
