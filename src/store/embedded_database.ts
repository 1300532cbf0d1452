// The embedded database: PGlite in a worker thread (pglite_worker.ts), owned by this process for as long as it runs,
// and opened again in a new worker when the old one can no longer serve (a full disk: docs/decisions.md "Storage").
//
// PGlite 0.5 on a full disk: a relation that cannot grow answers ERROR 53100 ("could not extend file") and the
// instance goes on; a WAL segment that cannot be created answers PANIC 53100 ("could not write to file
// pg_wal/xlogtemp.N: No space left on device"), after which the instance's next statement spins for ever. What was
// committed is on disk (PGlite writes through to STATE_DIR), so a new instance recovers it, once there is room for
// the new WAL segment its recovery writes; before that, opening fails ("PGlite failed to initialize properly").
// So the worker of a dead instance is ended, and a new one is started once the file system has room, then tried
// again at growing intervals whatever the file system says. The STATE_DIR lock belongs to this process throughout.
import type postgres from "postgres";
import { Worker } from "node:worker_threads";
import { existsSync, rmSync, statfsSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../log.ts";
import { workerModule } from "../paths.ts";
import { sleep } from "../async/deadline.ts";
import { makeOwnerOnly, restrictUmask, secureStateDir } from "./owner_only.ts";
import { lockStateDir } from "./state_dir_lock.ts";
import { canWrite, DISK_FULL_SQLSTATE, DiskFullWatch } from "./disk_full.ts";
import type { EmbeddedWorkerData, WorkerReport } from "./pglite_worker.ts";
import type { InitdbWorkerData } from "./pglite_initdb_worker.ts";
import { pgliteModules } from "./pglite_modules.ts";

/** PGlite's WAL segment (wal_segment_size): the room a full disk must give back before the database can go on. */
export const WAL_SEGMENT_BYTES = 16 * 1024 * 1024;

/** PGlite's worker thread: compiled, or through tsx from source (paths.ts). */
const pgliteWorker = workerModule("src/store/pglite_worker.ts");
/** The thread that makes a new STATE_DIR's database and ends (pglite_initdb_worker.ts). */
const initdbWorker = workerModule("src/store/pglite_initdb_worker.ts");

export interface EmbeddedDatabase {
  sql: postgres.Sql;
  /** Why the database cannot serve now (its worker is being started again), or undefined. */
  readonly unready: string | undefined;
  /** "disk full under STATE_DIR: …" while writes fail for lack of space, or undefined. */
  readonly diskFull: string | undefined;
  /** Tells the database a call failed: a disk-full failure begins an episode. Returns the reason when it is one. */
  noteFailure(error: unknown): string | undefined;
  close(): Promise<void>;
}

export interface OpenEmbeddedOptions {
  /** The database socket inside the directory. */
  socketPath: string;
  /** postgres.js over `socketPath`: the one pool the whole process uses. */
  connect: () => postgres.Sql;
  log: Logger;
  /** Bound on opening the database in a new worker (crash recovery included). Default 120 s. */
  openTimeoutMs?: number;
  /** Time between two looks for room (and probes of the disk-full watch) while the disk is full. Default 1000. */
  checkIntervalMs?: number;
  /** Tries to open again after a failure: first after this, doubled each time, up to `maxRetryMs`. 1 s, 30 s. */
  firstRetryMs?: number;
  maxRetryMs?: number;
}

/**
 * Drops what this module listens to on `worker`. Never `removeAllListeners()` without names: it also drops the
 * listeners by which node starts the worker's message port, and no message would arrive any more.
 */
function forget(worker: Worker): void {
  for (const event of ["message", "error", "exit"]) worker.removeAllListeners(event);
}

function freeBytes(dir: string): number {
  const stats = statfsSync(dir);
  return stats.bavail * stats.bsize;
}

/**
 * Resolves once `worker` did what it was started for: sent "ready" (it serves its socket), or ended with code 0 (it
 * made the database). Terminates it and rejects when it fails, ends otherwise, or takes longer than `timeoutMs`.
 */
async function outcomeOf(worker: Worker, awaited: "ready" | "ended", timeoutMs: number, what: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await new Promise<void>((done, fail) => {
      worker.once("error", fail);
      worker.once("exit", (code) =>
        awaited === "ended" && code === 0
          ? done()
          : fail(new Error(`Cannot ${what}: its worker exited with code ${code}`)),
      );
      if (awaited === "ready")
        worker.once("message", (message: { type: string }) => message.type === "ready" && done());
      timer = setTimeout(() => fail(new Error(`Cannot ${what}: not done after ${timeoutMs} ms`)), timeoutMs);
    });
  } catch (error) {
    await worker.terminate();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** Makes the database of a directory without one (no PG_VERSION) in a thread of its own; resolves once it ended. */
async function initializeDataDir(dataDir: string, timeoutMs: number): Promise<void> {
  if (existsSync(join(dataDir, "PG_VERSION"))) return;
  const workerData: InitdbWorkerData & typeof initdbWorker.workerData = {
    ...initdbWorker.workerData,
    dataDir,
    modules: await pgliteModules(),
  };
  const worker = new Worker(initdbWorker.filename, { workerData });
  await outcomeOf(worker, "ended", timeoutMs, "make the embedded database");
}

/** Starts PGlite on `stateDir` in a new worker and resolves once it serves its socket. */
async function startWorker(stateDir: string, socketPath: string, timeoutMs: number): Promise<Worker> {
  rmSync(socketPath, { force: true }); // left by a process, or a worker, that died
  const dataDir = join(stateDir, "pgdata");
  const started = performance.now();
  await initializeDataDir(dataDir, timeoutMs);
  const workerData: EmbeddedWorkerData & typeof pgliteWorker.workerData = {
    ...pgliteWorker.workerData,
    dataDir,
    socketPath,
    modules: await pgliteModules(),
  };
  const worker = new Worker(pgliteWorker.filename, { workerData });
  // One bound on making the database and opening it.
  const left = Math.max(1, timeoutMs - (performance.now() - started));
  await outcomeOf(worker, "ready", left, "start the embedded database");
  forget(worker);
  // PGlite writes its files 0666 whatever the umask: they are its own, so no warning.
  makeOwnerOnly(stateDir);
  return worker;
}

/** Locks `stateDir`, starts its database, and keeps it served until `close()`. */
export async function openEmbeddedDatabase(stateDir: string, options: OpenEmbeddedOptions): Promise<EmbeddedDatabase> {
  const {
    socketPath,
    connect,
    log,
    openTimeoutMs = 120_000,
    checkIntervalMs = 1000,
    firstRetryMs = 1000,
    maxRetryMs = 30_000,
  } = options;
  // Owner-only state (owner_only.ts): from now on this process creates nothing that others can read, and what is
  // there already is made owner-only (and named in a warning) before the database writes anything.
  restrictUmask();
  const lock = lockStateDir(stateDir);
  secureStateDir(stateDir, { log });
  let worker: Worker;
  try {
    worker = await startWorker(stateDir, socketPath, openTimeoutMs);
  } catch (error) {
    lock.release();
    throw error;
  }
  // One connection: PGlite runs one statement at a time anyway. The keys CLI's occasional connection is the only
  // other one; the worker's socket hands the session to one connection at a time (pglite_worker.ts).
  const sql = connect();
  const closing = new AbortController();
  /** Why the worker does not serve, from its failure until a new one does. */
  let down: string | undefined;
  /** The loop that opens the database again, while it runs: close() waits for it. */
  let reopening: Promise<void> | undefined;

  const watch = new DiskFullWatch({
    where: "under STATE_DIR",
    log,
    intervalMs: checkIntervalMs,
    // Over once the database serves, the file system has room for the WAL segment that ran out, and a write succeeds.
    probe: async () => down === undefined && freeBytes(stateDir) >= WAL_SEGMENT_BYTES && (await canWrite(sql)),
  });

  function supervise(current: Worker): void {
    current.on("message", (message: WorkerReport) => {
      if (message.type === "disk-full") watch.report(message.message);
      else if (message.type === "failed") lost(current, message.message, message.code);
    });
    current.on("error", () => {}); // its exit follows
    current.on("exit", (code) => lost(current, `its worker exited with code ${code}`, undefined));
  }

  function lost(current: Worker, message: string, code: string | undefined): void {
    if (current !== worker || down !== undefined || closing.signal.aborted) return;
    reopening = reopen(current, message, code)
      .catch((error) => log.error("cannot open the embedded database again", { error: String(error) }))
      .finally(() => {
        reopening = undefined;
      });
  }

  async function reopen(current: Worker, message: string, code: string | undefined): Promise<void> {
    if (code === DISK_FULL_SQLSTATE) {
      watch.report(message);
      log.info("embedded database stopped by the full disk, opening it again once there is room", { cause: message });
    } else {
      log.error("embedded database stopped, opening it again", { cause: message });
    }
    down = `the embedded database stopped (${message}); opening it again`;
    forget(current);
    await current.terminate();
    rmSync(socketPath, { force: true });
    let wait = firstRetryMs;
    let lastTry = 0;
    while (!closing.signal.aborted) {
      // With the disk still full the database cannot even recover (it writes as it opens): wait for room, and try
      // anyway now and then in case the file system's free count is not the whole story (quotas).
      const room = watch.reason === undefined || freeBytes(stateDir) >= WAL_SEGMENT_BYTES;
      if (room ? Date.now() - lastTry >= wait : Date.now() - lastTry >= maxRetryMs) {
        lastTry = Date.now();
        try {
          const next = await startWorker(stateDir, socketPath, openTimeoutMs);
          if (closing.signal.aborted) {
            await next.terminate();
            return;
          }
          worker = next;
          supervise(next);
          down = undefined;
          log.info("embedded database open again", {});
          return;
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          // During a disk-full episode failing to open is expected, and the episode is logged already.
          if (watch.reason === undefined) log.warn("cannot open the embedded database yet", { reason });
          else log.debug("cannot open the embedded database yet", { reason });
          wait = Math.min(wait * 2, maxRetryMs);
        }
      }
      await sleep(checkIntervalMs, { signal: closing.signal }).catch(() => {});
    }
  }

  supervise(worker);
  let closed = false;
  return {
    sql,
    get unready() {
      return down === undefined ? undefined : (watch.reason ?? down);
    },
    get diskFull() {
      return watch.reason;
    },
    noteFailure: (error) => watch.noteError(error),
    async close() {
      if (closed) return;
      closed = true;
      closing.abort();
      watch.close();
      await reopening;
      await sql.end({ timeout: 5 });
      const current = worker;
      forget(current);
      if (down === undefined) {
        // Stopped, the worker ends by itself (pglite_worker.ts); terminate() is for one that does not within 5 s.
        let timer: NodeJS.Timeout | undefined;
        await new Promise<void>((done) => {
          current.once("exit", () => done());
          timer = setTimeout(done, 5000);
          current.postMessage({ type: "stop" });
        });
        clearTimeout(timer);
      }
      await current.terminate();
      rmSync(socketPath, { force: true });
      lock.release();
    },
  };
}
