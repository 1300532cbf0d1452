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

export type Sql = postgres.Sql;
/** A connection pool or an open transaction: what a query can run on. */
export type Queryable = postgres.Sql | postgres.TransactionSql;

export interface Database {
  sql: Sql;
  kind: "embedded" | "postgres";
  close(): Promise<void>;
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
}

const SOCKET_NAME = ".s.PGSQL.5432";
/** PGlite's worker thread: compiled, or through tsx from source (paths.ts). */
const pgliteWorker = workerModule("src/store/pglite_worker.ts");

function connectOptions(extra: postgres.Options<Record<string, never>>): postgres.Options<Record<string, never>> {
  return { onnotice: () => {}, idle_timeout: 30, connect_timeout: 5, ...extra };
}

export async function openDatabase(
  config: Pick<Config, "databaseUrl" | "stateDir">,
  options: OpenDatabaseOptions = {},
): Promise<Database> {
  const database = config.databaseUrl
    ? await openPostgres(config.databaseUrl, options)
    : await openEmbedded(resolve(config.stateDir), options);
  try {
    await migrate(database.sql);
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}

async function openPostgres(url: string, options: OpenDatabaseOptions): Promise<Database> {
  const { schema, max = 10 } = options;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema)) {
    throw new TypeError(`Cannot open database: schema "${schema}" is not a plain lower-case identifier`);
  }
  if (schema) {
    const admin = postgres(url, connectOptions({ max: 1 }));
    try {
      await admin.unsafe(`create schema if not exists ${schema}`);
    } finally {
      await admin.end();
    }
  }
  const sql = postgres(
    url,
    connectOptions({
      max,
      // postgres.js queries take no AbortSignal: a statement_timeout bounds every query instead.
      connection: { statement_timeout: 10_000, ...(schema ? { search_path: schema } : {}) } as never,
    }),
  );
  return { sql, kind: "postgres", close: () => sql.end({ timeout: 5 }) };
}

async function openEmbedded(stateDir: string, options: OpenDatabaseOptions): Promise<Database> {
  const socketPath = join(stateDir, SOCKET_NAME);
  const owner = stateDirOwner(stateDir);
  if (options.joinRunning && owner !== undefined && owner !== process.pid && existsSync(socketPath)) {
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
