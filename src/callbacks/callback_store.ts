// The delivery state of completion callbacks (table job_callbacks, one row per job that asked for one). A callback
// is due once its job has ended (completed or failed, whatever kind of job it is) and its next attempt has come; a
// deliverer leases it for the length of one POST, as the runner leases job items, so that two processes never send
// it at once and one that dies mid-POST leaves it to the next once its lease runs out. Each attempt is counted when
// it is claimed, so a callback that kills its deliverer still runs out of attempts.
import type { PendingQuery, Row } from "postgres";
import type { Sql } from "../store/db.ts";

/** A callback's life: pending (its job runs, or a next attempt is due), then delivered, or failed (given up). */
export const CALLBACK_STATES = ["pending", "delivered", "failed"] as const;
export type CallbackState = (typeof CALLBACK_STATES)[number];

/** A callback as the job read shows it. */
export interface JobCallback {
  url: string;
  state: CallbackState;
  /** POSTs started so far. */
  attempts: number;
  /** The HTTP status of the last attempt; null when none came back (refused, time-out, connection error). */
  last_status: number | null;
  /** Why the last attempt failed, in words; null when it did not. */
  last_error: string | null;
  /** When the next attempt is due, once the job has ended and while the callback is pending; null otherwise. */
  next_attempt_at: string | null;
  delivered_at: string | null;
}

/** A callback claimed for one attempt; hand it back to record(). */
export interface DueCallback {
  owner: string;
  jobId: string;
  accountId: string;
  url: string;
  /** Attempts started, this one included. */
  attempts: number;
}

export interface AttemptOutcome {
  /** A 2xx came back. */
  delivered: boolean;
  /** The HTTP status received, or null. */
  status: number | null;
  /** Why the attempt failed, or null. */
  error: string | null;
  /** No further attempt can change the answer (the target is refused): give up now. */
  final?: boolean;
  /** Wait before the next attempt when this one failed. */
  retryInMs: number;
}

export interface ClockOption {
  now?: Date;
}

export interface CallbackStore {
  /** Leases up to `limit` callbacks that are due, oldest first, and counts their attempt. */
  claim(owner: string, options: { limit: number; leaseMs: number } & ClockOption): Promise<DueCallback[]>;
  /**
   * Writes an attempt's outcome while the lease is still the claimer's; the callback fails for good when the next
   * attempt would come later than `giveUpAfterMs` after its first. Answers whether it was written.
   */
  record(
    callback: DueCallback,
    outcome: AttemptOutcome,
    options: { giveUpAfterMs: number } & ClockOption,
  ): Promise<boolean>;
  /** Hands back every callback the owner holds (a graceful stop): its attempt does not count. */
  release(owner: string): Promise<number>;
  /**
   * Hands back the callbacks of every owner, their attempt counted. Only for a database one process owns (the
   * embedded one): whatever is leased at start was leased by a process that died.
   */
  reclaimAll(): Promise<number>;
}

/**
 * The job read's `callback` member as one jsonb column of a statement over `jobs j` (null when the job has none):
 * the job read stays one query. Times travel as epoch milliseconds and are written by callbackOf().
 */
export function callbackColumn(sql: Sql): PendingQuery<Row[]> {
  return sql`(select jsonb_build_object(
      'url', c.url, 'state', c.state, 'attempts', c.attempts, 'last_status', c.last_status, 'last_error', c.last_error,
      'next_attempt_at', case when c.state = 'pending' and j.status in ('completed', 'failed')
                              then floor(extract(epoch from c.next_attempt_at) * 1000) end,
      'delivered_at', floor(extract(epoch from c.delivered_at) * 1000))
    from job_callbacks c where c.job_id = j.id) as callback`;
}

/** The `callback` member from callbackColumn(), or undefined when the job asked for none. */
export function callbackOf(value: unknown): JobCallback | undefined {
  if (value === null || value === undefined) return undefined;
  const c = value as Omit<JobCallback, "next_attempt_at" | "delivered_at"> & {
    next_attempt_at: number | null;
    delivered_at: number | null;
  };
  const iso = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());
  return {
    url: c.url,
    state: c.state,
    attempts: c.attempts,
    last_status: c.last_status,
    last_error: c.last_error,
    next_attempt_at: iso(c.next_attempt_at),
    delivered_at: iso(c.delivered_at),
  };
}

export function createCallbackStore(sql: Sql): CallbackStore {
  /** "Now" in a statement: the test's clock when given, else the database's, one clock for every process. */
  const clock = (now: Date | undefined) => sql`coalesce(${now ?? null}::timestamptz, clock_timestamp())`;

  async function claim(
    owner: string,
    options: { limit: number; leaseMs: number } & ClockOption,
  ): Promise<DueCallback[]> {
    const { limit, leaseMs, now } = options;
    if (!Number.isInteger(limit) || limit < 1)
      throw new RangeError(`Cannot claim callbacks: limit must be >= 1, got ${limit}`);
    if (!(leaseMs > 0)) throw new RangeError(`Cannot claim callbacks: leaseMs must be > 0, got ${leaseMs}`);
    // SKIP LOCKED lets two deliverers pass each other's rows; a row leased meanwhile fails the WHERE clause, which
    // PostgreSQL checks again on the row it locks.
    const rows = await sql`
      with t as (select ${clock(now)} as now),
      picked as (
        select c.job_id from job_callbacks c
        where c.state = 'pending' and c.next_attempt_at <= (select now from t)
          and (c.lease_until is null or c.lease_until <= (select now from t))
          and exists (select 1 from jobs j where j.id = c.job_id and j.status in ('completed', 'failed'))
        order by c.next_attempt_at
        limit ${limit}
        for update of c skip locked
      )
      update job_callbacks c
      set lease_owner = ${owner},
          lease_until = t.now + ${leaseMs}::double precision * interval '1 millisecond',
          attempts = c.attempts + 1,
          first_attempt_at = coalesce(c.first_attempt_at, t.now)
      from picked, t
      where c.job_id = picked.job_id
      returning c.job_id, c.url, c.attempts, (select j.account_id from jobs j where j.id = c.job_id) as account_id`;
    return rows.map((r) => ({
      owner,
      jobId: r.job_id as string,
      accountId: r.account_id as string,
      url: r.url as string,
      attempts: r.attempts as number,
    }));
  }

  async function record(
    callback: DueCallback,
    outcome: AttemptOutcome,
    options: { giveUpAfterMs: number } & ClockOption,
  ): Promise<boolean> {
    const { giveUpAfterMs, now } = options;
    const { delivered, status, error, final = false } = outcome;
    const retryInMs = Math.max(0, outcome.retryInMs);
    const rows = await sql`
      with t as (select ${clock(now)} as now)
      update job_callbacks c
      set state = case when ${delivered}::boolean then 'delivered'
                       when ${final}::boolean
                         or t.now + ${retryInMs}::double precision * interval '1 millisecond'
                            > c.first_attempt_at + ${giveUpAfterMs}::double precision * interval '1 millisecond'
                       then 'failed'
                       else 'pending' end,
          last_status = ${status},
          last_error = ${error},
          delivered_at = case when ${delivered}::boolean then t.now end,
          next_attempt_at = case when ${delivered}::boolean then c.next_attempt_at
                                 else t.now + ${retryInMs}::double precision * interval '1 millisecond' end,
          lease_owner = null, lease_until = null
      from t
      where c.job_id = ${callback.jobId} and c.lease_owner = ${callback.owner} and c.state = 'pending'
      returning 1`;
    return rows.length === 1;
  }

  async function release(owner: string): Promise<number> {
    const rows = await sql`
      update job_callbacks
      set lease_owner = null, lease_until = null, attempts = greatest(attempts - 1, 0)
      where lease_owner = ${owner} and state = 'pending'
      returning 1`;
    return rows.length;
  }

  async function reclaimAll(): Promise<number> {
    const rows = await sql`
      update job_callbacks set lease_owner = null, lease_until = null
      where lease_owner is not null and state = 'pending'
      returning 1`;
    return rows.length;
  }

  return { claim, record, release, reclaimAll };
}
