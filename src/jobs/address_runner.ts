// The bulk address worker loop: claims chunks of address jobs (1000 rows each, address_job_store.ts), hands each
// chunk's rows to the address service in slices of SLICE_ROWS (one task for a thread each, never one per row), and
// writes the chunk's answers in one statement. The main thread only moves the texts the database holds: the threads
// parse the inputs and write the answers (address/chunk_answers.ts). Six chunks are in flight, so that the threads
// match while the database claims and writes. Any number of runners, in one process or several, share the queue;
// a runner that dies leaves its rows to be claimed again once their leases run out (or at the next start, on the
// embedded database), and the lease check at write time keeps every row answered once.
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { deadline } from "../async/deadline.ts";
import { type ChunkAnswers, type ChunkSlice, joinSlices, type SliceAnswers } from "../address/chunk_answers.ts";
import type { Logger } from "../log.ts";
import type { Sql } from "../store/db.ts";
import { type ClaimedChunk, createAddressJobStore } from "./address_job_store.ts";
import { unverifiedAnswers } from "./address_rows.ts";
import { createStoreOutageLog } from "./store_outage_log.ts";
import { startClaimLoop } from "./claim_loop.ts";
import { type JobProgress, processJobProgress } from "./job_progress.ts";

/** What the runner needs of the address service: a slice of a chunk at once, and when it can answer. */
export interface BulkAddressVerifier {
  verifySlice(slice: ChunkSlice, options?: { signal?: AbortSignal }): Promise<SliceAnswers>;
  /** Settles once the service answers from its indexes: nothing is claimed before. */
  readonly started: Promise<void>;
}

export interface AddressJobRunnerOptions {
  sql: Sql;
  verifier: BulkAddressVerifier;
  log: Logger;
  owner?: string;
  leaseMs?: number;
  /**
   * Chunks in flight: matched while others are claimed and written. Measured in one process on the embedded database
   * with two threads (20,000 Paris rows, a shared machine at load 9): 3 lanes took 4.75-12.9 s against 2.9-4.9 s for
   * the pool alone, 6 lanes 4.05-4.9 s against 2.8-3.5 s. Each lane holds 1000 rows.
   */
  lanes?: number;
  pollMs?: number;
  /** Hand-outs of a chunk before its rows get the unverified answer instead (it took its thread down each time). */
  maxAttempts?: number;
  /** A batch still unanswered after this is given up: its rows return to the queue when their leases run out. */
  batchTimeoutMs?: number;
  /** The embedded database: rows left claimed by an earlier process are handed back at start. */
  exclusive?: boolean;
  stopTimeoutMs?: number;
  /** Told of each chunk written, so that job reads held until their job ends see it at once (default: the process's). */
  progress?: JobProgress;
}

/**
 * Rows per task for a thread: a single POST /v1/address waits behind at most two such tasks per thread (the service's
 * bulk slots), about 15 ms at 60 µs a row, and a task's fixed costs (the hand-over, parsing the chunk's inputs) stay a
 * small part of its matching.
 */
export const SLICE_ROWS = 250;

export interface AddressJobRunner {
  readonly owner: string;
  wake(): void;
  stop(): Promise<void>;
}

export function startAddressJobRunner(options: AddressJobRunnerOptions): AddressJobRunner {
  const {
    sql,
    verifier,
    log,
    owner = `${hostname()}:${process.pid}:address:${randomUUID().slice(0, 8)}`,
    leaseMs = 60_000,
    lanes = 6,
    pollMs = 1000,
    maxAttempts = 3,
    batchTimeoutMs = 5 * 60_000,
    exclusive = false,
    stopTimeoutMs = 10_000,
    progress = processJobProgress,
  } = options;
  for (const [name, value] of Object.entries({ leaseMs, lanes, pollMs, maxAttempts, batchTimeoutMs })) {
    if (!(Number.isFinite(value) && value > 0)) {
      throw new RangeError(`Cannot start the address job runner: ${name} must be a positive number, got ${value}`);
    }
  }
  const store = createAddressJobStore(sql);
  const storeFailures = createStoreOutageLog(log);
  const stopping = new AbortController();

  /** The chunk's answers, slice by slice; undefined when matching failed. */
  async function answersOf(chunk: ClaimedChunk, signal: AbortSignal): Promise<ChunkAnswers | undefined> {
    // A row handed out too often took its worker thread down each time: the chunk's rows get the unverified answer.
    if (chunk.attempts > maxAttempts) {
      log.warn("address job chunk gave up after repeated failures", { job_id: chunk.jobId, rows: chunk.size });
      return unverifiedAnswers(chunk.size);
    }
    const { inputs, dupOf, firstRow, size } = chunk;
    try {
      const slices: Array<Promise<SliceAnswers>> = [];
      for (let from = 0; from < size; from += SLICE_ROWS) {
        const slice = { inputs, dupOf, firstRow, from, to: Math.min(size, from + SLICE_ROWS) };
        slices.push(verifier.verifySlice(slice, { signal }));
      }
      return joinSlices(await Promise.all(slices));
    } catch (error) {
      // Left claimed: the lease runs out and the chunk is claimed again, counting this hand-out.
      if (!stopping.signal.aborted) log.warn("address job chunk failed", { rows: size, error: String(error) });
      return undefined;
    }
  }

  async function runChunk(chunk: ClaimedChunk): Promise<void> {
    const bound = deadline(batchTimeoutMs, { parents: [stopping.signal], what: "match the address chunk" });
    const renewal = setInterval(
      () => {
        store
          .renew([chunk], { leaseMs })
          .catch((error) => storeFailures.failed("warn", "address lease renewal failed", error));
      },
      Math.max(10, Math.floor(leaseMs / 3)),
    );
    try {
      const began = performance.now();
      const answers = await answersOf(chunk, bound.signal);
      if (answers === undefined) return;
      const matched = performance.now();
      const written = await store.settle(chunk, answers);
      if (written) progress.wrote(chunk.jobId);
      if (!written) log.warn("address job chunk lost its lease before its answers", { job_id: chunk.jobId });
      else {
        const ms = (t: number) => Math.round(t);
        log.debug("address job rows answered", {
          owner,
          rows: chunk.size,
          match_ms: ms(matched - began),
          write_ms: ms(performance.now() - matched),
        });
      }
      storeFailures.succeeded();
    } finally {
      clearInterval(renewal);
      bound.dispose();
    }
  }

  // One chunk per lane: the window is the lanes.
  const loop = startClaimLoop<ClaimedChunk>({
    name: "address job runner",
    unit: "rows",
    owner,
    log,
    storeFailures,
    stopping,
    pollMs,
    stopTimeoutMs,
    window: lanes,
    claimSize: 1,
    claim: (limit) => store.claim(owner, { limit, leaseMs }),
    run: ([chunk]) => runChunk(chunk!).finally(() => loop.settled(1)),
    runFailed: (error, [chunk]) =>
      storeFailures.failed("error", "address job chunk failed", error, { job_id: chunk!.jobId }),
    release: () => store.release(owner),
    reclaimAll: exclusive ? () => store.reclaimAll() : undefined,
    // Nothing is claimed before the street index answers.
    ready: verifier.started,
    fields: { lanes },
  });

  return { owner, wake: () => loop.wake(), stop: () => loop.stop() };
}
