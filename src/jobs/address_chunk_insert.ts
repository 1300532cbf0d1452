// How the chunks of a bulk address job are inserted, for a submission held whole (address_job_store.ts submit) and for
// an upload written as it is read (address_upload.ts): several chunks per statement, each chunk one row whose inputs,
// cells, dup_of and answers are JSON arrays as text (migration 008).
import type { AddressInput, AddressVerification } from "../address/types.ts";
import type { Queryable } from "../store/db.ts";

/** One chunk's rows, as inserted. */
export interface AddressChunkRows {
  chunk: number;
  /** The 1-based position of its first row. */
  firstRow: number;
  inputs: readonly AddressInput[];
  /** A CSV submission's cells, one list per row; absent for JSON submissions. */
  fields?: readonly (readonly string[])[];
  dupOf: readonly (number | null)[];
  /** Answers known at submission (test keys): the chunk is stored done with them. */
  results?: readonly AddressVerification[];
}

/** Answers counted by verdict. */
export function summaryOf(results: readonly AddressVerification[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of results) counts[r.verdict] = (counts[r.verdict] ?? 0) + 1;
  return counts;
}

/**
 * Inserts the chunks in one statement. A chunk without answers is stored `waiting`: 'pending' (claimed by runners) or
 * 'uploading' (invisible until its upload is committed).
 */
export async function insertAddressChunks(
  sql: Queryable,
  jobId: string,
  chunks: readonly AddressChunkRows[],
  waiting: "pending" | "uploading",
): Promise<void> {
  if (chunks.length === 0) return;
  // A row of parameters per chunk: its texts go to the database as they are, where text[] arrays had each of them
  // escaped into an array literal by this thread and parsed out of it by the database.
  const rows = chunks.map((c) => ({
    job_id: jobId,
    chunk: c.chunk,
    first_row: c.firstRow,
    size: c.inputs.length,
    inputs: JSON.stringify(c.inputs),
    fields: c.fields === undefined ? null : JSON.stringify(c.fields),
    dup_of: JSON.stringify(c.dupOf),
    status: c.results === undefined ? waiting : "done",
    results: c.results === undefined ? null : JSON.stringify(c.results),
    summary: c.results === undefined ? null : sql.json(summaryOf(c.results)),
  }));
  await sql`insert into address_job_chunks ${sql(rows)}`;
}
