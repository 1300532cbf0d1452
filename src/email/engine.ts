// The email engine: runs the check registry for one address (verify) or a bulk chunk (verifyMany), with the network
// boundary (resolver, dialer) injected and shared state (MX cache, catch-all memo, per-MX connection slots) kept
// for the engine's lifetime.
import { randomBytes } from "node:crypto";
import { setMaxListeners } from "node:events";
import { deadline, untilAborted, type Deadline } from "../async/deadline.ts";
import type { Config } from "../config.ts";
import { silentLogger, type Logger } from "../log.ts";
import { redactEmail } from "../redact.ts";
import { createCatchAllMemo } from "./checks/catch_all_memo.ts";
import type { CheckContext, CheckDeps, CheckState } from "./checks/context.ts";
import { CHECKS } from "./checks/registry.ts";
import { DEFAULT_GREYLIST_DELAY_MS } from "./checks/probe_outcome.ts";
import { createMxLookup } from "./mx_lookup.ts";
import { parseCidr } from "./net/cidr.ts";
import { createDnsResolver, type MxResolver } from "./net/mx_resolver.ts";
import type { SmtpDialer } from "./smtp/dialer.ts";
import { createEgress } from "./smtp/egress.ts";
import { createSmtpPool } from "./smtp/pool.ts";
import { createSmtpProber } from "./smtp/prober.ts";
import { coolOffFor, createMxHealth } from "./smtp/mx_health.ts";
import type { MailServerCluster } from "./cluster/mail_server_cluster.ts";
import type { CheckName, CheckOutcome, EmailReason, EmailVerification } from "./types.ts";
import { allChecks } from "./vocabulary.ts";
import type { Metrics } from "../metrics/metrics.ts";
import { smtpPoolUse } from "../metrics/smtp_pool_use.ts";
import { timedProber } from "../metrics/timed_prober.ts";
import { timedResolver } from "../metrics/timed_resolver.ts";
import { verdict } from "./verdict.ts";
import type { EmailResult, EmailVerifier } from "./verifier.ts";

export type { MxResolver } from "./net/mx_resolver.ts";
export type { SmtpDialer } from "./smtp/dialer.ts";

export type { EmailResult } from "./verifier.ts";

/** The email engine: both halves of the EmailVerifier contract, plus what the process and the benches need. */
export interface EmailEngine extends EmailVerifier {
  /** Counters for benches: SMTP connections opened so far. */
  stats(): { smtpConnections: number };
  close(): Promise<void>;
}

export interface CreateEmailEngineOptions {
  log?: Logger;
  resolver?: MxResolver;
  dialer?: SmtpDialer;
  /** Open connections (busy or idle) per MX host; default SMTP_MAX_PER_MX. */
  maxConnectionsPerMx?: number;
  /**
   * Processes sharing a PostgreSQL: the per-MX limit holds for all of them together, and catch-all answers and MX
   * cool-offs are shared (cluster/). Unset: this process is alone, everything stays in memory.
   */
  cluster?: MailServerCluster;
  /**
   * Addresses verifyMany works on at once. High by default: a bulk address waiting for its MX costs a promise, and
   * the more of one MX's recipients wait together, the more share each SMTP transaction (smtp/prober.ts).
   */
  concurrency?: number;
  /** Recipients (catch-all probes included) asked in one SMTP transaction at most, in bulk. */
  recipientsPerTransaction?: number;
  /** Local part used for the catch-all probe. */
  randomLocal?: () => string;
  mxCacheTtlMs?: number;
  catchAllCacheTtlMs?: number;
  /** Answers, SMTP probes, DNS queries and per-MX pool use are recorded here. */
  metrics?: Metrics;
}

const FLAGGED: Partial<Record<CheckName, "disposable" | "role" | "catch_all">> = {
  disposable: "disposable",
  role: "role",
  catch_all: "catch_all",
};

// A signal that never aborts, for bulk items without a caller's signal; every waiting recipient listens to it.
const NEVER = new AbortController().signal;
setMaxListeners(0, NEVER);

/** verifyMany starts this many addresses, then lets the event loop turn once before it starts the rest. */
const START_SLICE = 50;

// Checks that wait on the network, and so on the deadline; the others answer from memory in microseconds.
const NETWORK_CHECKS: ReadonlySet<CheckName> = new Set(["mx", "smtp", "catch_all"]);

function defaultRandomLocal(): string {
  // Long and random: no real mailbox is called this, so acceptance can only mean "accepts anything".
  return `vrai-${randomBytes(9).toString("hex")}`;
}

export function createEmailEngine(config: Config, options: CreateEmailEngineOptions = {}): EmailEngine {
  const {
    log = silentLogger,
    resolver = createDnsResolver({ servers: config.dnsServers, timeoutMs: config.probeTimeoutMs }),
    // Direct, through SMTP_PROXY, or per MX host by SMTP_PROXY_RULES (smtp/egress.ts).
    dialer = createEgress(config, { log, resolver }).dialer,
    maxConnectionsPerMx = config.smtpMaxPerMx ?? 3,
    concurrency = 5000,
    recipientsPerTransaction,
    randomLocal = defaultRandomLocal,
    mxCacheTtlMs = 5 * 60_000,
    catchAllCacheTtlMs = 60 * 60_000,
    metrics,
    cluster,
  } = options;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError("Cannot create email engine: concurrency must be a positive integer");
  }
  const allow = config.probeAllowCidrs.map(parseCidr);
  const pool = createSmtpPool({ maxPerHost: maxConnectionsPerMx, leases: cluster?.leases });
  const coolOffMs = coolOffFor(config.probeTimeoutMs);
  const health = cluster?.shareCoolOff(createMxHealth({ coolOffMs }), { coolOffMs });
  const bareProber = createSmtpProber({
    dialer,
    pool,
    port: config.smtpPort,
    heloName: config.smtpHeloName,
    mailFrom: config.smtpMailFrom,
    probeTimeoutMs: config.probeTimeoutMs,
    allow,
    log,
    recipientsPerTransaction,
    connectionsPerHost: maxConnectionsPerMx,
    health,
  });
  const prober = metrics ? timedProber(bareProber, metrics) : bareProber;
  const unwatchPool = metrics?.watchSmtpPool(() => smtpPoolUse(pool, bareProber));
  const deps: CheckDeps = {
    mxLookup: createMxLookup(metrics ? timedResolver(resolver, metrics) : resolver, { ttlMs: mxCacheTtlMs }),
    prober,
    log,
    catchAll: cluster
      ? cluster.shareCatchAll(createCatchAllMemo({ ttlMs: catchAllCacheTtlMs }), { ttlMs: catchAllCacheTtlMs })
      : createCatchAllMemo({ ttlMs: catchAllCacheTtlMs }),
    randomLocal,
  };

  /**
   * One address through the registry. A single call (`deadlineMs` set) answers within that time from its start,
   * with probe_timeout if it must. A bulk item (`deadlineMs` null) has no clock of its own: it waits in the per-MX
   * queue for as long as it takes, and only its DNS queries and SMTP dialogues are bounded, each by its own budget.
   * Either way the caller's signal ends every wait; the promise then rejects with its reason.
   */
  async function run(
    email: string,
    options: { caller?: AbortSignal; item?: AbortSignal; reuse: boolean; deadlineMs: number | null; log?: Logger },
  ): Promise<EmailResult> {
    const started = performance.now();
    // A request's logger when it gave one: this address's lines, its probes' included, carry the request's id.
    const lines = options.log ?? log;
    // The deadline is started when the network checks start: most answers settle before DNS and would pay for a
    // timer they never use. Its clock still counts from the call's start.
    let limit: Deadline | undefined;
    const signalOf = (): AbortSignal => {
      if (options.deadlineMs === null) return options.item ?? options.caller ?? NEVER;
      limit ??= deadline(options.deadlineMs - (performance.now() - started), {
        parents: [options.caller],
        what: "verify the email address",
      });
      return limit.signal;
    };
    const state: CheckState = { parsed: null, mx: null, catchAllProbe: null, retryAfterMs: null };
    const ctx: CheckContext = {
      input: email,
      state,
      deps,
      get signal() {
        return signalOf();
      },
      reuseConnections: options.reuse,
      bulk: options.deadlineMs === null,
      log: options.log,
    };
    const checks = allChecks("skipped");
    const flags: EmailVerification["flags"] = { disposable: null, role: null, catch_all: null };
    const reasons: EmailReason[] = [];
    let suggestion: string | null = null;
    try {
      for (const check of CHECKS) {
        let outcome: CheckOutcome;
        try {
          const work = check.run(ctx);
          // A network check that ignores its signal must not hold a single call's answer past the deadline. A bulk
          // item has no deadline: its waits end on the caller's signal themselves, and thousands of items listening
          // on that one signal here would cost O(n²) in EventTarget.
          const single = options.deadlineMs !== null;
          const result = single && NETWORK_CHECKS.has(check.name) ? await untilAborted(work, signalOf()) : await work;
          if (options.caller?.aborted) throw options.caller.reason;
          outcome =
            result === "aborted" ? { status: "inconclusive", reasons: ["probe_timeout"], settles: true } : result;
        } catch (error) {
          if (options.caller?.aborted) throw options.caller.reason;
          // A fault of ours must not become a verdict about the address: report that we could not tell.
          lines.error("email check failed", { check: check.name, email: redactEmail(email), error: String(error) });
          outcome = { status: "inconclusive", reasons: ["probe_unavailable"], settles: true };
        }
        checks[check.name] = outcome.status;
        for (const reason of outcome.reasons ?? []) if (!reasons.includes(reason)) reasons.push(reason);
        if (outcome.suggestion !== undefined) suggestion = outcome.suggestion;
        if (outcome.retryAfterMs !== undefined) state.retryAfterMs = outcome.retryAfterMs;
        const flag = FLAGGED[check.name];
        if (flag !== undefined)
          flags[flag] = outcome.status === "fail" ? true : outcome.status === "pass" ? false : null;
        if (outcome.settles) break;
      }
    } finally {
      // A check abandoned at the deadline saw the same signal abort: its dialogue ends and its session is closed.
      limit?.dispose();
    }
    const result: EmailResult = {
      // A lone surrogate cannot be written as UTF-8: the echo shows U+FFFD where the input had one.
      email: email.toWellFormed(),
      verdict: verdict(reasons),
      reasons,
      suggestion,
      flags,
      checks,
      duration_ms: Math.round(performance.now() - started),
    };
    if (reasons.includes("greylisted")) result.retryAfterMs = state.retryAfterMs ?? DEFAULT_GREYLIST_DELAY_MS;
    metrics?.emailAnswer(result, "live");
    lines.debug("email verified", {
      email: redactEmail(email),
      verdict: result.verdict,
      reasons,
      duration_ms: result.duration_ms,
    });
    return result;
  }

  return {
    async verify(email, options = {}) {
      const { retryAfterMs: _, ...result } = await run(email, {
        caller: options.signal,
        reuse: false,
        // A caller's own budget (Prefer: wait=N) only ever shortens the server's.
        deadlineMs: Math.min(options.deadlineMs ?? config.emailDeadlineMs, config.emailDeadlineMs),
        log: options.log,
      });
      return result;
    },

    async verifyMany(emails, options) {
      const { signal, reuseConnections = true, onResult } = options;
      // Each address waits on a signal of its own, aborted with the caller's: every wait of the checks (the MX lookup's
      // included) listens to it, and a chunk's hundreds of addresses listening on the caller's one signal would cost
      // O(n²) in EventTarget (each add walks the list). One listener on the caller's signal fans out to the addresses
      // still running.
      const running = new Set<AbortController>();
      const abortAll = () => {
        for (const item of running) item.abort(signal!.reason);
      };
      signal?.addEventListener("abort", abortAll, { once: true });
      let next = 0;
      const worker = async () => {
        while (next < emails.length) {
          signal?.throwIfAborted();
          const email = emails[next++]!;
          const item = new AbortController();
          running.add(item);
          let result: EmailResult;
          try {
            result = await run(email, { caller: signal, item: item.signal, reuse: reuseConnections, deadlineMs: null });
          } finally {
            running.delete(item);
          }
          await onResult(result);
        }
      };
      try {
        // The first START_SLICE workers start, the event loop turns once, then the rest start: the first addresses
        // reach their MX (connections dialled) while the rest of a large chunk is checked, instead of every address
        // going through the in-memory checks in lockstep before the first connection opens. The rest start together,
        // so that each MX queue gets its recipients at once and its transactions take them in few chunks (a turn
        // between every slice measured worse on bench/bulk_5000.ts with PIPELINING: many one-recipient chunks).
        const workers: Promise<void>[] = [];
        const count = Math.min(concurrency, emails.length);
        for (let i = 0; i < count; i++) {
          if (i === START_SLICE) await new Promise<void>((resolve) => setImmediate(resolve));
          const started = worker();
          started.catch(() => {}); // read by allSettled below; not unhandled while later slices start
          workers.push(started);
        }
        // Every worker stops before verifyMany settles: no onResult call comes after it returned or threw.
        const settled = await Promise.allSettled(workers);
        const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
        if (failed !== undefined) throw failed.reason;
      } finally {
        signal?.removeEventListener("abort", abortAll);
        // Idle sessions stay in the shared pool for the next chunk (a job runs several chunks at once);
        // the pool's idle timeout closes them, and close() drains it.
        await prober.settled();
      }
    },

    stats: () => prober.stats(),

    async close() {
      unwatchPool?.();
      await pool.drain();
      await prober.settled();
    },
  };
}
