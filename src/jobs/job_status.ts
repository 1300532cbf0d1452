// A job's status alone, for a job read held until the job ends (`Prefer: wait=N`, http/job_wait.ts): one indexed row,
// re-read every second or at each write of the job's rows, where a full read would count the results every time.
import type { Sql } from "../store/db.ts";
import type { JobStatus } from "./job_store.ts";
import { liveJobWhere } from "./job_rows.ts";

/** The status of the account's live job, email or address; undefined alike for an unknown, expired or foreign job. */
export async function readJobStatus(sql: Sql, accountId: string, jobId: string): Promise<JobStatus | undefined> {
  const [row] = await sql`select j.status ${liveJobWhere(sql, undefined, accountId, jobId)}`;
  return row === undefined ? undefined : (row.status as JobStatus);
}
