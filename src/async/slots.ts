// A counting semaphore: at most `size` holders at once, the others wait in arrival order. A wait ends early when its
// signal aborts (rejecting with the signal's reason); a slot is handed straight to the next waiter on release.

export class Slots {
  readonly #size: number;
  #held = 0;
  readonly #waiting: Array<{ grant: () => void }> = [];

  constructor(size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`Cannot make slots: size must be >= 1, got ${size}`);
    this.#size = size;
  }

  /** Runs `work` holding a slot; the slot is released when it settles. */
  async run<T>(work: () => Promise<T>, options: { signal?: AbortSignal } = {}): Promise<T> {
    await this.#acquire(options.signal);
    try {
      return await work();
    } finally {
      this.#release();
    }
  }

  #acquire(signal: AbortSignal | undefined): Promise<void> {
    signal?.throwIfAborted();
    if (this.#held < this.#size) {
      this.#held++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter = {
        grant: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        const at = this.#waiting.indexOf(waiter);
        if (at >= 0) this.#waiting.splice(at, 1);
        reject(signal!.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiting.push(waiter);
    });
  }

  #release(): void {
    const next = this.#waiting.shift();
    // The slot passes to the next waiter as it is: the count of holders does not change.
    if (next !== undefined) next.grant();
    else this.#held--;
  }
}
