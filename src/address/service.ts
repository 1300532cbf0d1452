// The address service the HTTP layer uses: the street indexes of BAN_INDEX_DIR and the nationwide reference in shared
// memory, matching on a piscina pool (config.workers threads). It starts in the background, so the server listens at
// once: configured départements without an index are imported in a worker thread (background_import.ts), and during
// a first import (no index at all) calls are refused with AddressIndexUnavailableError (503). Indexes that appear in
// the directory later (`npm run ban -- import` in another process) are taken up on reload() (SIGHUP) or when the
// directory watch sees them: a new pool starts on the new buffers and is swapped in, and the old one is destroyed once
// the tasks it holds are done.
import { type FSWatcher, mkdirSync, watch } from "node:fs";
import type { Piscina } from "piscina";
import type { Config } from "../config.ts";
import { silentLogger, type Logger } from "../log.ts";
import type { Metrics } from "../metrics/metrics.ts";
import { importInBackground, type BackgroundImport, type ImportMessage } from "./background_import.ts";
import { Batcher } from "./batcher.ts";
import { indexFileName } from "./index/format.ts";
import {
  AddressIndexUnavailableError,
  type AddressIndexStatus,
  IMPORT_RETRY_AFTER_SECONDS,
  type ImportStatus,
} from "./index_status.ts";
import { INDEX_FILE, type LoadedIndex, MISSING_INDEX_FIX, readIndexes } from "./load.ts";
import { BATCHES_PER_THREAD, createMatchPool, type MatchTask } from "./pool.ts";
import { cachedReference } from "./reference/compile.ts";
import type { ChunkSlice, SliceAnswers } from "./chunk_answers.ts";
import { Slots } from "../async/slots.ts";
import type { AddressInput, AddressVerification } from "./types.ts";

export interface AddressService {
  verify(input: AddressInput, options?: { signal?: AbortSignal }): Promise<AddressVerification>;
  /**
   * Rows of a bulk job's chunk, as stored (chunk_answers.ts): one task for a thread, its answers as stored. At most
   * BATCHES_PER_THREAD such tasks per thread are in the pool at once, the others wait here, so a single call (the
   * batcher's tasks go straight to the pool) waits behind at most that many slices, never behind a job.
   */
  verifySlice(slice: ChunkSlice, options?: { signal?: AbortSignal }): Promise<SliceAnswers>;
  /** true once the index of every configured département is loaded. */
  readonly ready: boolean;
  /**
   * Configured départements left without an index (offline, no BAN file): addresses there answer unknown
   * (postcode_not_covered). The service serves all the same; /readyz lists them.
   */
  readonly missing: readonly string[];
  /** Where the street index stands (/readyz). */
  readonly index: AddressIndexStatus;
  /** Settles once the service answers from its first indexes (imports at start tried); rejects when it cannot. */
  readonly started: Promise<void>;
  /** Reads the index directory again and takes up what is new or changed; resolves once the new indexes answer. */
  reload(options?: { trigger?: string }): Promise<void>;
  close(): Promise<void>;
}

export interface AddressServiceOptions {
  log?: Logger;
  /** Watch BAN_INDEX_DIR and take up new indexes without being asked (default true). */
  watch?: boolean;
  /** Counts live answers by verdict with their time, and shows the worker pool's queue. */
  metrics?: Pick<Metrics, "addressMatch" | "watchWorkerPool">;
}

/** At most one progress line this often during an import. */
const PROGRESS_EVERY_MS = 5000;
/** Quiet time after the last change in the directory before it is read again (`france` renames a hundred files). */
const WATCH_DEBOUNCE_MS = 500;

interface Engine {
  departements: string[];
  /** Tasks waiting for a thread. */
  readonly queueSize: number;
  run(inputs: AddressInput[]): Promise<AddressVerification[]>;
  runSlice(slice: ChunkSlice): Promise<SliceAnswers>;
  /** Destroys the pool once the tasks it holds are done. */
  retire(): Promise<void>;
  destroy(): Promise<void>;
}

async function startEngine(
  indexes: readonly LoadedIndex[],
  referenceBuffer: SharedArrayBuffer,
  threads: number,
): Promise<Engine> {
  const pool: Piscina = createMatchPool({ indexBuffers: indexes.map((i) => i.buffer), referenceBuffer }, { threads });
  let inFlight = 0;
  let idle: (() => void) | undefined;
  const task = async <T>(work: MatchTask): Promise<T> => {
    inFlight++;
    try {
      return await pool.run(work);
    } finally {
      if (--inFlight === 0) idle?.();
    }
  };
  const run = (inputs: AddressInput[]) => task<AddressVerification[]>({ inputs });
  try {
    // A task per thread before answering, so that the first requests do not pay a worker's start. Piscina gives each
    // to a ready thread, possibly the same one twice: the others are ready soon after and take calls from then on.
    await Promise.all(Array.from({ length: threads }, () => run([])));
  } catch (err) {
    await pool.destroy();
    throw err;
  }
  return {
    departements: indexes.map((i) => i.departement),
    get queueSize() {
      return pool.queueSize;
    },
    run,
    runSlice: (slice) => task<SliceAnswers>({ slice }),
    async retire() {
      if (inFlight > 0) await new Promise<void>((resolve) => (idle = resolve));
      await pool.destroy();
    },
    destroy: () => pool.destroy(),
  };
}

/** Starts the service in the background; `started` says when it answers from its indexes. */
export function startAddressService(config: Config, options: AddressServiceOptions = {}): AddressService {
  const { log = silentLogger, watch: watching = true, metrics } = options;
  const { banIndexDir: indexDir, banSource, workers } = config;
  const configured = config.banDepartements.map((d) => d.toUpperCase());
  const began = performance.now();
  let engine: Engine | undefined;
  let indexes = new Map<string, LoadedIndex>();
  let referenceBuffer: SharedArrayBuffer | undefined;
  const importing = new Set<string>();
  let progress: ImportStatus | null = null;
  let background: BackgroundImport | undefined;
  let watcher: FSWatcher | undefined;
  let debounce: NodeJS.Timeout | undefined;
  let closed = false;
  const retiring = new Set<Promise<void>>();
  const unwatchPool = metrics?.watchWorkerPool(() => engine?.queueSize ?? 0);

  let firstEngine!: (engine: Engine) => void;
  let noEngine!: (err: unknown) => void;
  const engineStarted = new Promise<Engine>((resolve, reject) => {
    firstEngine = resolve;
    noEngine = reject;
  });
  engineStarted.catch(() => {});

  const missing = () =>
    engine === undefined ? [] : configured.filter((d) => !engine!.departements.includes(d) && !importing.has(d));
  // Calls are refused only while nothing can answer and an import is what they would wait for.
  const answering = () => engine !== undefined || importing.size === 0;

  /**
   * Imports `departements` in a worker thread, logging what it reports; resolves once each was tried. A first import
   * also packs the commune reference the service loads next, off the main thread.
   */
  async function runImport(departements: string[], first: boolean): Promise<void> {
    const failed: string[] = [];
    const errors: string[] = [];
    // Not 0: performance.now() counts from the process's start, and an import's first progress within its first
    // 5 s would go untold (a held download then never tells any).
    let lastProgressLine = Number.NEGATIVE_INFINITY;
    const onMessage = (m: ImportMessage) => {
      switch (m.type) {
        case "started":
          progress = { departement: m.departement, rows: 0, percent: null };
          break;
        case "progress": {
          const { rows, bytes, totalBytes } = m.progress;
          const percent = totalBytes > 0 ? Math.min(100, Math.floor((bytes * 100) / totalBytes)) : null;
          progress = { departement: m.departement, rows, percent };
          const now = performance.now();
          if (now - lastProgressLine >= PROGRESS_EVERY_MS) {
            lastProgressLine = now;
            log.info("address index import progress", { ...progress });
          }
          break;
        }
        case "warning":
          log.warn(m.message, { departement: m.departement });
          break;
        case "imported":
          for (const r of m.results) {
            log.info("address index imported", {
              departement: r.departement,
              rows: r.rows,
              bytes: r.bytes,
              ms: r.ms,
              remapped_rows: r.remappedRows,
            });
          }
          break;
        case "failed":
          failed.push(m.departement);
          errors.push(`${m.departement}: ${m.error}`);
          break;
      }
    };
    log.info("importing address indexes", { departements, first });
    background = importInBackground({ departements, banSource, indexDir, packReference: first }, onMessage);
    await background.done;
    background = undefined;
    progress = null;
    if (failed.length > 0 && !closed) {
      // One warning for all of them, with the fix: the service answers unknown/postcode_not_covered there
      // (/readyz shows them as missing).
      log.warn(
        `address index missing: addresses there answer unknown (postcode_not_covered); to fix: ${MISSING_INDEX_FIX}`,
        { departements: failed, ban_source: banSource, errors, fix: MISSING_INDEX_FIX },
      );
    }
  }

  async function begin(): Promise<void> {
    // What follows reads files on this thread: let the caller start listening first.
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      mkdirSync(indexDir, { recursive: true });
    } catch {
      // Read-only or unreachable: nothing is imported there, and what is there is read all the same.
    }
    if (watching) startWatch();
    let found = readIndexes(indexDir, indexes, { log });
    const toImport = configured.filter((d) => !found.indexes.has(indexFileName(d)));
    const firstImport = toImport.length > 0 && found.indexes.size === 0;
    if (firstImport) {
      // Nothing can answer before it ends: calls get 503 meanwhile (AddressIndexUnavailableError).
      for (const d of toImport) importing.add(d);
      await runImport(toImport, true);
      importing.clear();
      if (closed) return;
      found = readIndexes(indexDir, indexes, { log });
    }
    indexes = found.indexes;
    referenceBuffer = cachedReference(indexDir);
    const first = await startEngine([...indexes.values()], referenceBuffer, workers);
    if (closed) {
      await first.destroy();
      return;
    }
    engine = first;
    firstEngine(first);
    log.info("address service ready", {
      departements: first.departements,
      index_bytes: [...indexes.values()].reduce((n, i) => n + i.buffer.byteLength, 0),
      workers,
      ms: Math.round(performance.now() - began),
    });
    if (!firstImport && toImport.length > 0) {
      // Served from the indexes there are; the others answer unknown until their import is taken up.
      for (const d of toImport) importing.add(d);
      void runImport(toImport, false)
        .then(() => (closed ? undefined : reload({ trigger: "import" })))
        .catch(() => {}) // reload() logs its own failure
        .finally(() => importing.clear());
    }
  }

  /** Reads the directory again; starts and swaps in a new pool when an index was added, changed or removed. */
  async function takeUp(trigger: string): Promise<void> {
    if (closed || engine === undefined || referenceBuffer === undefined) return;
    const next = readIndexes(indexDir, indexes, { log });
    if (next.added.length === 0 && next.removed.length === 0) {
      if (trigger === "SIGHUP") log.info("address index directory read again: nothing new", { trigger });
      return;
    }
    const fresh = await startEngine([...next.indexes.values()], referenceBuffer, workers);
    if (closed) {
      await fresh.destroy();
      return;
    }
    const old = engine;
    engine = fresh;
    indexes = next.indexes;
    for (const i of next.added) {
      log.info("address index taken up", {
        departement: i.departement,
        file: i.file,
        addresses: i.addresses,
        bytes: i.buffer.byteLength,
        trigger,
      });
    }
    for (const i of next.removed)
      log.info("address index dropped", { departement: i.departement, file: i.file, trigger });
    const retired = old.retire().catch((err: unknown) => {
      log.warn("address pool did not stop cleanly", { error: err instanceof Error ? err.message : String(err) });
    });
    retiring.add(retired);
    void retired.finally(() => retiring.delete(retired));
  }

  const startedPromise = begin().catch((err: unknown) => {
    noEngine(err);
    throw err;
  });
  // Reloads wait for the start, then run one at a time; one asked while another waits to run joins it.
  let chain: Promise<void> = startedPromise.catch(() => {});
  let queued: Promise<void> | undefined;
  function reload(opts: { trigger?: string } = {}): Promise<void> {
    const { trigger = "reload" } = opts;
    if (queued !== undefined) return queued;
    const run = chain.then(() => {
      queued = undefined;
      return takeUp(trigger);
    });
    queued = run;
    chain = run.catch((err: unknown) => {
      log.error("cannot take up address index", {
        trigger,
        error: err instanceof Error ? err.message : String(err),
      });
    });
    return run;
  }

  function startWatch(): void {
    const stopWatching = (reason: string, err: unknown) => {
      watcher?.close();
      watcher = undefined;
      log.warn(`${reason}: send SIGHUP to take up new address indexes`, {
        error: err instanceof Error ? err.message : String(err),
      });
    };
    try {
      watcher = watch(indexDir, { persistent: false }, (_event, filename) => {
        // Temporary files of an import under way are not indexes yet; their rename is the event that counts.
        if (filename !== null && !INDEX_FILE.test(String(filename))) return;
        clearTimeout(debounce);
        debounce = setTimeout(() => void reload({ trigger: "watch" }), WATCH_DEBOUNCE_MS);
        debounce.unref();
      });
      watcher.on("error", (err) => stopWatching("address index directory no longer watched", err));
    } catch (err) {
      stopWatching("cannot watch the address index directory", err);
    }
  }

  // The signal is not handed to piscina: aborting a running task there terminates its thread (and the tasks queued
  // behind it), a high price for a match of a few microseconds. The batcher answers an abort at once instead.
  const batcher = new Batcher(
    async (inputs) => {
      if (closed) throw new Error("Cannot verify address: the address service is closed");
      return (engine ?? (await engineStarted)).run(inputs);
    },
    { maxInFlight: workers * BATCHES_PER_THREAD },
  );

  const bulkSlots = new Slots(workers * BATCHES_PER_THREAD);

  return {
    get ready() {
      return engine !== undefined && importing.size === 0 && missing().length === 0;
    },
    get missing() {
      return missing();
    },
    get index(): AddressIndexStatus {
      return {
        phase: importing.size > 0 ? "importing" : engine !== undefined ? "serving" : "loading",
        answering: answering(),
        departements: engine?.departements ?? [],
        importing: [...importing],
        progress,
        missing: missing(),
      };
    },
    started: startedPromise,
    reload,
    async verify(input, opts = {}) {
      if (!answering()) throw new AddressIndexUnavailableError([...importing], IMPORT_RETRY_AFTER_SECONDS);
      const t0 = performance.now();
      const result = await batcher.submit(input, { signal: opts.signal });
      const ms = performance.now() - t0;
      metrics?.addressMatch(result.verdict, "live", ms / 1000);
      return { ...result, duration_ms: Math.round(ms) };
    },
    async verifySlice(slice, opts = {}) {
      if (!answering()) throw new AddressIndexUnavailableError([...importing], IMPORT_RETRY_AFTER_SECONDS);
      return bulkSlots.run(async () => {
        if (closed) throw new Error("Cannot verify address: the address service is closed");
        return (engine ?? (await engineStarted)).runSlice(slice);
      }, opts);
    },
    async close() {
      if (closed) return;
      closed = true;
      noEngine(new Error("Cannot verify address: the address service is closed"));
      clearTimeout(debounce);
      watcher?.close();
      unwatchPool?.();
      await background?.stop();
      const current = engine;
      engine = undefined;
      await Promise.all([current?.destroy(), ...retiring]);
    },
  };
}

/** startAddressService(), once it answers from its indexes: for tools and tests that need it whole at once. */
export async function createAddressService(
  config: Config,
  options: AddressServiceOptions = {},
): Promise<AddressService> {
  const service = startAddressService(config, options);
  try {
    await service.started;
  } catch (err) {
    await service.close();
    throw err;
  }
  return service;
}
