// Adaptive batching in front of the pool. A match costs tens of microseconds; a piscina hand-over costs the main thread
// a structured clone each way and two wake-ups (the thread's, then its answer's), which on a busy machine cost as much
// as the match or more, and the main thread also parses and answers every HTTP request. So the batcher keeps at most
// `maxInFlight` batches in the pool (two per thread: pool.ts) and lets the calls that arrive meanwhile queue; when
// a batch comes back, everything queued leaves at once, shared out over the free slots. Batches grow with the load by
// themselves: on an idle server a lone call leaves at the next turn of the event loop (setImmediate), on a busy one a
// hand-over carries as many calls as arrived while the threads worked.
import type { AddressInput, AddressVerification } from "./types.ts";

export type RunBatch = (inputs: AddressInput[]) => Promise<AddressVerification[]>;

interface Pending {
  input: AddressInput;
  resolve: (v: AddressVerification) => void;
  reject: (e: unknown) => void;
  signal: AbortSignal | undefined;
}

export interface BatcherOptions {
  /** Largest batch sent as one task: bounds the wait of a batch's first call behind the others. */
  maxBatch?: number;
  /** Batches in the pool at once; the calls beyond wait here for the next free slot. */
  maxInFlight?: number;
}

export class Batcher {
  readonly #run: RunBatch;
  readonly #maxBatch: number;
  readonly #maxInFlight: number;
  #queue: Pending[] = [];
  #inFlight = 0;
  #scheduled = false;

  constructor(run: RunBatch, options: BatcherOptions = {}) {
    const { maxBatch = 256, maxInFlight = 2 } = options;
    if (!Number.isInteger(maxBatch) || maxBatch < 1)
      throw new RangeError(`Cannot batch addresses: maxBatch must be >= 1, got ${maxBatch}`);
    if (!Number.isInteger(maxInFlight) || maxInFlight < 1)
      throw new RangeError(`Cannot batch addresses: maxInFlight must be >= 1, got ${maxInFlight}`);
    this.#run = run;
    this.#maxBatch = maxBatch;
    this.#maxInFlight = maxInFlight;
  }

  /** Resolves with this input's answer; rejects at once with the signal's reason when it aborts first. */
  submit(input: AddressInput, options: { signal?: AbortSignal } = {}): Promise<AddressVerification> {
    const { signal } = options;
    signal?.throwIfAborted();
    return new Promise<AddressVerification>((resolve, reject) => {
      const pending: Pending = { input, resolve, reject, signal };
      if (signal) {
        const onAbort = () => reject(signal.reason);
        signal.addEventListener("abort", onAbort, { once: true });
        pending.resolve = (v) => {
          signal.removeEventListener("abort", onAbort);
          resolve(v);
        };
        pending.reject = (e) => {
          signal.removeEventListener("abort", onAbort);
          reject(e);
        };
      }
      this.#queue.push(pending);
      this.#schedule();
    });
  }

  /** A flush at the next turn when a slot is free, so that the calls of this turn leave together. */
  #schedule(): void {
    if (this.#scheduled || this.#inFlight >= this.#maxInFlight || this.#queue.length === 0) return;
    this.#scheduled = true;
    setImmediate(() => this.#flush());
  }

  #flush(): void {
    this.#scheduled = false;
    // Calls aborted while waiting are not sent at all.
    const queue = this.#queue.filter((p) => !p.signal?.aborted);
    const free = this.#maxInFlight - this.#inFlight;
    const size = Math.min(this.#maxBatch, Math.ceil(queue.length / free));
    const sent = Math.min(queue.length, size * free);
    this.#queue = queue.slice(sent);
    for (let i = 0; i < sent; i += size) this.#send(queue.slice(i, i + size));
  }

  #send(batch: Pending[]): void {
    this.#inFlight++;
    this.#run(batch.map((p) => p.input))
      .then(
        (results) => {
          for (const [k, p] of batch.entries()) p.resolve(results[k]!);
        },
        (err: unknown) => {
          for (const p of batch) p.reject(err);
        },
      )
      .finally(() => {
        this.#inFlight--;
        this.#schedule();
      });
  }
}
