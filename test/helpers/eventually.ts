// The one way tests and benches wait for something outside their control (a server coming up, a job ending, a cache
// entry running out): poll a probe on an interval, within a bounded total time, and fail saying what was awaited and
// what was last seen.
import { setTimeout as sleep } from "node:timers/promises";

export interface EventuallyOptions<T> {
  /** When the probe's value is what was awaited; by default, when it is truthy. */
  until?: (value: T) => boolean;
  /** No probe starts later than this after the first one. */
  timeoutMs?: number;
  /** Time between the end of one probe and the start of the next. */
  intervalMs?: number;
  /** A probe that has not settled after this fails the wait (a probe that hangs must not hold the test). */
  probeTimeoutMs?: number;
  /** How the failure message shows the last value seen; JSON by default. */
  describe?: (value: T) => string;
}

/**
 * Calls `probe` until `until` holds for its value, and resolves to that value. A probe that throws counts as "not
 * yet" (its error is what was last seen). Rejects with an `Error` naming `waitingFor`, the time waited, the number of
 * probes and the last value or error once `timeoutMs` has passed.
 *
 * @example
 * const job = await eventually("the job to complete", () => store.read(account, jobId), {
 *   until: (job) => job?.status === "completed",
 *   timeoutMs: 15_000,
 * });
 */
export async function eventually<T>(
  waitingFor: string,
  probe: () => T | Promise<T>,
  options: EventuallyOptions<T> = {},
): Promise<T> {
  const {
    until = (value: T) => Boolean(value),
    timeoutMs = 5000,
    intervalMs = 50,
    probeTimeoutMs = 10_000,
    describe = (value: T) => JSON.stringify(value) ?? String(value),
  } = options;
  for (const [name, value] of Object.entries({ timeoutMs, intervalMs, probeTimeoutMs })) {
    if (!(Number.isFinite(value) && value >= 0)) {
      throw new RangeError(`Cannot wait for ${waitingFor}: ${name} must be a non-negative number, got ${value}`);
    }
  }
  const started = Date.now();
  const deadline = started + timeoutMs;
  let probes = 0;
  let last = "no probe has settled";
  for (;;) {
    probes++;
    const outcome = await settle(probe, probeTimeoutMs);
    if (outcome.kind === "value") {
      if (until(outcome.value)) return outcome.value;
      last = describe(outcome.value);
    } else if (outcome.kind === "error") {
      last = `error: ${outcome.error instanceof Error ? outcome.error.message : String(outcome.error)}`;
    } else {
      last = `a probe still pending after ${probeTimeoutMs} ms`;
      break;
    }
    const left = deadline - Date.now();
    if (left <= 0) break;
    await sleep(Math.min(intervalMs, left));
  }
  throw new Error(
    `Timed out waiting for ${waitingFor}: ${Date.now() - started} ms, ${probes} probe(s), last saw ${last}`,
  );
}

type Settled<T> = { kind: "value"; value: T } | { kind: "error"; error: unknown } | { kind: "pending" };

async function settle<T>(probe: () => T | Promise<T>, ms: number): Promise<Settled<T>> {
  const controller = new AbortController();
  const pending = sleep(ms, { kind: "pending" } as const, { signal: controller.signal }).catch(
    () => ({ kind: "pending" }) as const,
  );
  try {
    return await Promise.race([
      (async () => ({ kind: "value", value: await probe() }) as const)().catch(
        (error: unknown) => ({ kind: "error", error }) as const,
      ),
      pending,
    ]);
  } finally {
    controller.abort();
  }
}
