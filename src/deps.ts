// Builds what every process needs before it can authenticate a call: database, plans, keys and limits. main.ts and
// the tests add the engines and the job queue to make the Services.
import type { Config } from "./config.ts";
import { loadPlans } from "./accounts/plans.ts";
import { createKeyCache } from "./auth/key_cache.ts";
import { createFailedAuthLimiter } from "./limits/failed_auth_limiter.ts";
import { createMemoryRateLimiter } from "./limits/memory_rate_limiter.ts";
import { createPostgresRateLimiter } from "./limits/postgres_rate_limiter.ts";
import { QuotaLedger } from "./limits/quota.ts";
import { createExclusiveQuotaSettler } from "./limits/exclusive_quota_settler.ts";
import { createSharedQuotaSettler } from "./limits/shared_quota_settler.ts";
import { openDatabase, openDatabaseWhenReachable, type Database } from "./store/db.ts";
import { DatabaseNotReadyError } from "./store/unavailable.ts";
import type { Logger } from "./log.ts";
import type { Services } from "./services.ts";

export interface CoreServices {
  db: Database;
  plans: Services["plans"];
  keys: Services["keys"];
  rate: Services["rate"];
  failedAuth: Services["failedAuth"];
  quota: QuotaLedger;
}

export interface BuildCoreOptions {
  /** PostgreSQL schema to keep every table in (tests). */
  schema?: string;
  /**
   * Set: a PostgreSQL unreachable at start does not fail it; the database is tried again in the background (its
   * retries logged here) and calls are refused 503 until it is ready (`db.ready`). Unset: open it or throw.
   */
  waitForDatabase?: { log: Logger };
}

/** Database, plans, keys and limits: what every process needs before it can authenticate a call. */
export async function buildCore(config: Config, options: BuildCoreOptions = {}): Promise<CoreServices> {
  const { schema, waitForDatabase } = options;
  const plans = loadPlans(config.plansFile);
  const opening = { schema, queryTimeoutMs: config.dbQueryTimeoutMs };
  const db = waitForDatabase
    ? await openDatabaseWhenReachable(config, { ...opening, log: waitForDatabase.log })
    : await openDatabase(config, opening);
  const keys = createKeyCache(db.sql);
  return {
    db,
    plans,
    // Every call that needs the database looks its key up first: until the database is ready, that is where it stops.
    keys: {
      mayBeValid: (key) => {
        const reason = db.unready;
        return reason === undefined ? keys.mayBeValid(key) : Promise.reject(new DatabaseNotReadyError(reason));
      },
      resolve: (key) => {
        const reason = db.unready;
        return reason === undefined ? keys.resolve(key) : Promise.reject(new DatabaseNotReadyError(reason));
      },
    },
    // One process owns the embedded database, so memory buckets and counters are exact there; processes sharing a
    // PostgreSQL must draw from the same buckets and lock the same quota rows.
    rate: db.kind === "embedded" ? createMemoryRateLimiter() : createPostgresRateLimiter(db.sql),
    // Per process even on a shared PostgreSQL: a flood is cut off by each process it reaches, at no database cost.
    failedAuth: createFailedAuthLimiter({ perMinute: config.authFailuresPerMinute }),
    quota: new QuotaLedger(
      db.sql,
      db.kind === "embedded" ? createExclusiveQuotaSettler(db.sql) : createSharedQuotaSettler(db.sql),
    ),
  };
}
