// Bulk address jobs in the database: the same jobs table as email jobs (one id space, one read route, one retention,
// one sweep), kind 'address', with their rows in address_job_items (migration 007). Rows are claimed under leases
// with FOR UPDATE SKIP LOCKED, so any number of processes work one job together, and every write of a result checks
// that the lease is still the writer's, so each row is answered once even when a worker dies mid-job. A row equal to
// an earlier one is never claimed: the earlier row's result is written to it in the same statement.
import { randomUUID } from "node:crypto";
import type { AddressInput, AddressVerification } from "../address/types.ts";
import { ADDRESS_VERDICTS, type AddressVerdict } from "../address/vocabulary.ts";
import type { Sql } from "../store/db.ts";
import { duplicateOf } from "./address_rows.ts";
import {
  type ClockOption,
  type Idempotency,
  IdempotencyKeyTaken,
  JOB_RETENTION_HOURS,
  type JobStatus,
  type SubmittedJob,
  type SubmittedTable,
} from "./job_store.ts";

/** One row's answer in a job read: the POST /v1/address answer, with the row it answers (1-based, input order). */
export type AddressJobResult = AddressVerification & { row: number };

/** An address job as GET /v1/jobs/{id} answers it: the spec's Job, with address answers and address verdicts. */
export interface AddressJob {
  job_id: string;
  kind: "address";
  status: JobStatus;
  total: number;
  processed: number;
  created_at: string;
  expires_at: string;
  failure_reason?: string;
  summary: Record<AddressVerdict, number>;
  results: AddressJobResult[];
}

/** A finished row for CSV out: its cells as submitted (null for JSON submissions), its input and its answer. */
export interface AddressJobRow {
  position: number;
  fields: string[] | null;
  input: AddressInput;
  result: AddressVerification;
}

export interface AddressJobTable {
  job: Omit<AddressJob, "results">;
  columns: string[] | null;
  /** The finished rows in input order, read a page at a time: the job is never held whole. */
  rows(): AsyncIterable<AddressJobRow[]>;
}

export interface ClaimedRow {
  owner: string;
  jobId: string;
  position: number;
  input: AddressInput;
  /** Hand-outs so far, this one included. */
  attempts: number;
}

export interface AddressSubmitOptions extends ClockOption {
  /** Answers known at submission, one per row (test keys): the job is stored completed with them. */
  answers?: readonly AddressVerification[];
  /** A CSV submission's rows, one per input. */
  table?: SubmittedTable;
  idempotency?: Idempotency;
}

export interface AddressReadOptions extends ClockOption {
  offset?: number;
  limit?: number;
}

export interface AddressJobStore {
  submit(accountId: string, inputs: readonly AddressInput[], options?: AddressSubmitOptions): Promise<SubmittedJob>;
  read(accountId: string, jobId: string, options?: AddressReadOptions): Promise<AddressJob | undefined>;
  readTable(accountId: string, jobId: string, options?: ClockOption): Promise<AddressJobTable | undefined>;
  claim(owner: string, options: { limit: number; leaseMs: number } & ClockOption): Promise<ClaimedRow[]>;
  renew(rows: readonly ClaimedRow[], options: { leaseMs: number } & ClockOption): Promise<number>;
  /** Writes the rows' results (and their duplicates') in one statement; answers which were still ours. */
  settle(results: ReadonlyArray<{ row: ClaimedRow; result: AddressVerification }>): Promise<boolean[]>;
  release(owner: string): Promise<number>;
  reclaimAll(): Promise<number>;
}

/** Rows per insert statement at submission, and per page of a CSV download. */
const INSERT_CHUNK = 5000;
const PAGE_ROWS = 2000;
/** A JSON read of an address job answers this many results unless asked for a page (jobs hold up to 100,000 rows). */
export const ADDRESS_READ_DEFAULT_LIMIT = 1000;
export const ADDRESS_READ_MAX_LIMIT = 10_000;

const UNIQUE_VIOLATION = "23505";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NO_ID = "00000000-0000-0000-0000-000000000000";

export function createAddressJobStore(sql: Sql): AddressJobStore {
  const clock = (now: Date | undefined) => sql`coalesce(${now ?? null}::timestamptz, clock_timestamp())`;

  /**
   * The job and every row in one transaction: a process killed mid-submission leaves nothing. Rows go in statements
   * of INSERT_CHUNK, each one array parameter per column expanded by unnest.
   */
  async function submit(
    accountId: string,
    inputs: readonly AddressInput[],
    options: AddressSubmitOptions = {},
  ): Promise<SubmittedJob> {
    const { now, answers, table, idempotency } = options;
    if (!UUID.test(accountId)) throw new TypeError(`Cannot submit a job: account id "${accountId}" is not a uuid`);
    if (table !== undefined && table.rows.length !== inputs.length) {
      throw new RangeError(`Cannot submit a job: ${table.rows.length} rows for ${inputs.length} addresses`);
    }
    if (answers !== undefined && answers.length !== inputs.length) {
      throw new RangeError(`Cannot submit a job: ${answers.length} answers for ${inputs.length} addresses`);
    }
    const dups = duplicateOf(inputs);
    const answered = answers !== undefined || inputs.length === 0;
    const jobId = randomUUID();
    try {
      return await sql.begin(async (tx) => {
        const [job] = await tx`
          with t as (select ${clock(now)} as now)
          insert into jobs (id, account_id, kind, status, total, processed, created_at, expires_at, columns,
                            idempotency_key, request_hash)
          select ${jobId}, ${accountId}, 'address', ${answered ? "completed" : "queued"}, ${inputs.length},
                 ${answered ? inputs.length : 0}, t.now, t.now + ${JOB_RETENTION_HOURS} * interval '1 hour',
                 ${table === undefined ? null : tx.json(table.columns as string[])},
                 ${idempotency?.key ?? null}, ${idempotency?.requestHash ?? null}
          from t
          returning created_at, expires_at`;
        for (let start = 0; start < inputs.length; start += INSERT_CHUNK) {
          const end = Math.min(inputs.length, start + INSERT_CHUNK);
          const positions: number[] = [];
          const input: string[] = [];
          const fields: string[] = [];
          const dupOf: Array<number | null> = [];
          const results: string[] = [];
          for (let i = start; i < end; i++) {
            positions.push(i + 1);
            input.push(JSON.stringify(inputs[i]));
            if (table !== undefined) fields.push(JSON.stringify(table.rows[i]));
            dupOf.push(dups[i]!);
            if (answers !== undefined) results.push(JSON.stringify(answers[i]));
          }
          // unnest() pads shorter arrays with nulls: JSON submissions store no cells, live ones no results.
          await tx`
            insert into address_job_items (job_id, position, input, fields, dup_of, status, result)
            select ${jobId}, u.position, u.input::jsonb, u.fields::jsonb, u.dup_of,
                   case when u.result is null then 'pending' else 'done' end, u.result::jsonb
            from unnest(${tx.array(positions)}::int[], ${tx.array(input)}::text[], ${tx.array(fields)}::text[],
                        ${tx.array(dupOf as number[])}::int[], ${tx.array(results)}::text[])
              as u(position, input, fields, dup_of, result)`;
        }
        return {
          jobId,
          total: inputs.length,
          createdAt: job!.created_at as Date,
          expiresAt: job!.expires_at as Date,
        };
      });
    } catch (error) {
      const e = error as { code?: string; constraint_name?: string };
      if (e?.code === UNIQUE_VIOLATION && e.constraint_name === "jobs_idempotency_key") {
        throw new IdempotencyKeyTaken("Cannot submit a job: its Idempotency-Key is taken", { cause: error });
      }
      throw error;
    }
  }

  const JOB_SELECT = sql`
      j.id, j.status, j.total, j.processed, j.created_at, j.expires_at, j.failure_reason, j.columns,
      coalesce((select jsonb_object_agg(s.verdict, s.n)
                from (select i.result->>'verdict' as verdict, count(*) as n from address_job_items i
                      where i.job_id = j.id and i.status = 'done' group by 1) s), '{}'::jsonb) as summary`;
  const jobWhere = (now: Date | undefined, accountId: string, jobId: string) => sql`
    from jobs j
    where j.id = ${UUID.test(jobId) ? jobId : NO_ID}::uuid
      and j.account_id = ${UUID.test(accountId) ? accountId : NO_ID}::uuid
      and j.kind = 'address'
      and j.expires_at > ${clock(now)}`;

  function jobOf(row: Record<string, unknown>): Omit<AddressJob, "results"> {
    const counts = row.summary as Record<string, number | string>;
    const summary = Object.fromEntries(ADDRESS_VERDICTS.map((v) => [v, Number(counts[v] ?? 0)])) as Record<
      AddressVerdict,
      number
    >;
    const job: Omit<AddressJob, "results"> = {
      job_id: row.id as string,
      kind: "address",
      status: row.status as JobStatus,
      total: row.total as number,
      processed: row.processed as number,
      created_at: (row.created_at as Date).toISOString(),
      expires_at: (row.expires_at as Date).toISOString(),
      summary,
    };
    if (row.failure_reason !== null) job.failure_reason = row.failure_reason as string;
    return job;
  }

  async function read(
    accountId: string,
    jobId: string,
    options: AddressReadOptions = {},
  ): Promise<AddressJob | undefined> {
    const { now } = options;
    const offset = Math.max(0, Math.trunc(options.offset ?? 0));
    const limit = Math.min(
      ADDRESS_READ_MAX_LIMIT,
      Math.max(0, Math.trunc(options.limit ?? ADDRESS_READ_DEFAULT_LIMIT)),
    );
    const [row] = await sql`
      select ${JOB_SELECT},
        coalesce((select jsonb_agg(p.result || jsonb_build_object('row', p.position) order by p.position)
                  from (select i.result, i.position from address_job_items i
                        where i.job_id = j.id and i.status = 'done'
                        order by i.position offset ${offset} limit ${limit}) p), '[]'::jsonb) as results
      ${jobWhere(now, accountId, jobId)}`;
    if (row === undefined) return undefined;
    return { ...jobOf(row), results: row.results as AddressJobResult[] };
  }

  async function readTable(
    accountId: string,
    jobId: string,
    options: ClockOption = {},
  ): Promise<AddressJobTable | undefined> {
    const { now } = options;
    const [row] = await sql`select ${JOB_SELECT} ${jobWhere(now, accountId, jobId)}`;
    if (row === undefined) return undefined;
    const id = row.id as string;
    async function* rows(): AsyncIterable<AddressJobRow[]> {
      // Keyset pages: each one statement of PAGE_ROWS rows after the last one given.
      let after = 0;
      for (;;) {
        const page = await sql`
          select position, fields, input, result from address_job_items
          where job_id = ${id} and status = 'done' and position > ${after}
          order by position limit ${PAGE_ROWS}`;
        if (page.length === 0) return;
        after = page[page.length - 1]!.position as number;
        yield page.map((r) => ({
          position: r.position as number,
          fields: (r.fields as string[] | null) ?? null,
          input: r.input as AddressInput,
          result: r.result as AddressVerification,
        }));
        if (page.length < PAGE_ROWS) return;
      }
    }
    return { job: jobOf(row), columns: (row.columns as string[] | null) ?? null, rows };
  }

  /**
   * Hands out up to `limit` first occurrences that are pending, in job and input order, after putting back the rows
   * whose lease ran out; marks their jobs running. SKIP LOCKED lets processes claiming together pass each other.
   */
  async function claim(
    owner: string,
    options: { limit: number; leaseMs: number } & ClockOption,
  ): Promise<ClaimedRow[]> {
    const { limit, leaseMs, now } = options;
    if (!Number.isInteger(limit) || limit < 1)
      throw new RangeError(`Cannot claim job rows: limit must be >= 1, got ${limit}`);
    if (!(leaseMs > 0)) throw new RangeError(`Cannot claim job rows: leaseMs must be > 0, got ${leaseMs}`);
    await sql`
      update address_job_items set status = 'pending', lease_owner = null, lease_until = null
      where status = 'claimed' and lease_until <= ${clock(now)}`;
    const rows = await sql`
      with t as (select ${clock(now)} as now),
      picked as (
        select i.job_id, i.position
        from address_job_items i
        where i.status = 'pending' and i.dup_of is null
          and exists (select 1 from jobs j where j.id = i.job_id and j.expires_at > (select now from t))
        order by i.job_id, i.position
        limit ${limit}
        for update of i skip locked
      ),
      claimed as (
        update address_job_items i
        set status = 'claimed', lease_owner = ${owner},
            lease_until = t.now + ${leaseMs}::double precision * interval '1 millisecond', attempts = i.attempts + 1
        from picked, t
        where i.job_id = picked.job_id and i.position = picked.position
        returning i.job_id, i.position, i.input, i.attempts
      ),
      started as (
        update jobs set status = 'running' where id in (select job_id from claimed) and status = 'queued'
      )
      select * from claimed order by job_id, position`;
    return rows.map((r) => ({
      owner,
      jobId: r.job_id as string,
      position: r.position as number,
      input: r.input as AddressInput,
      attempts: r.attempts as number,
    }));
  }

  async function renew(rows: readonly ClaimedRow[], options: { leaseMs: number } & ClockOption): Promise<number> {
    const { leaseMs, now } = options;
    if (rows.length === 0) return 0;
    const written = await sql`
      update address_job_items i
      set lease_until = ${clock(now)} + ${leaseMs}::double precision * interval '1 millisecond'
      from unnest(${sql.array(rows.map((r) => r.jobId))}::uuid[], ${sql.array(rows.map((r) => r.position))}::int[])
        as k(job_id, position)
      where i.job_id = k.job_id and i.position = k.position and i.status = 'claimed'
        and i.lease_owner = ${rows[0]!.owner}
      returning 1`;
    return written.length;
  }

  /**
   * One statement: each row's result where its lease is still its owner's, the same result to the rows equal to it,
   * and the count on each job (completed with its last row). Job rows are locked in id order, as email settles do.
   */
  async function settle(results: ReadonlyArray<{ row: ClaimedRow; result: AddressVerification }>): Promise<boolean[]> {
    if (results.length === 0) return [];
    const records = results.map(({ row, result }) => ({
      job_id: row.jobId,
      position: row.position,
      owner: row.owner,
      result,
    }));
    const written = await sql`
      with x as materialized (
        select * from jsonb_to_recordset(${sql.json(records as never)}::jsonb)
          as x(job_id uuid, position int, owner text, result jsonb)
      ),
      done as (
        update address_job_items i
        set status = 'done', result = x.result, lease_owner = null, lease_until = null
        from x
        where i.job_id = x.job_id and i.position = x.position and i.status = 'claimed' and i.lease_owner = x.owner
        returning i.job_id, i.position, x.result
      ),
      copies as (
        update address_job_items i
        set status = 'done', result = d.result
        from done d
        where i.job_id = d.job_id and i.dup_of = d.position and i.status = 'pending'
        returning i.job_id
      ),
      counted as (
        select a.job_id, count(*)::int as n
        from (select job_id from done union all select job_id from copies) a group by a.job_id
      ),
      locked as materialized (
        select j.id, c.n from jobs j join counted c on c.job_id = j.id order by j.id for update of j
      ),
      finished as (
        update jobs j
        set processed = j.processed + l.n,
            status = case when j.processed + l.n < j.total then 'running' else 'completed' end
        from locked l
        where j.id = l.id
      )
      select job_id, position from done`;
    const ok = new Set(written.map((r) => `${r.job_id}/${r.position}`));
    return results.map(({ row }) => ok.has(`${row.jobId}/${row.position}`));
  }

  async function release(owner: string): Promise<number> {
    const rows = await sql`
      update address_job_items
      set status = 'pending', lease_owner = null, lease_until = null, attempts = greatest(attempts - 1, 0)
      where status = 'claimed' and lease_owner = ${owner}
      returning 1`;
    return rows.length;
  }

  async function reclaimAll(): Promise<number> {
    const rows = await sql`
      update address_job_items set status = 'pending', lease_owner = null, lease_until = null
      where status = 'claimed'
      returning 1`;
    return rows.length;
  }

  return { submit, read, readTable, claim, renew, settle, release, reclaimAll };
}
