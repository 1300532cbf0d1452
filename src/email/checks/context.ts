// The one signature every check follows, and what they share while one address goes through the pipeline.
import type { Logger } from "../../log.ts";
import type { CheckOutcome, MxHost, ParsedEmail } from "../types.ts";
import type { MxLookup } from "../mx_lookup.ts";
import type { HeldSession, SmtpProber } from "../smtp/prober.ts";
import type { CatchAllMemo } from "./catch_all.ts";

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
  /** Set by the smtp check when the real recipient was accepted; catch_all continues on that connection. */
  accepted: HeldSession | null;
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
}

export type Check = (ctx: CheckContext) => Promise<CheckOutcome>;
