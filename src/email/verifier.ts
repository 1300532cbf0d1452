// The one contract between the email engine and its users: the HTTP routes call verify(), the bulk job runner calls
// verifyMany(). Each user depends on the part it calls (Pick<EmailVerifier, ...>), so tests inject a fake of that
// part only, and the engine (engine.ts) implements both.
import type { Logger } from "../log.ts";
import type { EmailVerification } from "./types.ts";

/** One address's answer in bulk, plus the server's greylisting delay when it gave one (for the runner's retry). */
export type EmailResult = EmailVerification & { retryAfterMs?: number };

export interface VerifyManyOptions {
  /** Ends every wait: the runner is stopping, or the batch reached its hard bound. */
  signal?: AbortSignal;
  /** Reuse one SMTP connection for several recipients of one MX where the server allows it (default true). */
  reuseConnections?: boolean;
  /** Called once per address as soon as its answer is final. */
  onResult: (result: EmailResult) => void | Promise<void>;
}

export interface VerifyOptions {
  signal?: AbortSignal;
  /** This call's deadline in ms, when shorter than EMAIL_DEADLINE_MS (never lengthens it). */
  deadlineMs?: number;
  /** Where this call's lines go, its probe lines included (a request's logger, carrying its id); default the engine's. */
  log?: Logger;
}

export interface EmailVerifier {
  /**
   * One address, answering within EMAIL_DEADLINE_MS, or within `deadlineMs` when the caller asks for less
   * (probe_timeout if it must). Rejects only when the caller's own signal aborts, with that signal's reason.
   */
  verify(email: string, options?: VerifyOptions): Promise<EmailVerification>;
  /**
   * Many addresses (a bulk job's batch): shares MX lookups and one catch-all probe per domain, keeps a per-MX
   * connection limit and reuses connections. An address waits in its MX's queue for as long as it takes; only its
   * own DNS queries and SMTP dialogues are bounded. Greylisted results carry `retryAfterMs`.
   */
  verifyMany(emails: string[], options: VerifyManyOptions): Promise<void>;
}
