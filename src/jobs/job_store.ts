// The bulk job table (docs/contract.md §6), the same on PGlite and PostgreSQL. Workers claim items under leases with
// SELECT ... FOR UPDATE SKIP LOCKED, so any number of processes share one queue; every write that ends an item checks
// that the lease is still the writer's, so each address gets exactly one result even when a worker dies mid-job.
//
// Time: every method takes an optional `now` (tests move the clock); without it the database clock decides, so that
// processes on several hosts compare leases against one clock.
import { randomUUID } from "node:crypto";
import type { Sql } from "../store/db.ts";
import { keptIndexes } from "./dedupe.ts";
import type { EmailVerification, Verdict } from "../email/types.ts";
import { VERDICTS } from "../email/vocabulary.ts";
import { callbackColumn, callbackOf, type JobCallback } from "../callbacks/callback_store.ts";
import { IdempotencyKeyTaken } from "./idempotency_key_taken.ts";
import {
  assertSubmittable,
  dbClock,
  expireLeases,
  isUuid,
  liveJobWhere,
  reclaimAllLeases,
  releaseLeases,
  submissionError,
} from "./job_rows.ts";

/** A job's life: queued → running → completed, or failed (spec "JobStatus"). */
export const JOB_STATUSES = ["queued", "running", "completed", "failed"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** The Job resource of the spec, as GET /v1/jobs/{id} answers it. */
export interface Job {
  job_id: string;
  status: JobStatus;
  total: number;
  processed: number;
  created_at: string;
  expires_at: string;
  failure_reason?: string;
  /** Finished results so far, counted by verdict (every verdict present, 0 when none), and the retries awaited. */
  summary: JobSummary;
  /** The completion callback the job was submitted with, and where its delivery stands; absent when none. */
  callback?: JobCallback;
  /** Finished items only, in submission order: partial while the job runs (one page of them when asked). */
  results: EmailVerification[];
}

/**
 * The summary extension of a job read. `processed` (the spec's) counts only final answers, so a job whose items wait
 * out a retry cool-off (a greylisting server, a tarpit, a silent DNS) would look stuck at 0: `retrying` says how many
 * items were handed out before and wait to be tried again, `next_retry_at` when the first of them is due (never
 * before the read: an item already due waits for a free worker), null when none waits.
 */
export type JobSummary = Record<Verdict, number> & { retrying: number; next_retry_at: string | null };

/** A job with its finished rows as submitted (CSV out): the header row, and each row's cells with its result. */
export interface JobTable {
  job: Omit<Job, "results">;
  /** The submitted header row (CSV submissions), or null: the rows then have no cells of their own. */
  columns: string[] | null;
  /** Finished items in submission order. */
  rows: Array<{ fields: string[] | null; result: EmailVerification }>;
}

/** The rows of a CSV submission, aligned with the submitted addresses (before deduplication). */
export interface SubmittedTable {
  columns: readonly string[];
  rows: ReadonlyArray<readonly string[]>;
}

export interface ReadOptions extends ClockOption {
  /** Results to skip, in submission order among the finished ones (default 0). */
  offset?: number;
  /** Results to return at most (default: all). */
  limit?: number;
}

export interface SubmittedJob {
  jobId: string;
  /** Addresses kept after deduplication. */
  total: number;
  createdAt: Date;
  /** 48 hours after createdAt. */
  expiresAt: Date;
}

/** An item handed to a worker; pass it back to complete() or defer(). */
export interface ClaimedItem {
  owner: string;
  jobId: string;
  position: number;
  email: string;
  /** Hand-outs so far, this one included. */
  attempts: number;
  /** Greylisted answers received before this hand-out, and when the first came. */
  greylistTries: number;
  greylistedAt: Date | null;
  /** Timed-out probes retried before this hand-out. */
  timeoutTries: number;
}

export interface ClockOption {
  now?: Date;
}

export interface SubmitOptions extends ClockOption {
  /**
   * Answers known at submission, one per address kept after deduplication and in that order (test keys answer
   * offline): the job is stored already completed with them.
   */
  answers?: readonly EmailVerification[];
  /** A CSV submission's rows, one per submitted address (before deduplication): the kept ones are stored. */
  table?: SubmittedTable;
  /** The client's Idempotency-Key and the request's fingerprint: a second job under the key is refused. */
  idempotency?: Idempotency;
  /** The URL that gets a signed POST when the job ends (checked by the caller: callbacks/callback_target.ts). */
  callbackUrl?: string;
}

export interface Idempotency {
  key: string;
  /** What the request asked for (requestFingerprint), so that a replay is told from another list under the key. */
  requestHash: string;
}

/** The job an Idempotency-Key was first used for, still alive. */
export interface IdempotentJob extends SubmittedJob {
  status: JobStatus;
  requestHash: string;
}

export { IdempotencyKeyTaken };

export interface ClaimOptions extends ClockOption {
  limit: number;
  leaseMs: number;
  /** Told how many claimed items were found with their lease run out and put back in the queue (metrics). */
  onLeaseExpired?: (items: number) => void;
}

export interface CompleteOptions {
  result: EmailVerification;
  /** The answer is the fallback given after repeated failures, not a verification. */
  exhausted?: boolean;
}

export interface DeferOptions extends ClockOption {
  delayMs: number;
  /** A greylisted or timed-out answer counts one try of that kind; without it, a failed hand-out retried later. */
  counts?: "greylist" | "timeout";
}

/** What becomes of one held item: its one result (as complete() writes it), or a later hand-out (as defer()). */
export type Settlement =
  | ({ item: ClaimedItem } & CompleteOptions)
  | { item: ClaimedItem; retry: Omit<DeferOptions, "now"> };

export interface JobStore {
  submit(accountId: string, emails: readonly string[], options?: SubmitOptions): Promise<SubmittedJob>;
  /** The live job submitted under `key` by the account, or undefined (an expired job's key is freed for reuse). */
  findIdempotent(accountId: string, key: string, options?: ClockOption): Promise<IdempotentJob | undefined>;
  read(accountId: string, jobId: string, options?: ReadOptions): Promise<Job | undefined>;
  /** The job with every finished row as submitted (one query, the same 404 rules as read()). */
  readTable(accountId: string, jobId: string, options?: ClockOption): Promise<JobTable | undefined>;
  claim(owner: string, options: ClaimOptions): Promise<ClaimedItem[]>;
  renew(items: readonly ClaimedItem[], options: { leaseMs: number } & ClockOption): Promise<number>;
  complete(item: ClaimedItem, options: CompleteOptions): Promise<boolean>;
  defer(item: ClaimedItem, options: DeferOptions): Promise<boolean>;
  /**
   * Many items' results and deferrals in one statement; answers, settlement by settlement, whether it was written
   * (the lease was still its item's owner's). An item named twice is settled by its first settlement only.
   */
  settle(settlements: readonly Settlement[], options?: ClockOption): Promise<boolean[]>;
  release(owner: string): Promise<number>;
  reclaimAll(): Promise<number>;
  sweep(options?: ClockOption): Promise<number>;
}

export const JOB_RETENTION_HOURS = 48;

/** Set when every item of a job got the fallback answer: nothing could be verified. */
export const FAILURE_VERIFIER = "Cannot verify the job: verification failed repeatedly for every address";

export function createJobStore(sql: Sql): JobStore {
  const clock = (now: Date | undefined) => dbClock(sql, now);

  /**
   * Creates the job and its items in one statement (so one transaction): the items travel as one array parameter and
   * are expanded by unnest, which keeps 5000 rows to a single round trip.
   */
  async function submit(
    accountId: string,
    emails: readonly string[],
    options: SubmitOptions = {},
  ): Promise<SubmittedJob> {
    const { now, answers, table, idempotency, callbackUrl } = options;
    assertSubmittable(accountId, table, emails.length);
    const keptAt = keptIndexes(emails);
    const kept = keptAt.map((i) => emails[i]!.trim());
    // unnest() pads with nulls: a JSON submission stores no cells.
    const fields = table === undefined ? [] : keptAt.map((i) => JSON.stringify(table.rows[i]));
    if (answers !== undefined && answers.length !== kept.length) {
      throw new RangeError(`Cannot submit a job: ${answers.length} answers for ${kept.length} addresses`);
    }
    const answered = answers !== undefined || kept.length === 0;
    // unnest() pads the shorter array with nulls: without answers every result is null.
    const results = (answers ?? []).map((answer) => JSON.stringify(answer));
    const jobId = randomUUID();
    const [row] = await sql`
      with t as (select ${clock(now)} as now),
      job as (
        insert into jobs (id, account_id, status, total, processed, created_at, expires_at, columns,
                          idempotency_key, request_hash)
        select ${jobId}, ${accountId}, ${answered ? "completed" : "queued"}, ${kept.length},
               ${answered ? kept.length : 0}, t.now, t.now + ${JOB_RETENTION_HOURS} * interval '1 hour',
               ${table === undefined ? null : sql.json(table.columns as string[])},
               ${idempotency?.key ?? null}, ${idempotency?.requestHash ?? null}
        from t
        returning id, created_at, expires_at
      ),
      items as (
        insert into job_items (job_id, position, email, status, not_before, result, fields)
        select job.id, u.position, u.email, case when u.result is null then 'pending' else 'done' end,
               job.created_at, u.result::jsonb, u.fields::jsonb
        from job,
             unnest(${sql.array(kept)}::text[], ${sql.array(results)}::text[], ${sql.array(fields)}::text[])
               with ordinality as u(email, result, fields, position)
      ),
      callback as (
        insert into job_callbacks (job_id, url, next_attempt_at)
        select job.id, ${callbackUrl ?? null}::text, job.created_at from job where ${callbackUrl ?? null}::text is not null
      )
      select created_at, expires_at from job`.catch((error) => {
      throw submissionError(error);
    });
    return { jobId, total: kept.length, createdAt: row!.created_at as Date, expiresAt: row!.expires_at as Date };
  }

  async function findIdempotent(
    accountId: string,
    key: string,
    options: ClockOption = {},
  ): Promise<IdempotentJob | undefined> {
    const { now } = options;
    if (!isUuid(accountId)) return undefined;
    // An expired job still holds its key until the sweeper deletes it: the key is freed here, as the job is gone.
    const [row] = await sql`
      with t as (select ${clock(now)} as now),
      freed as (
        update jobs set idempotency_key = null from t
        where account_id = ${accountId} and idempotency_key = ${key} and expires_at <= t.now
      )
      select j.id, j.status, j.total, j.created_at, j.expires_at, j.request_hash
      from jobs j, t
      where j.account_id = ${accountId} and j.idempotency_key = ${key} and j.expires_at > t.now`;
    if (row === undefined) return undefined;
    return {
      jobId: row.id as string,
      status: row.status as JobStatus,
      total: row.total as number,
      createdAt: row.created_at as Date,
      expiresAt: row.expires_at as Date,
      requestHash: row.request_hash as string,
    };
  }

  /**
   * The job's own row and its summary (columns), for read() and readTable(): every job read is one query. An item
   * pending after a hand-out (attempts > 0) waits for a retry; a hand-out given back at a graceful stop does not count.
   */
  const jobSelect = (now: Date | undefined) => sql`
      j.id, j.status, j.total, j.processed, j.created_at, j.expires_at, j.failure_reason, j.columns,
      coalesce((select jsonb_object_agg(s.verdict, s.n)
                from (select i.result->>'verdict' as verdict, count(*) as n from job_items i
                      where i.job_id = j.id and i.status = 'done' group by 1) s), '{}'::jsonb) as summary,
      (select jsonb_build_object('n', count(*), 'at', greatest(min(i.not_before), ${clock(now)}))
       from job_items i where i.job_id = j.id and i.status = 'pending' and i.attempts > 0) as retries,
      ${callbackColumn(sql)}`;
  const jobWhere = (now: Date | undefined, accountId: string, jobId: string) =>
    liveJobWhere(sql, now, accountId, jobId);

  function jobOf(row: Record<string, unknown>): Omit<Job, "results"> {
    const counts = row.summary as Record<string, number | string>;
    const retries = row.retries as { n: number | string; at: string | null };
    const retrying = Number(retries.n);
    const summary = {
      ...(Object.fromEntries(VERDICTS.map((v) => [v, Number(counts[v] ?? 0)])) as Record<Verdict, number>),
      retrying,
      next_retry_at: retrying > 0 && retries.at !== null ? new Date(retries.at).toISOString() : null,
    };
    const job: Omit<Job, "results"> = {
      job_id: row.id as string,
      status: row.status as JobStatus,
      total: row.total as number,
      processed: row.processed as number,
      created_at: (row.created_at as Date).toISOString(),
      expires_at: (row.expires_at as Date).toISOString(),
      summary,
    };
    if (row.failure_reason !== null) job.failure_reason = row.failure_reason as string;
    const callback = callbackOf(row.callback);
    if (callback !== undefined) job.callback = callback;
    return job;
  }

  /** Undefined alike for an unknown, expired or foreign job: one query whatever the case. */
  async function read(accountId: string, jobId: string, options: ReadOptions = {}): Promise<Job | undefined> {
    const { now } = options;
    const offset = Math.max(0, Math.trunc(options.offset ?? 0));
    const limit = options.limit === undefined ? null : Math.max(0, Math.trunc(options.limit));
    const [row] = await sql`
      select ${jobSelect(now)},
        coalesce((select jsonb_agg(p.result order by p.position)
                  from (select i.result, i.position from job_items i
                        where i.job_id = j.id and i.status = 'done'
                        order by i.position offset ${offset} limit ${limit}) p), '[]'::jsonb) as results
      ${jobWhere(now, accountId, jobId)}`;
    if (row === undefined) return undefined;
    return { ...jobOf(row), results: row.results as EmailVerification[] };
  }

  async function readTable(accountId: string, jobId: string, options: ClockOption = {}): Promise<JobTable | undefined> {
    const { now } = options;
    // One statement: the count, the summary and the rows describe the same moment.
    const [row] = await sql`
      select ${jobSelect(now)},
        coalesce((select jsonb_agg(jsonb_build_array(i.fields, i.result) order by i.position) from job_items i
                  where i.job_id = j.id and i.status = 'done'), '[]'::jsonb) as rows
      ${jobWhere(now, accountId, jobId)}`;
    if (row === undefined) return undefined;
    const rows = row.rows as Array<[string[] | null, EmailVerification]>;
    return {
      job: jobOf(row),
      columns: (row.columns as string[] | null) ?? null,
      rows: rows.map(([fields, result]) => ({ fields, result })),
    };
  }

  /**
   * Hands out up to `limit` items that are ready (pending and due) or abandoned (claimed with a lease that ran out),
   * oldest first, and marks their jobs running. SKIP LOCKED lets concurrent claimers pass each other's rows; a row
   * claimed meanwhile fails the re-checked WHERE clause, so no item goes to two workers under a live lease.
   */
  async function claim(owner: string, options: ClaimOptions): Promise<ClaimedItem[]> {
    const { limit, leaseMs, now } = options;
    if (!Number.isInteger(limit) || limit < 1)
      throw new RangeError(`Cannot claim job items: limit must be >= 1, got ${limit}`);
    if (!(leaseMs > 0)) throw new RangeError(`Cannot claim job items: leaseMs must be > 0, got ${leaseMs}`);
    // Abandoned items first go back to pending (their old not_before puts them at the head of the queue), so that the
    // claim itself reads one partial index in order and stops after `limit` rows, however long the queue.
    const expired = await expireLeases(sql, "job_items", now);
    if (expired > 0) options.onLeaseExpired?.(expired);
    const rows = await sql`
      with t as (select ${clock(now)} as now),
      picked as (
        select i.job_id, i.position
        from job_items i
        where i.status = 'pending' and i.not_before <= (select now from t)
          and exists (select 1 from jobs j where j.id = i.job_id and j.expires_at > (select now from t))
        order by i.not_before, i.job_id, i.position
        limit ${limit}
        for update of i skip locked
      ),
      claimed as (
        update job_items i
        set status = 'claimed', lease_owner = ${owner},
            lease_until = t.now + ${leaseMs}::double precision * interval '1 millisecond', attempts = i.attempts + 1
        from picked, t
        where i.job_id = picked.job_id and i.position = picked.position
        returning i.job_id, i.position, i.email, i.attempts, i.greylist_tries, i.greylisted_at, i.timeout_tries,
                  i.not_before
      ),
      started as (
        update jobs set status = 'running' where id in (select job_id from claimed) and status = 'queued'
      )
      select * from claimed order by not_before, job_id, position`;
    return rows.map((r) => ({
      owner,
      jobId: r.job_id as string,
      position: r.position as number,
      email: r.email as string,
      attempts: r.attempts as number,
      greylistTries: r.greylist_tries as number,
      greylistedAt: (r.greylisted_at as Date | null) ?? null,
      timeoutTries: r.timeout_tries as number,
    }));
  }

  /** Extends the leases of items still held, while a long probe runs; returns how many were still ours. */
  async function renew(items: readonly ClaimedItem[], options: { leaseMs: number } & ClockOption): Promise<number> {
    const { leaseMs, now } = options;
    if (items.length === 0) return 0;
    const owner = items[0]!.owner;
    // Key order, as settle() writes them: two statements on the same items lock them in one order.
    const sorted = items.map((x) => ({ job_id: x.jobId, position: x.position })).sort(byKey);
    const rows = await sql`
      update job_items i
      set lease_until = ${clock(now)}
                        + ${leaseMs}::double precision * interval '1 millisecond'
      from unnest(${sql.array(sorted.map((x) => x.job_id))}::uuid[], ${sql.array(sorted.map((x) => x.position))}::int[])
        as k(job_id, position)
      where i.job_id = k.job_id and i.position = k.position and i.status = 'claimed' and i.lease_owner = ${owner}
      returning 1`;
    return rows.length;
  }

  /**
   * Writes each item's one result or puts it back in the queue, only while its lease is still the settlement's owner's
   * (a worker whose lease was taken over writes nothing), counts the results on their jobs and finishes each job with
   * its last item. One statement for the whole list, so items and counters never disagree; concurrent settlements
   * serialize on the job rows, which each statement locks in id order, so that two of them cannot deadlock on those.
   */
  async function settle(settlements: readonly Settlement[], options: ClockOption = {}): Promise<boolean[]> {
    const { now } = options;
    const keyOf = (item: ClaimedItem) => `${item.jobId}/${item.position}`;
    const seen = new Set<string>();
    // One JSON row per item: a result to write, or the delay of a retry.
    const rows: Array<{
      job_id: string;
      position: number;
      owner: string;
      result?: EmailVerification;
      spent?: number;
      delay_ms?: number;
      counts?: string | null;
    }> = [];
    for (const s of settlements) {
      const key = keyOf(s.item);
      if (seen.has(key)) continue; // settled by its first settlement: a second write finds it no longer claimed
      seen.add(key);
      const { jobId, position, owner } = s.item;
      rows.push(
        "retry" in s
          ? {
              job_id: jobId,
              position,
              owner,
              delay_ms: Math.max(0, s.retry.delayMs),
              counts: s.retry.counts ?? null,
            }
          : { job_id: jobId, position, owner, result: s.result, spent: s.exhausted ? 1 : 0 },
      );
    }
    if (rows.length === 0) return settlements.map(() => false);
    rows.sort(byKey);
    const written = await retryOnDeadlock(
      () => sql`
      with t as (select ${clock(now)} as now),
      x as materialized (
        select * from jsonb_to_recordset(${sql.json(rows as never)}::jsonb)
          as x(job_id uuid, position int, owner text, result jsonb, spent int, delay_ms double precision, counts text)
      ),
      deferred as (
        update job_items i
        set status = 'pending', lease_owner = null, lease_until = null,
            not_before = t.now + x.delay_ms * interval '1 millisecond',
            greylist_tries = i.greylist_tries + case when x.counts = 'greylist' then 1 else 0 end,
            timeout_tries = i.timeout_tries + case when x.counts = 'timeout' then 1 else 0 end,
            greylisted_at = case when x.counts = 'greylist' then coalesce(i.greylisted_at, t.now)
                                 else i.greylisted_at end
        from x, t
        where x.result is null
          and i.job_id = x.job_id and i.position = x.position and i.status = 'claimed' and i.lease_owner = x.owner
        returning i.job_id, i.position
      ),
      done as (
        update job_items i
        set status = 'done', result = x.result, lease_owner = null, lease_until = null
        from x
        where x.result is not null
          and i.job_id = x.job_id and i.position = x.position and i.status = 'claimed' and i.lease_owner = x.owner
        returning i.job_id, i.position, x.spent
      ),
      counted as (
        select d.job_id, count(*)::int as n, sum(d.spent)::int as spent from done d group by d.job_id
      ),
      locked as materialized (
        select j.id, c.n, c.spent from jobs j join counted c on c.job_id = j.id order by j.id for update of j
      ),
      finished as (
        update jobs j
        set processed = j.processed + l.n,
            exhausted = j.exhausted + l.spent,
            status = case when j.processed + l.n < j.total then 'running'
                          when j.exhausted + l.spent >= j.total then 'failed'
                          else 'completed' end,
            failure_reason = case when j.processed + l.n >= j.total and j.exhausted + l.spent >= j.total
                                  then ${FAILURE_VERIFIER} else j.failure_reason end
        from locked l
        where j.id = l.id
      )
      select job_id, position from done
      union all
      select job_id, position from deferred`,
    );
    const ok = new Set(written.map((r) => `${r.job_id}/${r.position}`));
    // Only the first settlement of an item can have been written.
    const first = new Set<string>();
    return settlements.map((s) => {
      const key = keyOf(s.item);
      if (first.has(key)) return false;
      first.add(key);
      return ok.has(key);
    });
  }

  /** Writes the item's one result (settle() of one). */
  async function complete(item: ClaimedItem, options: CompleteOptions): Promise<boolean> {
    const [written] = await settle([{ item, ...options }]);
    return written === true;
  }

  /** Puts a held item back in the queue until `delayMs` from now (a greylist or time-out retry, or after an error). */
  async function defer(item: ClaimedItem, options: DeferOptions): Promise<boolean> {
    const { now, ...retry } = options;
    const [written] = await settle([{ item, retry }], { now });
    return written === true;
  }

  const release = (owner: string) => releaseLeases(sql, "job_items", owner);
  const reclaimAll = () => reclaimAllLeases(sql, "job_items");

  /** Deletes every row of the jobs past their expiry (items go by cascade); returns the number of jobs deleted. */
  async function sweep(options: ClockOption = {}): Promise<number> {
    const { now } = options;
    const rows = await sql`
      delete from jobs where expires_at <= ${clock(now)} returning 1`;
    return rows.length;
  }

  return { submit, findIdempotent, read, readTable, claim, renew, complete, defer, settle, release, reclaimAll, sweep };
}

/** Items in their table's key order (a uuid sorts as its lower-case text). */
function byKey(a: { job_id: string; position: number }, b: { job_id: string; position: number }): number {
  return a.job_id < b.job_id ? -1 : a.job_id > b.job_id ? 1 : a.position - b.position;
}

/** PostgreSQL's deadlock_detected: the statement was rolled back whole, and may be sent again. */
const DEADLOCK = "40P01";

/**
 * Runs a one-statement write again when PostgreSQL picked it as a deadlock's victim (rolled back, so nothing of it
 * was written). Items go in key order and jobs are locked in id order, which makes it rare; it still takes two
 * statements locking the same items in another order (a renewal, a claim taking back run-out leases) at one moment.
 */
async function retryOnDeadlock<T>(write: () => Promise<T>, tries = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if ((error as { code?: unknown }).code !== DEADLOCK || attempt >= tries) throw error;
    }
  }
}
