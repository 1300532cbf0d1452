// Deletes every row of a bulk job 48 hours after its submission (the spec's retention promise). Reads already treat
// an expired job as not found, so the sweep only has to catch up, not to be punctual. Safe to run in every process:
// a delete of the same rows by two sweepers is harmless. It also deletes the bulk address uploads a process left
// 'uploading' when it died mid-upload (jobs/address_upload.ts): no client got a 202 for them and nothing was charged.
import type { Logger } from "../log.ts";
import type { Sql } from "../store/db.ts";
import { sweepAbandonedUploads } from "./address_upload.ts";
import { createJobStore } from "./job_store.ts";

/**
 * An upload still 'uploading' this long after it began is one whose process died: a live one lasts no longer than
 * its request may (HTTP_REQUEST_TIMEOUT_MS, 30 s by default: the server cuts off a body that takes longer), plus the
 * short commit at its end. An hour leaves a wide margin for a slow database; meanwhile the abandoned rows are only
 * disk space (never read, worked or charged).
 */
export const ABANDONED_UPLOAD_MS = 60 * 60_000;

export interface SweeperOptions {
  sql: Sql;
  log: Logger;
  /** Time between sweeps; the first runs at start. */
  intervalMs?: number;
  /** The clock, for tests; by default the database's. */
  now?: () => Date;
  /** Age from which an upload still 'uploading' is deleted (at least the longest a request may last). */
  abandonedUploadMs?: number;
}

export interface Sweeper {
  /** Runs one sweep now; resolves to the number of jobs deleted. */
  sweepNow(): Promise<number>;
  stop(): Promise<void>;
}

export function startSweeper(options: SweeperOptions): Sweeper {
  const { sql, log, intervalMs = 10 * 60_000, now, abandonedUploadMs = ABANDONED_UPLOAD_MS } = options;
  if (!(Number.isFinite(intervalMs) && intervalMs > 0)) {
    throw new RangeError(`Cannot start the job sweeper: intervalMs must be a positive number, got ${intervalMs}`);
  }
  if (!(Number.isFinite(abandonedUploadMs) && abandonedUploadMs > 0)) {
    throw new RangeError(
      `Cannot start the job sweeper: abandonedUploadMs must be a positive number, got ${abandonedUploadMs}`,
    );
  }
  const store = createJobStore(sql);
  let inFlight: Promise<number> = Promise.resolve(0);

  function sweepNow(): Promise<number> {
    // One sweep at a time: a slow delete is not overlapped by the next tick.
    inFlight = inFlight.then(async () => {
      try {
        const clock = now ? { now: now() } : {};
        const deleted = await store.sweep(clock);
        if (deleted > 0) log.info("expired jobs deleted", { jobs: deleted });
        const abandoned = await sweepAbandonedUploads(sql, { olderThanMs: abandonedUploadMs, ...clock });
        if (abandoned > 0) log.info("abandoned address uploads deleted", { jobs: abandoned });
        return deleted + abandoned;
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
