// The piscina pool of address matchers. The index buffers and reference tables go to every thread through
// workerData: SharedArrayBuffers are shared, not cloned, so N threads read one copy of the index.
import { Piscina } from "piscina";
import type { ChunkSlice } from "./chunk_answers.ts";
import type { SharedMatcherData } from "./match.ts";
import type { AddressInput } from "./types.ts";
import { workerModule } from "../paths.ts";

/**
 * Tasks each thread holds at once, of each kind: the batcher keeps threads × this many batches of single calls in the
 * pool (batcher.ts), and the service's bulk slots as many slices of bulk jobs (service.ts verifySlice), so that a single
 * call waits behind at most this many slices on its thread. With two, a thread that ends a task starts the next one at
 * once, while the main thread answers or writes the first; with one, the thread waited for the main thread to answer
 * and send more, and each side idled while the other worked. Measured on the Paris address endpoint with two threads,
 * in interleaved rounds against one batch a thread: about 8% more requests a second (medians of 1.07, 1.07 and 1.11
 * over three runs; three batches a thread added nothing beyond the noise).
 */
export const BATCHES_PER_THREAD = 2;

/** What a thread takes (workers/match_address.ts): a batch of calls, or a slice of a bulk job's chunk. */
export type MatchTask = { inputs: AddressInput[] } | { slice: ChunkSlice };

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
    // Tasks are batches of matches, BATCHES_PER_THREAD per thread in flight (batcher.ts): the calls that arrive
    // meanwhile wait in the batcher and leave together, rather than as more tasks queued here.
    concurrentTasksPerWorker: BATCHES_PER_THREAD,
    idleTimeout: Infinity,
  });
}
