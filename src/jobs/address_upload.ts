// A bulk address job written as its upload is read, so that neither the upload nor the server holds a whole file's
// rows: the job row is created 'uploading' (migration 012: invisible to job reads, claims and callbacks), then its
// chunks are inserted as the rows arrive, UPLOAD_INSERT_CHUNKS at a time, each insert a statement of its own (never
// one transaction over the upload: the embedded database serves one session at a time, and an upload lasts as long
// as its client takes to send it). Equal rows are found on the way with a map of keys to first positions, keys only.
// The end is one short transaction (commit: queued, or completed when every row came answered) or a delete
// (discard); a job whose process died mid-upload is left 'uploading' and deleted by the sweeper
// (sweepAbandonedUploads). An upload that ends before its first insert (fewer rows than UPLOAD_INSERT_CHUNKS whole
// chunks: most bulk calls) is written whole by the commit's transaction, as any submission held whole is: it is never
// 'uploading', and a refused one costs no statement.
import { randomUUID } from "node:crypto";
import type { AddressInput, AddressVerification } from "../address/types.ts";
import type { Row } from "postgres";
import type { Sql } from "../store/db.ts";
import { type AddressChunkRows, insertAddressChunks } from "./address_chunk_insert.ts";
import { CHUNK_ROWS } from "./address_job_store.ts";
import { addressKey } from "./address_rows.ts";
import { assertSubmittable, dbClock, submissionError } from "./job_rows.ts";
import { type ClockOption, type Idempotency, JOB_RETENTION_HOURS, type SubmittedJob } from "./job_store.ts";

/** Chunks per insert while uploading: the rows a request holds at most are this many chunks and one network read. */
export const UPLOAD_INSERT_CHUNKS = 4;

export interface AddressUploadOptions extends ClockOption {
  /** A CSV upload's header: the user's columns, given back in CSV results. */
  columns?: readonly string[];
}

export interface AddressCommitOptions extends ClockOption {
  idempotency?: Idempotency;
  /** The URL that gets a signed POST when the job ends (checked by the caller: callbacks/callback_target.ts). */
  callbackUrl?: string;
}

export interface AddressUpload {
  readonly jobId: string;
  /** Rows added so far. */
  readonly total: number;
  /** Distinct rows (by addressKey) added so far: what the job verifies and charges. */
  readonly distinct: number;
  /** Rows already written to the database. */
  readonly written: number;
  /**
   * Adds a row: its input, its cells when the upload is a CSV file, its answer when it is known already (test keys:
   * every row of the upload must come answered then).
   */
  add(input: AddressInput, fields?: readonly string[], answer?: AddressVerification): void;
  /** Writes the whole chunks held once there are UPLOAD_INSERT_CHUNKS of them; awaited between reads of the body. */
  drain(): Promise<void>;
  /** Writes every row held, at the end of the upload. */
  finish(): Promise<void>;
  /** Makes the job what a submission makes: queued (or completed, every row answered), with its key and callback. */
  commit(options?: AddressCommitOptions): Promise<SubmittedJob & { status: "queued" | "completed" }>;
  /** Deletes the job and its chunks (a refused or broken upload); nothing when it was committed. */
  discard(): Promise<void>;
}

export function startAddressUpload(sql: Sql, accountId: string, options: AddressUploadOptions = {}): AddressUpload {
  const { now, columns } = options;
  assertSubmittable(accountId, undefined, 0);
  const jobId = randomUUID();
  const firstOf = new Map<string, number>();
  let total = 0;
  let written = 0;
  /** Whether a write was started: the job row exists, or is being inserted. */
  let started = false;
  let finished = false;
  let state: "open" | "committed" | "discarded" = "open";
  let answeredRows = 0;
  // The rows held: not yet written.
  let inputs: AddressInput[] = [];
  let fields: Array<readonly string[]> | undefined = columns === undefined ? undefined : [];
  let dups: Array<number | null> = [];
  let answers: AddressVerification[] = [];
  // Writes run one after another; a discard waits for the one in flight.
  let writing: Promise<void> = Promise.resolve();

  const assertOpen = (what: string) => {
    if (state !== "open") throw new Error(`Cannot ${what} an address upload: it is ${state}`);
  };

  /** Takes the first `rows` rows held (whole chunks, or everything at the end) out of the request's memory. */
  function take(rows: number): AddressChunkRows[] {
    const batch: AddressChunkRows[] = [];
    for (let start = 0; start < rows; start += CHUNK_ROWS) {
      const end = Math.min(rows, start + CHUNK_ROWS);
      const firstRow = written + start + 1;
      batch.push({
        chunk: (firstRow - 1) / CHUNK_ROWS,
        firstRow,
        inputs: inputs.slice(start, end),
        fields: fields?.slice(start, end),
        dupOf: dups.slice(start, end),
        results: answers.length === 0 ? undefined : answers.slice(start, end),
      });
    }
    inputs = inputs.slice(rows);
    fields = fields?.slice(rows);
    dups = dups.slice(rows);
    answers = answers.slice(rows);
    written += rows;
    return batch;
  }

  /** Writes the first `rows` rows held, the job row first when it is the first write. */
  function write(rows: number): Promise<void> {
    const batch = take(rows);
    const first = !started;
    started = true;
    writing = writing.then(async () => {
      // Expires like any job, 48 hours on: the sweeper's retention sweep deletes it then whatever happened.
      if (first) {
        await sql`
          with t as (select ${dbClock(sql, now)} as now)
          insert into jobs (id, account_id, kind, status, total, processed, created_at, expires_at, columns)
          select ${jobId}, ${accountId}, 'address', 'uploading', 0, 0, t.now,
                 t.now + ${JOB_RETENTION_HOURS} * interval '1 hour',
                 ${columns === undefined ? null : sql.json(columns as string[])}
          from t`;
      }
      await insertAddressChunks(sql, jobId, batch, "uploading");
    });
    return writing;
  }

  return {
    jobId,
    get total() {
      return total;
    },
    get distinct() {
      return firstOf.size;
    },
    get written() {
      return written;
    },
    add(input, rowFields, answer) {
      assertOpen("add a row to");
      if ((fields === undefined) !== (rowFields === undefined)) {
        throw new TypeError("Cannot add a row to an address upload: cells are given for CSV uploads, and only then");
      }
      total++;
      const key = addressKey(input);
      const seen = firstOf.get(key);
      if (seen === undefined) firstOf.set(key, total);
      inputs.push(input);
      fields?.push(rowFields!);
      dups.push(seen ?? null);
      if (answer !== undefined) {
        answeredRows++;
        answers.push(answer);
      }
      if (answeredRows !== 0 && answeredRows !== total) {
        throw new RangeError("Cannot add a row to an address upload: every row comes answered, or none");
      }
    },
    async drain() {
      assertOpen("write");
      const whole = Math.floor(inputs.length / CHUNK_ROWS) * CHUNK_ROWS;
      if (whole >= UPLOAD_INSERT_CHUNKS * CHUNK_ROWS) await write(whole);
      else await writing;
    },
    async finish() {
      assertOpen("finish");
      // Nothing written yet: the rows wait for the commit's transaction.
      if (started) while (inputs.length > 0) await write(Math.min(inputs.length, UPLOAD_INSERT_CHUNKS * CHUNK_ROWS));
      await writing;
      finished = true;
    },
    async commit(commitOptions = {}) {
      assertOpen("commit");
      if (!finished) throw new Error("Cannot commit an address upload: finish() it first");
      const { idempotency, callbackUrl } = commitOptions;
      const answered = answeredRows === total;
      const status = answered ? ("completed" as const) : ("queued" as const);
      try {
        const job = await sql.begin(async (tx) => {
          // Submitted now: the retention of 48 hours counts from here, as for a job submitted whole.
          const clock = dbClock(sql, commitOptions.now ?? now);
          const key = idempotency?.key ?? null;
          const hash = idempotency?.requestHash ?? null;
          let row: Row | undefined;
          if (!started) {
            [row] = await tx`
              with t as (select ${clock} as now)
              insert into jobs (id, account_id, kind, status, total, processed, created_at, expires_at, columns,
                                idempotency_key, request_hash)
              select ${jobId}, ${accountId}, 'address', ${status}, ${total}, ${answered ? total : 0}, t.now,
                     t.now + ${JOB_RETENTION_HOURS} * interval '1 hour',
                     ${columns === undefined ? null : sql.json(columns as string[])}, ${key}, ${hash}
              from t
              returning created_at, expires_at`;
            while (inputs.length > 0) {
              const rows = Math.min(inputs.length, UPLOAD_INSERT_CHUNKS * CHUNK_ROWS);
              await insertAddressChunks(tx, jobId, take(rows), "pending");
            }
          } else {
            [row] = await tx`
              with t as (select ${clock} as now)
              update jobs j
              set status = ${status}, total = ${total}, processed = ${answered ? total : 0}, created_at = t.now,
                  expires_at = t.now + ${JOB_RETENTION_HOURS} * interval '1 hour',
                  idempotency_key = ${key}, request_hash = ${hash}
              from t
              where j.id = ${jobId} and j.status = 'uploading'
              returning j.created_at, j.expires_at`;
            if (row === undefined) throw new Error("Cannot commit an address upload: its job is gone (swept)");
            if (!answered) {
              await tx`
                update address_job_chunks set status = 'pending' where job_id = ${jobId} and status = 'uploading'`;
            }
          }
          if (callbackUrl !== undefined) {
            await tx`
              insert into job_callbacks (job_id, url, next_attempt_at) values (${jobId}, ${callbackUrl}, ${row!.created_at})`;
          }
          return row!;
        });
        state = "committed";
        return {
          jobId,
          total,
          status,
          createdAt: job.created_at as Date,
          expiresAt: job.expires_at as Date,
        };
      } catch (error) {
        throw submissionError(error);
      }
    },
    async discard() {
      if (state !== "open") return;
      state = "discarded";
      const stored = started;
      inputs = [];
      fields = undefined;
      dups = [];
      answers = [];
      firstOf.clear();
      // A write in flight may have failed (the reason of the discard): the delete runs whatever it did.
      await writing.catch(() => {});
      // Nothing written: nothing to delete.
      if (stored) await sql`delete from jobs where id = ${jobId} and status = 'uploading'`;
    },
  };
}

/**
 * Deletes the uploads left 'uploading' longer than `olderThanMs` (their process died mid-upload: no client was
 * answered for them, nothing was charged); answers how many.
 */
export async function sweepAbandonedUploads(sql: Sql, options: { olderThanMs: number } & ClockOption): Promise<number> {
  const { olderThanMs, now } = options;
  const rows = await sql`
    delete from jobs
    where status = 'uploading'
      and created_at <= ${dbClock(sql, now)} - ${olderThanMs}::double precision * interval '1 millisecond'
    returning 1`;
  return rows.length;
}
