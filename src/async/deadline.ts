// Time limits that hold on every Node version. On Node 20, a signal from AbortSignal.any() that combines an
// AbortSignal.timeout() is held weakly and silently never fires once a garbage collection has run
// (nodejs/node#57736): a probe waiting on it waits for ever. A Deadline is a plain AbortController aborted by a plain
// setTimeout: the timer holds the controller, each parent's listener holds it too, and dispose() clears both, so
// nothing can be collected away while the wait is pending and nothing outlives it.
//
// Many deadlines hang on one parent (every DNS query of a bulk job on the MX lookup's shared signal, every batch on the
// runner's stop signal): a parent gets one listener, which ends every deadline waiting on it. A listener per deadline
// made node warn past ten of them (MaxListenersExceededWarning, in plain text among the JSON log lines), and cost
// O(n) per add and remove in EventTarget.
import { setMaxListeners } from "node:events";

export interface Deadline {
  /** Aborts after the time limit (reason: a TimeoutError DOMException) or with the first parent that aborts. */
  readonly signal: AbortSignal;
  /** Clears the timer and the parents' listeners. Call it when the wait ends, whichever way it ended. */
  dispose(): void;
}

export interface DeadlineOptions {
  /** Signals whose abort ends the wait too (the caller's, an outer deadline); their reason is kept. */
  parents?: ReadonlyArray<AbortSignal | undefined>;
  /** What is waited for, for the TimeoutError's message. */
  what?: string;
}

/** The reason a Deadline aborts with when its time is up: the same kind AbortSignal.timeout() uses. */
export function timeoutReason(what = "operation", ms?: number): DOMException {
  return new DOMException(`Cannot ${what}: timed out${ms === undefined ? "" : ` after ${ms} ms`}`, "TimeoutError");
}

/** True when an abort reason says the time ran out (from a Deadline or AbortSignal.timeout), not that someone gave up. */
export function isTimeoutReason(reason: unknown): boolean {
  return (reason as { name?: unknown } | null | undefined)?.name === "TimeoutError";
}

/** The deadlines waiting on one parent signal, and the parent's single listener that ends them. */
interface Waiters {
  ends: Set<(reason: unknown) => void>;
  onAbort: () => void;
}

const waitersOf = new WeakMap<AbortSignal, Waiters>();

/** Calls `end` with the parent's reason when it aborts; the function returned stops waiting. */
function waitOn(parent: AbortSignal, end: (reason: unknown) => void): () => void {
  let waiters = waitersOf.get(parent);
  if (waiters === undefined) {
    const ends = new Set<(reason: unknown) => void>();
    const onAbort = () => {
      waitersOf.delete(parent);
      for (const each of [...ends]) each(parent.reason);
      ends.clear();
    };
    waiters = { ends, onAbort };
    waitersOf.set(parent, waiters);
    parent.addEventListener("abort", onAbort, { once: true });
  }
  const { ends, onAbort } = waiters;
  ends.add(end);
  return () => {
    ends.delete(end);
    if (ends.size === 0 && waitersOf.get(parent) === waiters) {
      waitersOf.delete(parent);
      parent.removeEventListener("abort", onAbort);
    }
  };
}

/** Starts a deadline `ms` from now (at least 0), also ended by any parent. */
export function deadline(ms: number, options: DeadlineOptions = {}): Deadline {
  const { parents = [], what } = options;
  if (!Number.isFinite(ms)) throw new RangeError(`Cannot start a deadline: ms must be a finite number, got ${ms}`);
  const controller = new AbortController();
  // Many reads of one dialogue listen in turn, and bulk work hangs many waits on one parent: not a leak.
  setMaxListeners(0, controller.signal);
  const listening: Array<() => void> = [];
  let timer: NodeJS.Timeout | undefined;
  const dispose = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    for (const stopWaiting of listening.splice(0)) stopWaiting();
  };
  const end = (reason: unknown) => {
    dispose();
    controller.abort(reason);
  };
  for (const parent of parents) {
    if (parent === undefined) continue;
    if (parent.aborted) {
      end(parent.reason);
      return { signal: controller.signal, dispose };
    }
    listening.push(waitOn(parent, end));
  }
  const limit = Math.max(0, Math.round(ms));
  timer = setTimeout(() => end(timeoutReason(what, limit)), limit);
  return { signal: controller.signal, dispose };
}

/**
 * Settles with `work`, or with "aborted" as soon as `signal` aborts, whichever comes first: a wait that ignores its
 * signal must not hold the answer past the deadline. The work goes on; the caller decides what to do with it.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T | "aborted"> {
  if (signal.aborted) {
    work.catch(() => {}); // its failure no longer concerns anyone
    return Promise.resolve("aborted");
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve("aborted");
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first; the timer is cleared either way. */
export function sleep(ms: number, options: { signal?: AbortSignal } = {}): Promise<void> {
  const { signal } = options;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
