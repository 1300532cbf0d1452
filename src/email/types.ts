// Public shapes of the email engine (the HTTP layer and the job runner code against these) and the internal
// contract every check follows.

import type { CheckName, CheckStatus, EmailReason, Verdict } from "./vocabulary.ts";

export type { CheckName, CheckStatus, EmailReason, Verdict } from "./vocabulary.ts";

export interface EmailVerification {
  email: string;
  verdict: Verdict;
  reasons: EmailReason[];
  suggestion: string | null;
  flags: { disposable: boolean | null; role: boolean | null; catch_all: boolean | null };
  checks: Record<CheckName, CheckStatus>;
  duration_ms: number;
}

/** The address split and normalised by the syntax check; later checks only see this. */
export interface ParsedEmail {
  /** Local part as written (case kept: it may be significant to the receiving server). */
  local: string;
  /** Domain in lower-case ASCII (IDN converted to A-labels). */
  domain: string;
  /** True when the local part holds non-ASCII characters (RFC 6531, needs SMTPUTF8 at probe time). */
  utf8Local: boolean;
  /** True for a quoted-string local part. */
  quoted: boolean;
  /** True when no DNS query can find the domain: its top-level domain is not in the root zone, or is a special-use
   *  name that never resolves (RFC 6761 §6.3-6.4, RFC 7686), or a stray character precedes it (x@#gmail.com).
   *  The mx check then fails without a query. */
  unresolvable?: boolean;
}

/** One MX host with the addresses it resolved to, preference order kept. */
export interface MxHost {
  exchange: string;
  priority: number;
  addresses: string[];
}

/** What one check found. A failed stage is data, never an exception. */
export interface CheckOutcome {
  status: Exclude<CheckStatus, "skipped">;
  reasons?: EmailReason[];
  /** Stops the pipeline: every later check is reported as skipped. */
  settles?: boolean;
  suggestion?: string;
  /** Only for greylisting: how long the server asked us to wait. */
  retryAfterMs?: number;
}
