// What the HTTP routes see of bulk jobs: submit and read, with dates as the API writes them.
import type { Sql } from "../store/db.ts";
import type { AcceptedJob, JobQueue } from "../services.ts";
import { createJobStore, type JobStatus, type JobStore, type SubmittedJob } from "./job_store.ts";
import { type AddressJobStore, createAddressJobStore } from "./address_job_store.ts";
import { readJobStatus } from "./job_status.ts";
import { startAddressUpload } from "./address_upload.ts";

function acceptedJob(job: SubmittedJob, status: JobStatus): AcceptedJob {
  return {
    jobId: job.jobId,
    status,
    total: job.total,
    createdAt: job.createdAt.toISOString(),
    expiresAt: job.expiresAt.toISOString(),
  };
}

export function createJobQueue(
  sql: Sql,
  store: JobStore = createJobStore(sql),
  addresses: AddressJobStore = createAddressJobStore(sql),
): JobQueue {
  return {
    startAddressUpload: (accountId, options = {}) => startAddressUpload(sql, accountId, options),
    async commitAddressUpload(upload, options = {}) {
      const job = await upload.commit(options);
      return acceptedJob(job, job.status);
    },
    readAddresses: (accountId, jobId, options = {}) =>
      addresses.read(accountId, jobId, { offset: options.offset, limit: options.limit }),
    readAddressTable: (accountId, jobId) => addresses.readTable(accountId, jobId),
    async submit(accountId, emails, options = {}) {
      const { answers, table, idempotency, callbackUrl } = options;
      const job = await store.submit(accountId, emails, { answers, table, idempotency, callbackUrl });
      return acceptedJob(job, answers ? "completed" : "queued");
    },
    async findIdempotent(accountId, key) {
      const job = await store.findIdempotent(accountId, key);
      return job && { ...acceptedJob(job, job.status), requestHash: job.requestHash };
    },
    read: (accountId, jobId, options = {}) =>
      store.read(accountId, jobId, { offset: options.offset, limit: options.limit }),
    readTable: (accountId, jobId) => store.readTable(accountId, jobId),
    status: (accountId, jobId) => readJobStatus(sql, accountId, jobId),
  };
}
