// What the HTTP layer and the job runner are given: built once by main.ts (or a test), never imported globally.
import type { Config } from "./config.ts";
import type { Logger } from "./log.ts";
import type { Database } from "./store/db.ts";
import type { Plan } from "./accounts/plans.ts";
import type { KeyResolver } from "./auth/key_cache.ts";
import type { RateLimiter } from "./limits/rate_limiter.ts";
import type { QuotaLedger } from "./limits/quota.ts";
import type { EmailVerification } from "./email/types.ts";
import type { AddressInput, AddressVerification } from "./address/types.ts";

export interface EmailVerifier {
  verify(email: string, options?: { signal?: AbortSignal }): Promise<EmailVerification>;
}

export interface AddressVerifier {
  verify(input: AddressInput, options?: { signal?: AbortSignal }): Promise<AddressVerification>;
  readonly ready: boolean;
}

export interface JobRecord {
  job_id: string;
  status: "queued" | "running" | "completed" | "failed";
  total: number;
  processed: number;
  created_at: string;
  expires_at: string;
  failure_reason?: string;
  results: EmailVerification[];
}

export interface JobQueue {
  /** With answers (test keys), the job is stored already completed with them. */
  submit(
    accountId: string,
    emails: string[],
    options?: { answers?: EmailVerification[] },
  ): Promise<{ jobId: string; status: JobRecord["status"]; total: number; createdAt: string; expiresAt: string }>;
  read(accountId: string, jobId: string): Promise<JobRecord | undefined>;
}

export interface Services {
  config: Config;
  log: Logger;
  db: Database;
  plans: Record<string, Plan>;
  keys: KeyResolver;
  rate: RateLimiter;
  quota: QuotaLedger;
  email: EmailVerifier;
  address: AddressVerifier;
  jobs: JobQueue;
}
