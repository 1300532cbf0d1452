// What the HTTP routes see of bulk jobs: submit and read, with dates as the API writes them.
import type { Sql } from "../store/db.ts";
import type { JobQueue } from "../services.ts";
import { createJobStore, type JobStore } from "./job_store.ts";

export function createJobQueue(sql: Sql, store: JobStore = createJobStore(sql)): JobQueue {
  return {
    async submit(accountId, emails, options = {}) {
      const job = await store.submit(accountId, emails, { answers: options.answers, table: options.table });
      return {
        jobId: job.jobId,
        status: options.answers ? "completed" : "queued",
        total: job.total,
        createdAt: job.createdAt.toISOString(),
        expiresAt: job.expiresAt.toISOString(),
      };
    },
    read: (accountId, jobId, options = {}) =>
      store.read(accountId, jobId, { offset: options.offset, limit: options.limit }),
    readTable: (accountId, jobId) => store.readTable(accountId, jobId),
  };
}
