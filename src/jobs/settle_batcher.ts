// Group commit of bulk item outcomes: results and deferrals that arrive while one settle statement is being written
// wait together and go in the next one, so a 5000-address job costs tens of statements instead of 5000, each item's
// write still checks its own lease, and a caller learns that its item is written only once the statement that holds
// it has committed (nothing acknowledged is lost to a kill).
import type { JobStore, Settlement } from "./job_store.ts";

export interface SettleBatcherOptions {
  /** Settlements in one statement at most; more wait for the next. */
  maxBatch?: number;
}

export interface SettleBatcher {
  /** Resolves once the settlement is committed: true when it was written (the lease was still its owner's). */
  settle(settlement: Settlement): Promise<boolean>;
}

interface Queued {
  settlement: Settlement;
  resolve(written: boolean): void;
  reject(error: unknown): void;
}

/**
 * One statement at a time per batcher: the first settlement waits for the end of the current event-loop turn (so
 * that answers arriving together leave together), later ones for the statement in flight.
 */
export function createSettleBatcher(
  store: Pick<JobStore, "settle">,
  options: SettleBatcherOptions = {},
): SettleBatcher {
  const { maxBatch = 1000 } = options;
  if (!(Number.isInteger(maxBatch) && maxBatch >= 1)) {
    throw new RangeError(`Cannot create the settle batcher: maxBatch must be an integer >= 1, got ${maxBatch}`);
  }
  let queue: Queued[] = [];
  let writing = false;

  async function drain(): Promise<void> {
    while (queue.length > 0) {
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(batch.length);
      try {
        const written = await store.settle(batch.map((q) => q.settlement));
        for (const [i, q] of batch.entries()) q.resolve(written[i] === true);
      } catch (error) {
        for (const q of batch) q.reject(error);
      }
    }
    writing = false;
  }

  return {
    settle(settlement) {
      return new Promise<boolean>((resolve, reject) => {
        queue.push({ settlement, resolve, reject });
        if (writing) return;
        writing = true;
        setImmediate(() => void drain());
      });
    },
  };
}
