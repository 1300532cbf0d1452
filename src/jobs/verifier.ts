// The boundary between the job runner and the email engine. The engine (src/email/) provides `verifyMany`; the runner
// depends only on this structural shape so that tests inject a fake and the two modules build independently.
import type { EmailVerification } from "../email/types.ts";

/** One address's answer, as stored in a job's results: the engine's EmailVerification. */
export type JobResult = EmailVerification;

/** What `verifyMany` reports per address: the final answer, plus the server's retry delay when greylisted. */
export type BatchResult = JobResult & { retryAfterMs?: number };

export interface VerifyManyOptions {
  signal?: AbortSignal;
  /** Reuse one SMTP connection for several recipients of one MX where the server allows it. */
  reuseConnections?: boolean;
  /** Called once per address when its answer is final. */
  onResult: (result: BatchResult) => void | Promise<void>;
}

export interface BatchVerifier {
  verifyMany(emails: string[], options: VerifyManyOptions): Promise<void>;
}

/** The reason an answer carries when the mail server deferred it (4xx): the runner retries those. */
export const GREYLISTED: EmailVerification["reasons"][number] = "greylisted";
