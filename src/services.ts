// What the HTTP layer and the job runner are given: built once by main.ts (or a test), never imported globally.
import type { Config } from "./config.ts";
import type { Logger } from "./log.ts";
import type { Database } from "./store/db.ts";
import type { Plan } from "./accounts/plans.ts";
import type { KeyResolver } from "./auth/key_cache.ts";
import type { RateLimiter } from "./limits/rate_limiter.ts";
import type { FailedAuthLimiter } from "./limits/failed_auth_limiter.ts";
import type { QuotaLedger } from "./limits/quota.ts";
import type { EmailVerification } from "./email/types.ts";
import type { EmailVerifier } from "./email/verifier.ts";
import type { Idempotency, Job, JobTable, ReadOptions, SubmittedTable } from "./jobs/job_store.ts";
import type { AddressInput, AddressVerification } from "./address/types.ts";
import type { AddressIndexStatus } from "./address/index_status.ts";
import type { AddressJob, AddressJobTable } from "./jobs/address_job_store.ts";
import type { AddressUpload } from "./jobs/address_upload.ts";
import type { EgressStatus } from "./email/egress/self_check.ts";
import type { Metrics } from "./metrics/metrics.ts";

export interface AddressVerifier {
  verify(input: AddressInput, options?: { signal?: AbortSignal }): Promise<AddressVerification>;
  readonly ready: boolean;
  /** Configured BAN départements without an index: the service still serves (unknown there); /readyz lists them. */
  readonly missing?: readonly string[];
  /** Where the street index stands (loading, importing, serving), for /readyz and the 503 of a first import. */
  readonly index?: AddressIndexStatus;
}

/** A job as its submission answers it (JobAccepted), dates as the API writes them. */
export interface AcceptedJob {
  jobId: string;
  status: Job["status"];
  total: number;
  createdAt: string;
  expiresAt: string;
}

export interface JobQueue {
  /** With answers (test keys), the job is stored already completed with them; with a table (CSV), its rows too. */
  submit(
    accountId: string,
    emails: string[],
    options?: {
      answers?: EmailVerification[];
      table?: SubmittedTable;
      idempotency?: Idempotency;
      /** Gets a signed POST when the job ends (callbacks/). */
      callbackUrl?: string;
    },
  ): Promise<AcceptedJob>;
  /** The live job the account submitted under an Idempotency-Key, with the fingerprint of that request. */
  findIdempotent(accountId: string, key: string): Promise<(AcceptedJob & { requestHash: string }) | undefined>;
  /** One page of results when `offset`/`limit` are given (default: all). */
  read(accountId: string, jobId: string, options?: Pick<ReadOptions, "offset" | "limit">): Promise<Job | undefined>;
  /** The finished rows as submitted, for CSV out. */
  readTable(accountId: string, jobId: string): Promise<JobTable | undefined>;
  /** A bulk address job written as its upload is read (jobs/address_upload.ts): invisible until committed. */
  startAddressUpload(accountId: string, options?: { columns?: readonly string[] }): AddressUpload;
  /** Commits an upload (finished) as a submission: its job queued, or completed when its rows came answered. */
  commitAddressUpload(
    upload: AddressUpload,
    options?: {
      idempotency?: Idempotency;
      /** Gets a signed POST when the job ends (callbacks/). */
      callbackUrl?: string;
    },
  ): Promise<AcceptedJob>;
  /** An address job of the account (undefined for any other job, as for none). */
  readAddresses(
    accountId: string,
    jobId: string,
    options?: Pick<ReadOptions, "offset" | "limit">,
  ): Promise<AddressJob | undefined>;
  readAddressTable(accountId: string, jobId: string): Promise<AddressJobTable | undefined>;
  /**
   * The status alone of a job of the account, email or address (undefined for none): what a read held until the job
   * ends (`Prefer: wait=N`) re-reads. A queue without it answers such reads at once.
   */
  status?(accountId: string, jobId: string): Promise<Job["status"] | undefined>;
}

export interface Services {
  config: Config;
  log: Logger;
  db: Database;
  plans: Record<string, Plan>;
  keys: KeyResolver;
  rate: RateLimiter;
  /** Failed authentications per client address (AUTH_FAILURES_PER_MINUTE), checked before any key lookup. */
  failedAuth: FailedAuthLimiter;
  quota: QuotaLedger;
  email: Pick<EmailVerifier, "verify">;
  address: AddressVerifier;
  jobs: JobQueue;
  /** The SMTP egress self-check run at start (shown in /readyz; never makes the service unready). */
  egress?: EgressStatus;
  /** Whether the process has been told to stop (SIGTERM or SIGINT): /readyz then answers 503 while calls are served. */
  stopping?: () => boolean;
  /** The process's instruments, served at GET /metrics; createApp makes its own when none is given. */
  metrics?: Metrics;
}
