// The one signature every check follows, and what they share while one address goes through the pipeline.
import type { Logger } from "../../log.ts";
import type { CheckOutcome, MxHost, ParsedEmail } from "../types.ts";
import type { MxLookup } from "../mx_lookup.ts";
import type { ProbeOutcome, SmtpProber } from "../smtp/prober.ts";
import type { CatchAllMemo } from "./catch_all_memo.ts";

export interface CheckDeps {
  mxLookup: MxLookup;
  prober: SmtpProber;
  log: Logger;
  /** Catch-all answers per domain, shared by every call of the engine. */
  catchAll: CatchAllMemo;
  /** Random local part for the catch-all probe; injectable so tests are repeatable. */
  randomLocal: () => string;
}

/** Mutable per-address state: each check reads what earlier ones left. */
export interface CheckState {
  parsed: ParsedEmail | null;
  mx: MxHost[] | null;
  /** The catch-all recipient's answer, when the smtp check asked it on the session that accepted the real one. */
  catchAllProbe: ProbeOutcome | null;
  /** Server's greylisting delay, when a check ended greylisted. */
  retryAfterMs: number | null;
}

export interface CheckContext {
  input: string;
  state: CheckState;
  deps: CheckDeps;
  signal: AbortSignal;
  /** verifyMany lets connections live on for the next recipient of the same MX. */
  reuseConnections: boolean;
  /** Part of a bulk chunk: mail exchangers that keep timing out are skipped (smtp/mx_health.ts). */
  bulk: boolean;
  /** This call's logger (a request's, carrying its id), handed to the prober; undefined: the engine's own. */
  log?: Logger;
}

export type Check = (ctx: CheckContext) => Promise<CheckOutcome>;
