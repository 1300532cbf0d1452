// The email engine: runs the check registry for one address (verify) or a bulk chunk (verifyMany), with the network
// boundary (resolver, dialer) injected and shared state (MX cache, catch-all memo, per-MX connection slots) kept
// for the engine's lifetime.
import { randomBytes } from "node:crypto";
import type { Config } from "../config.ts";
import { silentLogger, type Logger } from "../log.ts";
import { redactEmail } from "../redact.ts";
import { createCatchAllMemo } from "./checks/catch_all.ts";
import type { CheckContext, CheckDeps, CheckState } from "./checks/context.ts";
import { CHECKS } from "./checks/registry.ts";
import { createMxLookup } from "./mx_lookup.ts";
import { parseCidr } from "./net/cidr.ts";
import { createDnsResolver, type MxResolver } from "./net/mx_resolver.ts";
import { createNetDialer, type SmtpDialer } from "./smtp/dialer.ts";
import { createSmtpPool } from "./smtp/pool.ts";
import { createSmtpProber } from "./smtp/prober.ts";
import type { CheckName, CheckOutcome, CheckStatus, EmailReason, EmailVerification } from "./types.ts";
import { verdict } from "./verdict.ts";

export type { MxResolver } from "./net/mx_resolver.ts";
export type { SmtpDialer } from "./smtp/dialer.ts";

export type EmailResult = EmailVerification & { retryAfterMs?: number };

export interface EmailEngine {
  /** One address, answering within config.emailDeadlineMs (probe_timeout if it must). Rejects only when the
   *  caller's own signal aborts (with that signal's reason). */
  verify(email: string, options?: { signal?: AbortSignal }): Promise<EmailVerification>;
  /** Many addresses (a bulk job's chunk): shares MX lookups and one catch-all probe per domain, keeps a per-MX
   *  connection limit, and reuses one SMTP connection for several recipients of the same MX (RSET between
   *  recipients; a new connection when the server refuses RSET/more recipients) unless reuseConnections is false.
   *  Calls onResult once per address as soon as it is final. Greylisted results come back with `retryAfterMs`
   *  (server hint or a default of 60000) so the job runner can retry later. */
  verifyMany(
    emails: string[],
    options: {
      signal?: AbortSignal;
      reuseConnections?: boolean;
      onResult: (r: EmailResult) => void | Promise<void>;
    },
  ): Promise<void>;
  /** Counters for benches: SMTP connections opened so far. */
  stats(): { smtpConnections: number };
  close(): Promise<void>;
}

export interface CreateEmailEngineOptions {
  log?: Logger;
  resolver?: MxResolver;
  dialer?: SmtpDialer;
  /** Open connections (busy or idle) per MX host. */
  maxConnectionsPerMx?: number;
  /** Addresses verifyMany works on at once. */
  concurrency?: number;
  /** Local part used for the catch-all probe. */
  randomLocal?: () => string;
  mxCacheTtlMs?: number;
  catchAllCacheTtlMs?: number;
}

const FLAGGED: Partial<Record<CheckName, "disposable" | "role" | "catch_all">> = {
  disposable: "disposable",
  role: "role",
  catch_all: "catch_all",
};

// Checks that wait on the network, and so on the deadline; the others answer from memory in microseconds.
const NETWORK_CHECKS: ReadonlySet<CheckName> = new Set(["mx", "smtp", "catch_all"]);

function defaultRandomLocal(): string {
  // Long and random: no real mailbox is called this, so acceptance can only mean "accepts anything".
  return `vrai-${randomBytes(9).toString("hex")}`;
}

// A check that ignores its signal must not hold the answer past the deadline.
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T | "aborted"> {
  if (signal.aborted) return Promise.resolve("aborted");
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve("aborted");
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

export function createEmailEngine(config: Config, options: CreateEmailEngineOptions = {}): EmailEngine {
  const {
    log = silentLogger,
    resolver = createDnsResolver({ servers: config.dnsServers, timeoutMs: config.probeTimeoutMs }),
    dialer = createNetDialer(),
    maxConnectionsPerMx = 3,
    concurrency = 32,
    randomLocal = defaultRandomLocal,
    mxCacheTtlMs = 5 * 60_000,
    catchAllCacheTtlMs = 60 * 60_000,
  } = options;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError("Cannot create email engine: concurrency must be a positive integer");
  }
  const allow = config.probeAllowCidrs.map(parseCidr);
  const pool = createSmtpPool({ maxPerHost: maxConnectionsPerMx });
  const prober = createSmtpProber({
    dialer,
    pool,
    port: config.smtpPort,
    heloName: config.smtpHeloName,
    mailFrom: config.smtpMailFrom,
    probeTimeoutMs: config.probeTimeoutMs,
    allow,
    log,
  });
  const deps: CheckDeps = {
    mxLookup: createMxLookup(resolver, { ttlMs: mxCacheTtlMs }),
    prober,
    log,
    catchAll: createCatchAllMemo({ ttlMs: catchAllCacheTtlMs }),
    randomLocal,
  };

  async function run(email: string, options: { caller?: AbortSignal; reuse: boolean }): Promise<EmailResult> {
    const started = performance.now();
    // The deadline signal is built when the network checks start: most answers settle before DNS and would pay for
    // two signals and a timer they never use.
    let signal: AbortSignal | undefined;
    const deadlineSignal = (): AbortSignal => {
      if (signal === undefined) {
        const deadline = AbortSignal.timeout(Math.max(1, Math.round(config.emailDeadlineMs - (performance.now() - started))));
        signal = options.caller ? AbortSignal.any([options.caller, deadline]) : deadline;
      }
      return signal;
    };
    const state: CheckState = { parsed: null, mx: null, accepted: null, retryAfterMs: null };
    const ctx: CheckContext = {
      input: email,
      state,
      deps,
      get signal() {
        return deadlineSignal();
      },
      reuseConnections: options.reuse,
    };
    const checks = Object.fromEntries(CHECKS.map((c) => [c.name, "skipped"])) as Record<CheckName, CheckStatus>;
    const flags: EmailVerification["flags"] = { disposable: null, role: null, catch_all: null };
    const reasons: EmailReason[] = [];
    let suggestion: string | null = null;
    let settled = false;
    // A check still running past the deadline may yet hold an SMTP session: it is released when it finishes.
    let abandoned: Promise<unknown> | null = null;
    try {
      for (const check of CHECKS) {
        if (settled) break;
        let outcome: CheckOutcome;
        try {
          const work = check.run(ctx);
          const result = NETWORK_CHECKS.has(check.name) ? await untilAborted(work, deadlineSignal()) : await work;
          if (result === "aborted") abandoned = work;
          if (options.caller?.aborted) throw options.caller.reason;
          outcome = result === "aborted" ? { status: "inconclusive", reasons: ["probe_timeout"], settles: true } : result;
        } catch (error) {
          if (options.caller?.aborted) throw options.caller.reason;
          // A fault of ours must not become a verdict about the address: report that we could not tell.
          log.error("email check failed", { check: check.name, email: redactEmail(email), error: String(error) });
          outcome = { status: "inconclusive", reasons: ["probe_unavailable"], settles: true };
        }
        checks[check.name] = outcome.status;
        for (const reason of outcome.reasons ?? []) if (!reasons.includes(reason)) reasons.push(reason);
        if (outcome.suggestion !== undefined) suggestion = outcome.suggestion;
        if (outcome.retryAfterMs !== undefined) state.retryAfterMs = outcome.retryAfterMs;
        const flag = FLAGGED[check.name];
        if (flag !== undefined) flags[flag] = outcome.status === "fail" ? true : outcome.status === "pass" ? false : null;
        if (outcome.settles) settled = true;
      }
    } finally {
      const cleanup = () => {
        if (state.accepted !== null) prober.release(state.accepted, { keep: false });
        state.accepted = null;
      };
      if (abandoned !== null) abandoned.then(cleanup, cleanup);
      else cleanup();
    }
    const result: EmailResult = {
      email,
      verdict: verdict(reasons),
      reasons,
      suggestion,
      flags,
      checks,
      duration_ms: Math.round(performance.now() - started),
    };
    if (reasons.includes("greylisted")) result.retryAfterMs = state.retryAfterMs ?? 60_000;
    log.debug("email verified", { email: redactEmail(email), verdict: result.verdict, reasons, duration_ms: result.duration_ms });
    return result;
  }

  return {
    async verify(email, options = {}) {
      const { retryAfterMs: _, ...result } = await run(email, { caller: options.signal, reuse: false });
      return result;
    },

    async verifyMany(emails, options) {
      const { signal, reuseConnections = true, onResult } = options;
      let next = 0;
      const worker = async () => {
        while (next < emails.length) {
          signal?.throwIfAborted();
          const email = emails[next++]!;
          await onResult(await run(email, { caller: signal, reuse: reuseConnections }));
        }
      };
      try {
        // Every worker stops before verifyMany settles: no onResult call comes after it returned or threw.
        const settled = await Promise.allSettled(Array.from({ length: Math.min(concurrency, emails.length) }, worker));
        const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
        if (failed !== undefined) throw failed.reason;
      } finally {
        // Idle sessions stay in the shared pool for the next chunk (a job runs several chunks at once, in lanes);
        // the pool's idle timeout closes them, and close() drains it.
        await prober.settled();
      }
    },

    stats: () => prober.stats(),

    async close() {
      await pool.drain();
      await prober.settled();
    },
  };
}
