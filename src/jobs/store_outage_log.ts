// The job runner's store failures, logged without flooding: while the database is unavailable (down, stalled, disk
// full) every claim, renewal and write of every lane fails, a thousand lines a minute that say one thing. The first
// such failure of an outage is logged, the rest are counted and said once when the database answers again. Other
// failures (a bug, a constraint) are logged each time, as they were.
import type { LogFields, Logger } from "../log.ts";
import { isDatabaseUnavailable } from "../store/unavailable.ts";

export interface StoreOutageLog {
  /** Logs a failed store call: `msg` at `level`, or the outage's one line when the database is unavailable. */
  failed(level: "warn" | "error", msg: string, error: unknown, fields?: LogFields): void;
  /** A store call succeeded: ends an outage in progress, with one line. */
  succeeded(): void;
}

export function createStoreOutageLog(log: Logger): StoreOutageLog {
  let since: number | undefined;
  let silenced = 0;
  return {
    failed(level, msg, error, fields = {}) {
      if (!isDatabaseUnavailable(error)) {
        log[level](msg, { ...fields, error: String(error) });
        return;
      }
      if (since !== undefined) {
        silenced++;
        return;
      }
      since = Date.now();
      log.warn("job runner: database unavailable, items wait until it answers", { first: msg, error: String(error) });
    },
    succeeded() {
      if (since === undefined) return;
      log.info("job runner: database answers again", { ms: Date.now() - since, failures_not_logged: silenced });
      since = undefined;
      silenced = 0;
    },
  };
}
