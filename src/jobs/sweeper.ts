// Deletes every row of a bulk job 48 hours after its submission (the spec's retention promise). Reads already treat
// an expired job as not found, so the sweep only has to catch up, not to be punctual. Safe to run in every process:
// a delete of the same rows by two sweepers is harmless.
import type { Logger } from "../log.ts";
import type { Sql } from "../store/db.ts";
import { createJobStore } from "./job_store.ts";

export interface SweeperOptions {
  sql: Sql;
  log: Logger;
  /** Time between sweeps; the first runs at start. */
  intervalMs?: number;
  /** The clock, for tests; by default the database's. */
  now?: () => Date;
}

export interface Sweeper {
  /** Runs one sweep now; resolves to the number of jobs deleted. */
  sweepNow(): Promise<number>;
  stop(): Promise<void>;
}

export function startSweeper(options: SweeperOptions): Sweeper {
  const { sql, log, intervalMs = 10 * 60_000, now } = options;
  if (!(Number.isFinite(intervalMs) && intervalMs > 0)) {
    throw new RangeError(`Cannot start the job sweeper: intervalMs must be a positive number, got ${intervalMs}`);
  }
  const store = createJobStore(sql);
  let inFlight: Promise<number> = Promise.resolve(0);

  function sweepNow(): Promise<number> {
    // One sweep at a time: a slow delete is not overlapped by the next tick.
    inFlight = inFlight.then(async () => {
      try {
        const deleted = await store.sweep(now ? { now: now() } : {});
        if (deleted > 0) log.info("expired jobs deleted", { jobs: deleted });
        return deleted;
      } catch (error) {
        log.warn("job sweep failed", { error: String(error) });
        return 0;
      }
    });
    return inFlight;
  }

  void sweepNow();
  const timer = setInterval(() => void sweepNow(), intervalMs);
  timer.unref(); // never keeps the process alive on its own

  return {
    sweepNow,
    async stop() {
      clearInterval(timer);
      await inFlight;
    },
  };
}
