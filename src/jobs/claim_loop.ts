// The loop both bulk runners (email items, address chunks) turn: claim work whenever a window of units in flight has
// room, run each claimed batch without waiting for the others, nap when the queue is empty (cut short by wake()),
// and on stop() let the batches in flight notice the abort for a while, then hand back whatever is still held. What a
// batch is and how it runs is the runner's; its units leave the window through settled().
import { deadline, sleep } from "../async/deadline.ts";
import type { Logger } from "../log.ts";
import type { StoreOutageLog } from "./store_outage_log.ts";

export interface ClaimLoopOptions<T> {
  /** Names the loop in its log lines: "job runner", "address job runner". */
  name: string;
  /** What it claims, in its log lines: "items", "rows". */
  unit: string;
  owner: string;
  log: Logger;
  storeFailures: StoreOutageLog;
  /** Aborted by stop(): the runner's batches listen to it. */
  stopping: AbortController;
  pollMs: number;
  stopTimeoutMs: number;
  /** Units (items, chunks) held at once, at most. */
  window: number;
  /** Units claimed at a time, at most. */
  claimSize: number;
  claim(limit: number): Promise<T[]>;
  /** Runs a claimed batch; its units leave the window as the runner calls settled(). */
  run(batch: T[]): Promise<void>;
  /** A batch that failed as a whole (a database failure mid-batch): its leases run out, the loop lives on. */
  runFailed(error: unknown, batch: T[]): void;
  /** Hands back every unit the owner holds; answers how many. */
  release(): Promise<number>;
  /**
   * Given on a database one process owns (the embedded one): hands back, before the first claim, every unit any
   * owner holds, left by a process that died; answers how many.
   */
  reclaimAll?: () => Promise<number>;
  /** Settles before the first claim (the verifier's readiness); stop() cuts it short. */
  ready?: Promise<unknown>;
  /** Logged with the start line. */
  fields?: Record<string, unknown>;
}

export interface ClaimLoop {
  /** Looks for work now instead of at the next poll. */
  wake(): void;
  /** `n` units left the window (answered or given back). */
  settled(n: number): void;
  stop(): Promise<void>;
}

export function startClaimLoop<T>(options: ClaimLoopOptions<T>): ClaimLoop {
  const { name, unit, owner, log, storeFailures, stopping, pollMs, stopTimeoutMs, window, claimSize } = options;
  let nap = new AbortController(); // aborted by wake() and stop() to cut an idle wait short
  let room = new AbortController(); // aborted when settled units make room for another batch, and by stop()
  let inFlight = 0;
  const batches = new Set<Promise<void>>();

  /** Claims a batch whenever the window has room for one, and runs it without waiting for the others. */
  async function feed(): Promise<void> {
    while (!stopping.signal.aborted) {
      if (inFlight + claimSize > window) {
        // Woken as answers are written; the poll is a backstop (a timer of ours, cleared when woken).
        await sleep(pollMs, { signal: room.signal }).catch(() => {});
        if (room.signal.aborted && !stopping.signal.aborted) room = new AbortController();
        continue;
      }
      let claimed: T[] = [];
      try {
        claimed = await options.claim(claimSize);
        storeFailures.succeeded();
      } catch (error) {
        storeFailures.failed("warn", `${name} could not claim ${unit}`, error);
      }
      if (stopping.signal.aborted) break; // stop() releases what was just claimed
      if (claimed.length > 0) {
        inFlight += claimed.length;
        const batch = options.run(claimed).catch((error) => options.runFailed(error, claimed));
        batches.add(batch);
        void batch.finally(() => batches.delete(batch));
        continue;
      }
      await sleep(pollMs, { signal: nap.signal }).catch(() => {});
      if (nap.signal.aborted && !stopping.signal.aborted) nap = new AbortController();
    }
  }

  async function recover(): Promise<void> {
    if (options.reclaimAll === undefined) return;
    try {
      const reclaimed = await options.reclaimAll();
      if (reclaimed > 0) log.info(`${name}: ${unit} of a stopped process reclaimed`, { [unit]: reclaimed });
    } catch (error) {
      log.warn(`${name} could not reclaim ${unit} at start`, { error: String(error) });
    }
  }

  const stopped = new Promise((resolve) => stopping.signal.addEventListener("abort", resolve, { once: true }));
  const running = Promise.race([recover().then(() => options.ready), stopped])
    .then(() => feed())
    .catch((error) => log.error(`${name} stopped claiming`, { error: String(error) }))
    .then(() => Promise.all([...batches]));
  log.info(`${name} started`, { owner, ...options.fields });

  let stopDone: Promise<void> | undefined;
  return {
    wake() {
      nap.abort();
    },
    settled(n) {
      inFlight -= n;
      // Aborted once per wait: abort() makes a new DOMException each call, thousands of times a job otherwise.
      if (inFlight + claimSize <= window && !room.signal.aborted) room.abort();
    },
    stop() {
      stopDone ??= (async () => {
        stopping.abort();
        nap.abort();
        room.abort();
        const grace = deadline(stopTimeoutMs, { what: `stop the ${name}` });
        await Promise.race([running, new Promise((resolve) => grace.signal.addEventListener("abort", resolve))]);
        grace.dispose();
        let released: number | undefined;
        try {
          released = await options.release();
        } catch (error) {
          // The database is gone or not answering: nothing is lost, what is held returns to the queue with its lease.
          log.warn(`${name}: ${unit} left to their lease`, { owner, error: String(error) });
        }
        log.info(`${name} stopped`, { owner, released });
      })();
      return stopDone;
    },
  };
}
