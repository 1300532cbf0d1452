// Bulk address jobs in the database: the same jobs table as email jobs (one id space, one read route, one retention,
// one sweep), kind 'address', with their rows in chunks of CHUNK_ROWS (address_job_chunks, migration 008): a chunk
// is claimed, answered and written as one row. A match costs tens of microseconds, and a row of the database costs
// about as much to claim and again to write (measured on the embedded database: a 2000-row update took 0.6-1.5 s),
// so a row per address would make the database, not the threads, the measure of a job. Chunks are claimed under
// leases with FOR UPDATE SKIP LOCKED, so any number of processes work one job together, and every write checks that
// the lease is still the writer's, so each row is answered once even when a worker dies mid-job.
import { randomUUID } from "node:crypto";
import type { ChunkAnswers } from "../address/chunk_answers.ts";
import { answerOfStored, type StoredAnswer } from "../address/stored_answer.ts";
import type { AddressInput, AddressVerification } from "../address/types.ts";
import { ADDRESS_VERDICTS, type AddressVerdict } from "../address/vocabulary.ts";
import type { Sql } from "../store/db.ts";
import { callbackColumn, callbackOf, type JobCallback } from "../callbacks/callback_store.ts";
import { type AddressChunkRows, insertAddressChunks } from "./address_chunk_insert.ts";
import type { AddressChunk } from "./address_csv.ts";
import { duplicateOf } from "./address_rows.ts";
import {
  assertSubmittable,
  dbClock,
  expireLeases,
  liveJobWhere,
  reclaimAllLeases,
  releaseLeases,
  submissionError,
} from "./job_rows.ts";
import {
  type ClockOption,
  type Idempotency,
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
  /** The completion callback the job was submitted with, and where its delivery stands; absent when none. */
  callback?: JobCallback;
  results: AddressJobResult[];
}

export interface AddressJobTable {
  job: Omit<AddressJob, "results">;
  columns: string[] | null;
  /**
   * The finished chunks in input order, the bytes of their JSON texts as the database sends them (address_csv.ts
   * addressCsvBytes() writes them as CSV), read one statement ahead of the caller: the job is never held whole.
   */
  chunks(): AsyncIterable<AddressChunk>;
}

/**
 * A chunk handed to a worker: its rows' inputs, and for each the row it repeats (dup_of), if any, as the texts the
 * database holds. The runner hands them to the worker threads unparsed (address/chunk_answers.ts).
 */
export interface ClaimedChunk {
  owner: string;
  jobId: string;
  chunk: number;
  /** The 1-based position of its first row. */
  firstRow: number;
  /** Its rows. */
  size: number;
  /** A JSON array of the rows' inputs. */
  inputs: string;
  /** A JSON array: for each row, the 1-based position of the first equal row of the job, or null when it is that row. */
  dupOf: string;
  /** Hand-outs so far, this one included. */
  attempts: number;
}

export interface AddressSubmitOptions extends ClockOption {
  /** Answers known at submission, one per row (test keys): the job is stored completed with them. */
  answers?: readonly AddressVerification[];
  /** A CSV submission's rows, one per input. */
  table?: SubmittedTable;
  idempotency?: Idempotency;
  /** The URL that gets a signed POST when the job ends (checked by the caller: callbacks/callback_target.ts). */
  callbackUrl?: string;
}

export interface AddressReadOptions extends ClockOption {
  offset?: number;
  limit?: number;
}

export interface AddressJobStore {
  submit(accountId: string, inputs: readonly AddressInput[], options?: AddressSubmitOptions): Promise<SubmittedJob>;
  read(accountId: string, jobId: string, options?: AddressReadOptions): Promise<AddressJob | undefined>;
  readTable(accountId: string, jobId: string, options?: ClockOption): Promise<AddressJobTable | undefined>;
  claim(owner: string, options: { limit: number; leaseMs: number } & ClockOption): Promise<ClaimedChunk[]>;
  renew(chunks: readonly ClaimedChunk[], options: { leaseMs: number } & ClockOption): Promise<number>;
  /** Writes the chunk's answers (a JSON array, one per row), while its lease is still the owner's; false when it was not. */
  settle(chunk: ClaimedChunk, answers: ChunkAnswers): Promise<boolean>;
  release(owner: string): Promise<number>;
  reclaimAll(): Promise<number>;
}

/** Rows per chunk: a claim, a task list for the threads and a write each. */
export const CHUNK_ROWS = 1000;
/** A JSON read of an address job answers this many results unless asked for a page (jobs hold up to 100,000 rows). */
export const ADDRESS_READ_DEFAULT_LIMIT = 1000;
export const ADDRESS_READ_MAX_LIMIT = 10_000;
/**
 * Chunks per statement when a job's rows are read for CSV out: each statement cost the embedded database 3-4 ms of its
 * own, over and above the bytes (a 100-chunk job read in 0.44 s one chunk a statement, in 0.17 s four at a time).
 */
const CHUNKS_PER_READ = 4;
/** Chunks per insert statement at submission. */
const INSERT_CHUNKS = 20;

export function createAddressJobStore(sql: Sql): AddressJobStore {
  const clock = (now: Date | undefined) => dbClock(sql, now);

  /** The job and its chunks in one transaction: a process killed mid-submission leaves nothing. */
  async function submit(
    accountId: string,
    inputs: readonly AddressInput[],
    options: AddressSubmitOptions = {},
  ): Promise<SubmittedJob> {
    const { now, answers, table, idempotency, callbackUrl } = options;
    assertSubmittable(accountId, table, inputs.length);
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
        if (callbackUrl !== undefined) {
          await tx`
            insert into job_callbacks (job_id, url, next_attempt_at) values (${jobId}, ${callbackUrl}, ${job!.created_at})`;
        }
        const chunks = Math.ceil(inputs.length / CHUNK_ROWS);
        for (let first = 0; first < chunks; first += INSERT_CHUNKS) {
          const batch: AddressChunkRows[] = [];
          for (let c = first; c < Math.min(chunks, first + INSERT_CHUNKS); c++) {
            const start = c * CHUNK_ROWS;
            const end = Math.min(inputs.length, start + CHUNK_ROWS);
            batch.push({
              chunk: c,
              firstRow: start + 1,
              inputs: inputs.slice(start, end),
              fields: table?.rows.slice(start, end),
              dupOf: dups.slice(start, end),
              results: answers?.slice(start, end),
            });
          }
          await insertAddressChunks(tx, jobId, batch, "pending");
        }
        return {
          jobId,
          total: inputs.length,
          createdAt: job!.created_at as Date,
          expiresAt: job!.expires_at as Date,
        };
      });
    } catch (error) {
      throw submissionError(error);
    }
  }

  /** The job's row, its summary over finished chunks, and the finished chunks' sizes in order: one statement. */
  const JOB_SELECT = sql`
      j.id, j.status, j.total, j.processed, j.created_at, j.expires_at, j.failure_reason, j.columns,
      coalesce((select jsonb_object_agg(s.verdict, s.n)
                from (select e.key as verdict, sum(e.value::int) as n
                      from address_job_chunks c, jsonb_each_text(c.summary) e
                      where c.job_id = j.id and c.status = 'done' group by 1) s), '{}'::jsonb) as summary,
      coalesce((select jsonb_agg(jsonb_build_array(c.chunk, c.size) order by c.chunk)
                from address_job_chunks c where c.job_id = j.id and c.status = 'done'), '[]'::jsonb) as done,
      ${callbackColumn(sql)}`;
  const jobWhere = (now: Date | undefined, accountId: string, jobId: string) =>
    liveJobWhere(sql, now, accountId, jobId, "address");

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
    const callback = callbackOf(row.callback);
    if (callback !== undefined) job.callback = callback;
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
    const [row] = await sql`select ${JOB_SELECT} ${jobWhere(now, accountId, jobId)}`;
    if (row === undefined) return undefined;
    // The finished rows, chunk after chunk in input order: the page is [offset, offset + limit) of that sequence.
    const wanted: Array<{ chunk: number; from: number; to: number }> = [];
    let seen = 0;
    for (const [chunk, size] of row.done as Array<[number, number]>) {
      const from = Math.max(0, offset - seen);
      const to = Math.min(size, offset + limit - seen);
      if (from < to) wanted.push({ chunk, from, to });
      seen += size;
      if (seen >= offset + limit) break;
    }
    const results: AddressJobResult[] = [];
    if (wanted.length > 0) {
      const chunks = await sql`
        select chunk, first_row, results from address_job_chunks
        where job_id = ${row.id as string} and chunk = any(${sql.array(wanted.map((w) => w.chunk))}::int[])
        order by chunk`;
      const byChunk = new Map(chunks.map((c) => [c.chunk as number, c]));
      for (const w of wanted) {
        const c = byChunk.get(w.chunk)!;
        const answers = JSON.parse(c.results as string) as StoredAnswer[];
        for (let k = w.from; k < w.to; k++) {
          results.push({ ...answerOfStored(answers[k]!), row: (c.first_row as number) + k });
        }
      }
    }
    return { ...jobOf(row), results };
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
    // Finished chunks in input order, CHUNKS_PER_READ a statement. A CSV submission's rows are written from their
    // cells: their inputs are not read. Raw: the texts stay bytes, decoded (or not) by whoever writes them.
    const chunksAfter = async (after: number) =>
      (await sql`
        select chunk, case when fields is null then inputs end as inputs, fields, results from address_job_chunks
        where job_id = ${id} and status = 'done' and chunk > ${after}
        order by chunk limit ${CHUNKS_PER_READ}`.raw()) as unknown as Array<Array<Buffer | null>>;
    async function* chunks(): AsyncIterable<AddressChunk> {
      // The next statement is sent before this one's chunks are handed over: the database reads them (in its own
      // thread, or its own process) while the caller writes these. One statement ahead at most, so at most twice
      // CHUNKS_PER_READ chunks are held.
      let next = chunksAfter(-1);
      try {
        for (;;) {
          const read = await next;
          if (read.length === 0) return;
          next = chunksAfter(Number(read[read.length - 1]![0]!.toString("latin1")));
          for (const c of read) yield { inputs: c[1] ?? null, fields: c[2] ?? null, results: c[3]! };
        }
      } finally {
        // A reader that stops early leaves the read ahead unwanted: its failure, if any, is nobody's.
        next.catch(() => {});
      }
    }
    return { job: jobOf(row), columns: (row.columns as string[] | null) ?? null, chunks };
  }

  /**
   * Hands out up to `limit` pending chunks, in job and input order, after putting back the chunks whose lease ran
   * out; marks their jobs running. SKIP LOCKED lets processes claiming together pass each other.
   */
  async function claim(
    owner: string,
    options: { limit: number; leaseMs: number } & ClockOption,
  ): Promise<ClaimedChunk[]> {
    const { limit, leaseMs, now } = options;
    if (!Number.isInteger(limit) || limit < 1)
      throw new RangeError(`Cannot claim job chunks: limit must be >= 1, got ${limit}`);
    if (!(leaseMs > 0)) throw new RangeError(`Cannot claim job chunks: leaseMs must be > 0, got ${leaseMs}`);
    await expireLeases(sql, "address_job_chunks", now);
    const rows = await sql`
      with t as (select ${clock(now)} as now),
      picked as (
        select c.job_id, c.chunk
        from address_job_chunks c
        where c.status = 'pending'
          and exists (select 1 from jobs j where j.id = c.job_id and j.expires_at > (select now from t))
        order by c.job_id, c.chunk
        limit ${limit}
        for update of c skip locked
      ),
      claimed as (
        update address_job_chunks c
        set status = 'claimed', lease_owner = ${owner},
            lease_until = t.now + ${leaseMs}::double precision * interval '1 millisecond', attempts = c.attempts + 1
        from picked, t
        where c.job_id = picked.job_id and c.chunk = picked.chunk
        returning c.job_id, c.chunk, c.first_row, c.size, c.inputs, c.dup_of, c.attempts
      ),
      started as (
        update jobs set status = 'running' where id in (select job_id from claimed) and status = 'queued'
      )
      select * from claimed order by job_id, chunk`;
    return rows.map((r) => ({
      owner,
      jobId: r.job_id as string,
      chunk: r.chunk as number,
      firstRow: r.first_row as number,
      size: r.size as number,
      inputs: r.inputs as string,
      dupOf: r.dup_of as string,
      attempts: r.attempts as number,
    }));
  }

  async function renew(chunks: readonly ClaimedChunk[], options: { leaseMs: number } & ClockOption): Promise<number> {
    const { leaseMs, now } = options;
    if (chunks.length === 0) return 0;
    const written = await sql`
      update address_job_chunks c
      set lease_until = ${clock(now)} + ${leaseMs}::double precision * interval '1 millisecond'
      from unnest(${sql.array(chunks.map((r) => r.jobId))}::uuid[], ${sql.array(chunks.map((r) => r.chunk))}::int[])
        as k(job_id, chunk)
      where c.job_id = k.job_id and c.chunk = k.chunk and c.status = 'claimed'
        and c.lease_owner = ${chunks[0]!.owner}
      returning 1`;
    return written.length;
  }

  /**
   * One statement: the chunk's answers where its lease is still the owner's, and the count on its job (completed
   * with its last chunk).
   */
  async function settle(chunk: ClaimedChunk, answers: ChunkAnswers): Promise<boolean> {
    const { results, summary } = answers;
    const counted = Object.values(summary).reduce((sum, n) => sum + n, 0);
    if (counted !== chunk.size) {
      throw new RangeError(`Cannot settle a chunk: ${counted} answers for ${chunk.size} rows`);
    }
    const written = await sql`
      with done as (
        update address_job_chunks
        set status = 'done', results = ${results}, summary = ${sql.json(summary)},
            lease_owner = null, lease_until = null
        where job_id = ${chunk.jobId} and chunk = ${chunk.chunk} and status = 'claimed' and lease_owner = ${chunk.owner}
        returning job_id, size
      ),
      finished as (
        update jobs j
        set processed = j.processed + d.size,
            status = case when j.processed + d.size < j.total then 'running' else 'completed' end
        from done d
        where j.id = d.job_id
      )
      select 1 from done`;
    return written.length === 1;
  }

  const release = (owner: string) => releaseLeases(sql, "address_job_chunks", owner);
  const reclaimAll = () => reclaimAllLeases(sql, "address_job_chunks");

  return { submit, read, readTable, claim, renew, settle, release, reclaimAll };
}
