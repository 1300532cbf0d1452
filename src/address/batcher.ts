// Micro-batching in front of the pool: the verify() calls that arrive during one turn of the event loop travel to
// the worker threads together, a few dozen per task. A match costs tens of microseconds and a piscina hand-over
// about as much, so under load one hand-over per batch instead of per call multiplies throughput; a lone call still
// leaves at the next turn (setImmediate), so an idle server adds no waiting.
import type { AddressInput, AddressVerification } from "./types.ts";

export type RunBatch = (inputs: AddressInput[]) => Promise<AddressVerification[]>;

interface Pending {
  input: AddressInput;
  resolve: (v: AddressVerification) => void;
  reject: (e: unknown) => void;
  signal: AbortSignal | undefined;
}

export interface BatcherOptions {
  /** Largest batch sent as one task. */
  maxBatch?: number;
}

export class Batcher {
  readonly #run: RunBatch;
  readonly #maxBatch: number;
  #queue: Pending[] = [];
  #scheduled = false;

  constructor(run: RunBatch, options: BatcherOptions = {}) {
    const { maxBatch = 32 } = options;
    if (!Number.isInteger(maxBatch) || maxBatch < 1)
      throw new RangeError(`Cannot batch addresses: maxBatch must be >= 1, got ${maxBatch}`);
    this.#run = run;
    this.#maxBatch = maxBatch;
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
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#scheduled = false;
    // Calls aborted while waiting are not sent at all.
    const queue = this.#queue.filter((p) => !p.signal?.aborted);
    this.#queue = [];
    for (let i = 0; i < queue.length; i += this.#maxBatch) {
      const batch = queue.slice(i, i + this.#maxBatch);
      this.#run(batch.map((p) => p.input)).then(
        (results) => {
          for (const [k, p] of batch.entries()) p.resolve(results[k]!);
        },
        (err: unknown) => {
          for (const p of batch) p.reject(err);
        },
      );
    }
  }
}
