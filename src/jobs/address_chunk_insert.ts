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
  // unnest() pads shorter arrays with nulls: JSON submissions store no cells, live ones no answers.
  const fieldTexts: string[] = [];
  const resultTexts: string[] = [];
  const summaries: string[] = [];
  for (const c of chunks) {
    if (c.fields !== undefined) fieldTexts.push(JSON.stringify(c.fields));
    if (c.results !== undefined) {
      resultTexts.push(JSON.stringify(c.results));
      summaries.push(JSON.stringify(summaryOf(c.results)));
    }
  }
  await sql`
    insert into address_job_chunks (job_id, chunk, first_row, size, inputs, fields, dup_of, status, results, summary)
    select ${jobId}, u.chunk, u.first_row, u.size, u.inputs, u.fields, u.dup_of,
           case when u.results is null then ${waiting} else 'done' end, u.results, u.summary::jsonb
    from unnest(${sql.array(chunks.map((c) => c.chunk))}::int[], ${sql.array(chunks.map((c) => c.firstRow))}::int[],
                ${sql.array(chunks.map((c) => c.inputs.length))}::int[],
                ${sql.array(chunks.map((c) => JSON.stringify(c.inputs)))}::text[], ${sql.array(fieldTexts)}::text[],
                ${sql.array(chunks.map((c) => JSON.stringify(c.dupOf)))}::text[], ${sql.array(resultTexts)}::text[],
                ${sql.array(summaries)}::text[])
      as u(chunk, first_row, size, inputs, fields, dup_of, results, summary)`;
}
