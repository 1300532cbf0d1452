// The piscina pool of address matchers. The index buffers and reference tables go to every thread through
// workerData: SharedArrayBuffers are shared, not cloned, so N threads read one copy of the index.
import { Piscina } from "piscina";
import type { SharedMatcherData } from "./match.ts";
import { workerModule } from "../paths.ts";

export interface MatchPoolOptions {
  threads: number;
}

/** Starts `threads` worker threads on workers/match_address.ts (compiled, or through tsx: paths.ts). */
export function createMatchPool(data: SharedMatcherData, options: MatchPoolOptions): Piscina {
  const { threads } = options;
  if (!Number.isInteger(threads) || threads < 1)
    throw new RangeError(`Cannot start address pool: threads must be >= 1, got ${threads}`);
  const entry = workerModule("workers/match_address.ts");
  return new Piscina({
    filename: entry.filename.href,
    workerData: { ...entry.workerData, ...data },
    minThreads: threads,
    maxThreads: threads,
    // Tasks are batches of matches (batcher.ts); letting each thread hold a few queued ones keeps it busy while the
    // main thread prepares the next (measured: about twice the throughput of 1 on 2 threads).
    concurrentTasksPerWorker: 4,
    idleTimeout: Infinity,
  });
}
