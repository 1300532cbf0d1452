// What both bulk job stores (email items, address chunks) say the same way in SQL: "now" on one clock, the live job
// of an account as one lookup whatever the case, the Idempotency-Key conflict of a submission, and the leases of the
// rows workers claim (job_items, address_job_chunks: the same status and lease columns).
import type { PendingQuery, Row } from "postgres";
import type { Sql } from "../store/db.ts";
import { IdempotencyKeyTaken } from "./idempotency_key_taken.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// Stands in for a malformed id so that every read runs the same query (no early return, same timing class).
const NO_ID = "00000000-0000-0000-0000-000000000000";
/** SQLSTATE unique_violation. */
const UNIQUE_VIOLATION = "23505";

export function isUuid(text: string): boolean {
  return UUID.test(text);
}

/** "Now" in a statement: the test's clock when given, else the database's, one clock for every process. */
export function dbClock(sql: Sql, now: Date | undefined): PendingQuery<Row[]> {
  return sql`coalesce(${now ?? null}::timestamptz, clock_timestamp())`;
}

/**
 * `from jobs j where …`: the job of the account, still alive, of the kind given (any kind when none): none alike for
 * an unknown, expired or foreign job, and for an upload not yet submitted (jobs/address_upload.ts).
 */
export function liveJobWhere(
  sql: Sql,
  now: Date | undefined,
  accountId: string,
  jobId: string,
  kind?: "address",
): PendingQuery<Row[]> {
  return sql`
    from jobs j
    where j.id = ${isUuid(jobId) ? jobId : NO_ID}::uuid
      and j.account_id = ${isUuid(accountId) ? accountId : NO_ID}::uuid
      ${kind === undefined ? sql`` : sql`and j.kind = ${kind}`}
      and j.status <> 'uploading'
      and j.expires_at > ${dbClock(sql, now)}`;
}

/** Throws on a submission whose account id is no uuid, or whose CSV rows are not one per address. */
export function assertSubmittable(
  accountId: string,
  table: { rows: readonly unknown[] } | undefined,
  addresses: number,
): void {
  if (!isUuid(accountId)) throw new TypeError(`Cannot submit a job: account id "${accountId}" is not a uuid`);
  if (table !== undefined && table.rows.length !== addresses) {
    throw new RangeError(`Cannot submit a job: ${table.rows.length} rows for ${addresses} addresses`);
  }
}

/** A submission's failure as thrown on: IdempotencyKeyTaken when another request under its key committed first. */
export function submissionError(error: unknown): unknown {
  const e = error as { code?: string; constraint_name?: string } | null;
  // The unique index on (account_id, idempotency_key).
  if (e?.code === UNIQUE_VIOLATION && e.constraint_name === "jobs_idempotency_key") {
    return new IdempotencyKeyTaken("Cannot submit a job: its Idempotency-Key is taken", { cause: error });
  }
  return error;
}

/** The tables whose rows workers claim under leases. */
export type LeasedTable = "job_items" | "address_job_chunks";

/** Puts back in the queue the rows whose lease ran out (their claimer died or hung); answers how many. */
export async function expireLeases(sql: Sql, table: LeasedTable, now: Date | undefined): Promise<number> {
  const rows = await sql`
    update ${sql(table)} set status = 'pending', lease_owner = null, lease_until = null
    where status = 'claimed' and lease_until <= ${dbClock(sql, now)}`;
  return rows.count;
}

/** Hands every row the owner holds back to the queue at once (graceful stop); the hand-out does not count. */
export async function releaseLeases(sql: Sql, table: LeasedTable, owner: string): Promise<number> {
  const rows = await sql`
    update ${sql(table)}
    set status = 'pending', lease_owner = null, lease_until = null, attempts = greatest(attempts - 1, 0)
    where status = 'claimed' and lease_owner = ${owner}
    returning 1`;
  return rows.length;
}

/**
 * Hands back the rows of every owner, counting their attempt as failed. Only for a database one process owns (the
 * embedded one, behind its STATE_DIR lock): whatever is claimed at start was held by a process that died.
 */
export async function reclaimAllLeases(sql: Sql, table: LeasedTable): Promise<number> {
  const rows = await sql`
    update ${sql(table)} set status = 'pending', lease_owner = null, lease_until = null
    where status = 'claimed'
    returning 1`;
  return rows.length;
}
