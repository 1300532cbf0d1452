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
    // Tasks are batches of matches, one per thread in flight (batcher.ts): the calls that arrive while a thread works
    // wait in the batcher and leave together, rather than as more tasks queued here.
    concurrentTasksPerWorker: 1,
    idleTimeout: Infinity,
  });
}
