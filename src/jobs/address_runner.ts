// The bulk address worker loop: claims rows of address jobs in large batches, hands each batch to the address service
// at once (its batcher cuts it into tasks of many rows for the worker threads: never one task per row), and writes the
// batch's answers in one statement (address_job_store.ts settle()). Two batches are in flight, so that the threads
// match one while the database writes the other. Any number of runners, in one process or several, share the queue;
// a runner that dies leaves its rows to be claimed again once their leases run out (or at the next start, on the
// embedded database), and the lease check at write time keeps every row answered once.
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { deadline, sleep } from "../async/deadline.ts";
import type { AddressInput, AddressVerification } from "../address/types.ts";
import type { Logger } from "../log.ts";
import type { Sql } from "../store/db.ts";
import { type ClaimedRow, createAddressJobStore } from "./address_job_store.ts";
import { unverifiedAnswer } from "./address_rows.ts";
import { createStoreOutageLog } from "./store_outage_log.ts";

/** What the runner needs of the address service: many rows at once, and when it can answer. */
export interface BulkAddressVerifier {
  verifyMany(inputs: readonly AddressInput[], options?: { signal?: AbortSignal }): Promise<AddressVerification[]>;
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
   * Rows per claim, and so per settle statement. A match costs tens of microseconds and a settle statement about a
   * millisecond plus a few microseconds a row: 2000 rows keep the statement's share of the time small while a batch
   * still fits a lease many times over.
   */
  batchSize?: number;
  /** Batches in flight: two, so that one is matched while the other is written. */
  lanes?: number;
  pollMs?: number;
  /** Hand-outs of a row before it gets the unverified answer instead (it took its thread down each time). */
  maxAttempts?: number;
  /** A batch still unanswered after this is given up: its rows return to the queue when their leases run out. */
  batchTimeoutMs?: number;
  /** The embedded database: rows left claimed by an earlier process are handed back at start. */
  exclusive?: boolean;
  stopTimeoutMs?: number;
}

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
    batchSize = 2000,
    lanes = 2,
    pollMs = 1000,
    maxAttempts = 3,
    batchTimeoutMs = 5 * 60_000,
    exclusive = false,
    stopTimeoutMs = 10_000,
  } = options;
  for (const [name, value] of Object.entries({ leaseMs, batchSize, lanes, pollMs, maxAttempts, batchTimeoutMs })) {
    if (!(Number.isFinite(value) && value > 0)) {
      throw new RangeError(`Cannot start the address job runner: ${name} must be a positive number, got ${value}`);
    }
  }
  const store = createAddressJobStore(sql);
  const storeFailures = createStoreOutageLog(log);
  const stopping = new AbortController();
  let nap = new AbortController();
  let room = new AbortController();
  let inFlight = 0;
  const batches = new Set<Promise<void>>();

  async function runBatch(rows: ClaimedRow[]): Promise<void> {
    const bound = deadline(batchTimeoutMs, { parents: [stopping.signal], what: "match the address batch" });
    const renewal = setInterval(
      () => {
        store
          .renew(rows, { leaseMs })
          .catch((error) => storeFailures.failed("warn", "address lease renewal failed", error));
      },
      Math.max(10, Math.floor(leaseMs / 3)),
    );
    try {
      // A row handed out too often took its worker thread down each time: it gets the unverified answer.
      const spent = rows.filter((r) => r.attempts > maxAttempts);
      const live = rows.filter((r) => r.attempts <= maxAttempts);
      if (spent.length > 0) log.warn("address job rows gave up after repeated failures", { rows: spent.length });
      let answers: AddressVerification[];
      try {
        answers =
          live.length === 0
            ? []
            : await verifier.verifyMany(
                live.map((r) => r.input),
                { signal: bound.signal },
              );
      } catch (error) {
        // Left claimed: the lease runs out and the rows are claimed again, counting this hand-out.
        if (!stopping.signal.aborted) log.warn("address job batch failed", { rows: live.length, error: String(error) });
        return;
      }
      const results = [
        ...live.map((row, i) => ({ row, result: answers[i]! })),
        ...spent.map((row) => ({ row, result: unverifiedAnswer() })),
      ];
      const written = await store.settle(results);
      const lost = written.filter((w) => !w).length;
      log.debug("address job rows answered", { owner, rows: written.length - lost });
      if (lost > 0) log.warn("address job rows lost their lease before their results", { rows: lost });
      storeFailures.succeeded();
    } finally {
      clearInterval(renewal);
      bound.dispose();
    }
  }

  async function feed(): Promise<void> {
    while (!stopping.signal.aborted) {
      if (inFlight >= lanes) {
        await sleep(pollMs, { signal: room.signal }).catch(() => {});
        if (room.signal.aborted && !stopping.signal.aborted) room = new AbortController();
        continue;
      }
      let rows: ClaimedRow[] = [];
      try {
        rows = await store.claim(owner, { limit: batchSize, leaseMs });
        storeFailures.succeeded();
      } catch (error) {
        storeFailures.failed("warn", "address job runner could not claim rows", error);
      }
      if (stopping.signal.aborted) break;
      if (rows.length > 0) {
        inFlight++;
        const batch = runBatch(rows)
          .catch((error) => storeFailures.failed("error", "address job batch failed", error, { rows: rows.length }))
          .finally(() => {
            inFlight--;
            batches.delete(batch);
            if (!room.signal.aborted) room.abort();
          });
        batches.add(batch);
        continue;
      }
      await sleep(pollMs, { signal: nap.signal }).catch(() => {});
      if (nap.signal.aborted && !stopping.signal.aborted) nap = new AbortController();
    }
  }

  async function recover(): Promise<void> {
    try {
      const reclaimed = await store.reclaimAll();
      if (reclaimed > 0) log.info("address job rows of a stopped process reclaimed", { rows: reclaimed });
    } catch (error) {
      log.warn("address job runner could not reclaim rows at start", { error: String(error) });
    }
  }

  const running = (exclusive ? recover() : Promise.resolve())
    .then(() =>
      Promise.race([verifier.started, new Promise((resolve) => stopping.signal.addEventListener("abort", resolve))]),
    )
    .then(() => feed())
    .catch((error) => log.error("address job runner stopped claiming", { error: String(error) }))
    .then(() => Promise.all([...batches]));
  log.info("address job runner started", { owner, lanes, batch_size: batchSize });

  let stopped: Promise<void> | undefined;
  return {
    owner,
    wake() {
      nap.abort();
    },
    stop() {
      stopped ??= (async () => {
        stopping.abort();
        nap.abort();
        room.abort();
        const grace = deadline(stopTimeoutMs, { what: "stop the address job runner" });
        await Promise.race([running, new Promise((resolve) => grace.signal.addEventListener("abort", resolve))]);
        grace.dispose();
        const released = await store.release(owner);
        log.info("address job runner stopped", { owner, released });
      })();
      return stopped;
    },
  };
}
