// The bulk job worker loop: claims batches of items under leases, hands them to the email engine's verifyMany, and
// writes each answer as it arrives (answers that arrive together share one statement, settle_batcher.ts), so a job's
// partial results grow while it runs. The runner keeps a window of items in flight, not of batches: the next batch is
// claimed as soon as the items answered make room for it, not once a whole batch (and so its slowest mail exchanger)
// is done, so that each MX's queue in the engine keeps recipients for its open transactions (smtp/prober.ts) instead
// of running dry at every batch's tail. Any number of runners (in one or several processes) share the queue; see
// job_store.ts for why each address still gets exactly one result.
import { randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import { hostname } from "node:os";
import { deadline, isTimeoutReason } from "../async/deadline.ts";
import { allChecks, type EmailReason } from "../email/vocabulary.ts";
import type { Logger } from "../log.ts";
import { redactEmail } from "../redact.ts";
import type { Sql } from "../store/db.ts";
import { createJobStore, type ClaimedItem } from "./job_store.ts";
import { afterAnswer, DEFAULT_RETRY_POLICY, exhausted, failureDelay, type RetryPolicy } from "./retry_rules.ts";
import { createSettleBatcher } from "./settle_batcher.ts";
import { createStoreOutageLog } from "./store_outage_log.ts";
import { startClaimLoop } from "./claim_loop.ts";
import type { EmailVerification } from "../email/types.ts";
import type { EmailResult, EmailVerifier } from "../email/verifier.ts";
import { countedJobStore } from "../metrics/counted_job_store.ts";
import type { Metrics } from "../metrics/metrics.ts";
import { type JobProgress, processJobProgress } from "./job_progress.ts";

/** Greylist retries (retry_rules.ts); unset members keep their defaults. */
export type GreylistPolicy = Partial<RetryPolicy["greylist"]>;

export interface JobRunnerOptions {
  sql: Sql;
  verifier: Pick<EmailVerifier, "verifyMany">;
  log: Logger;
  /** Lease holder name; unique per runner so that a restarted process never mistakes old leases for its own. */
  owner?: string;
  /** How long a claim holds without renewal; a dead worker's items return to the queue after this. */
  leaseMs?: number;
  /**
   * Items per claim, and so per verifyMany call. Each claim is a statement the database runs while it also writes the
   * answers; fewer, larger claims keep the MX queues fed (bench/bulk_5000.ts, window of 2000, pipelined ratio over
   * four noisy runs: 500 gave 1.44-1.61, 250 gave 1.62-1.80; 1250 × 4 was no better than 500 × 4).
   */
  batchSize?: number;
  /**
   * Batches' worth of items in flight at most (lanes × batchSize, the window): a batch is claimed whenever the items
   * not yet answered leave room for one, so one slow probe holds up only its own item, never the next claim. The
   * window must hold more than the MX connections answer while a claim is written and run: 2000 is 40 addresses per
   * MX in bench/bulk_5000.ts, where 1000 left the queues dry while claims waited behind the answers' writes.
   */
  lanes?: number;
  /** Wait between claims when the queue is empty. */
  pollMs?: number;
  greylist?: GreylistPolicy;
  /** Delay before an address whose probe timed out is tried once more (the MX cool-off, smtp/mx_health.ts). */
  timeoutRetryDelayMs?: number;
  /**
   * Hard bound of a batch from its claim: items still unanswered then are finished as `unknown [probe_timeout]` and
   * their leases are no longer renewed, so a job always ends whatever its mail servers do.
   */
  itemTimeoutMs?: number;
  /** Failed hand-outs (verifier error, crash) of one item before it gets the fallback answer instead. */
  maxFailures?: number;
  /** Delay before an item is retried after a verifier error, doubled at each further failure. */
  errorDelayMs?: number;
  reuseConnections?: boolean;
  /**
   * This runner is the only one on its database (the embedded one: the STATE_DIR lock admits one process). Items an
   * earlier process left claimed are handed back at start instead of waiting for their leases to run out.
   */
  exclusive?: boolean;
  /** stop() waits this long for in-flight batches to notice the abort before it releases their items anyway. */
  stopTimeoutMs?: number;
  /** Items claimed and done, and leases found run out, are counted here. */
  metrics?: Metrics;
  /** Told of each result written, so that job reads held until their job ends see it at once (default: the process's). */
  progress?: JobProgress;
}

export interface JobRunner {
  readonly owner: string;
  /** Claims at once instead of waiting for the next poll (a job was just submitted in this process). */
  wake(): void;
  /**
   * Aborts in-flight verification and hands every claimed item back to the queue; never rejects: items it cannot hand
   * back (the database failed) are left to their lease.
   */
  stop(): Promise<void>;
}

/** An answer the service gives when it could not tell: unknown, every check inconclusive, with `reason`. */
function couldNotTell(email: string, reason: EmailReason): EmailVerification {
  return {
    email,
    verdict: "unknown",
    reasons: [reason],
    suggestion: null,
    flags: { disposable: null, role: null, catch_all: null },
    checks: allChecks("inconclusive"),
    duration_ms: 0,
  };
}

/**
 * The answer of an address whose verification kept failing: unknown, since the service could not tell, with
 * probe_unavailable, the reason the spec gives when nothing could be reached.
 */
export function fallbackResult(email: string): EmailVerification {
  return couldNotTell(email, "probe_unavailable");
}

/** The answer of an address still unanswered at the batch's hard bound (itemTimeoutMs). */
export function overdueResult(email: string): EmailVerification {
  return couldNotTell(email, "probe_timeout");
}

function domainOf(email: string): string {
  return email.slice(email.lastIndexOf("@") + 1).toLowerCase();
}

/**
 * Orders a batch round-robin over its domains, keeping the order within each ("a@x, c@x, b@y" -> "a@x, b@y, c@x").
 * The engine works through a batch in order with a fixed number of workers and a per-MX connection limit:
 * consecutive addresses of one domain would queue on that limit, while interleaved ones spread the workers over the
 * mail exchangers, each of which still reuses its idle connection for its next recipient in the batch.
 */
export function interleaveDomains(emails: readonly string[]): string[] {
  const byDomain = new Map<string, string[]>();
  for (const email of emails) {
    const domain = domainOf(email);
    const list = byDomain.get(domain);
    if (list) list.push(email);
    else byDomain.set(domain, [email]);
  }
  const queues = [...byDomain.values()];
  const out: string[] = [];
  for (let round = 0; out.length < emails.length; round++) {
    for (const queue of queues) if (round < queue.length) out.push(queue[round]!);
  }
  return out;
}

function keyOf(email: string): string {
  return email.trim().toLowerCase();
}

function positive(name: string, value: number): void {
  if (!(Number.isFinite(value) && value > 0)) {
    throw new RangeError(`Cannot start the job runner: ${name} must be a positive number, got ${value}`);
  }
}

export function startJobRunner(options: JobRunnerOptions): JobRunner {
  const {
    sql,
    verifier,
    log,
    owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
    leaseMs = 60_000,
    batchSize = 500,
    lanes = 4,
    pollMs = 1000,
    greylist = {},
    timeoutRetryDelayMs = DEFAULT_RETRY_POLICY.timeout.delayMs,
    itemTimeoutMs = 15 * 60_000,
    maxFailures = DEFAULT_RETRY_POLICY.failure.maxFailures,
    errorDelayMs = DEFAULT_RETRY_POLICY.failure.delayMs,
    reuseConnections = true,
    stopTimeoutMs = 10_000,
    exclusive = false,
    metrics,
    progress = processJobProgress,
  } = options;
  const policy: RetryPolicy = {
    greylist: { ...DEFAULT_RETRY_POLICY.greylist, ...greylist },
    timeout: { ...DEFAULT_RETRY_POLICY.timeout, delayMs: timeoutRetryDelayMs },
    failure: { ...DEFAULT_RETRY_POLICY.failure, maxFailures, delayMs: errorDelayMs },
  };
  const { maxTries, windowMs, minDelayMs, maxDelayMs } = policy.greylist;
  for (const [name, value] of Object.entries({
    leaseMs,
    batchSize,
    lanes,
    pollMs,
    maxTries,
    windowMs,
    maxFailures,
    itemTimeoutMs,
  })) {
    positive(name, value);
  }
  if (!(minDelayMs >= 0 && maxDelayMs >= minDelayMs)) {
    throw new RangeError(`Cannot start the job runner: greylist delays must satisfy 0 <= minDelayMs <= maxDelayMs`);
  }

  const store = metrics ? countedJobStore(createJobStore(sql), metrics) : createJobStore(sql);
  const stopping = new AbortController();
  // Every probe in flight listens to this one signal: hundreds of listeners are expected, not a leak.
  setMaxListeners(0, stopping.signal);
  // Every lane's results and deferrals, written together: one statement per round trip, not one per item.
  const writer = createSettleBatcher(store);
  const storeFailures = createStoreOutageLog(log);

  /** Writes the item's final answer; a lost lease writes nothing, and is logged. */
  async function finish(item: ClaimedItem, result: EmailVerification, gaveUp = false): Promise<void> {
    const written = await writer.settle({ item, result, exhausted: gaveUp });
    if (written) progress.wrote(item.jobId);
    if (!written)
      log.warn("job item lease lost before its result", { job_id: item.jobId, email: redactEmail(item.email) });
  }

  /** Writes an answer, or defers it for a retry while the rules allow (retry_rules.ts). */
  async function settle(item: ClaimedItem, result: EmailResult): Promise<void> {
    const { retryAfterMs: _retry, ...answer } = result;
    const decision = afterAnswer(item, result, policy, Date.now());
    if (decision.action === "retry") {
      await writer.settle({ item, retry: { delayMs: decision.delayMs, counts: decision.counts } });
      return;
    }
    // The submission's spelling is the one the job shows, whatever the engine echoes back.
    await finish(item, { ...answer, email: item.email });
  }

  /**
   * Verifies `items` in one verifyMany call, within the batch's hard bound; returns the items that got no answer
   * (verifier error or a failed write), still claimed by us. After an abort the caller leaves them for stop() to
   * release; items still unanswered at the hard bound are finished here.
   */
  async function verify(
    items: ClaimedItem[],
    bound: AbortSignal,
    letGo: (item: ClaimedItem) => void,
  ): Promise<ClaimedItem[]> {
    const waiting = new Map<string, ClaimedItem[]>();
    for (const item of items) {
      const key = keyOf(item.email);
      waiting.set(key, [...(waiting.get(key) ?? []), item]);
    }
    const unanswered = new Set(items);
    // The same address may sit in two jobs of one batch: probe it once.
    const emails = interleaveDomains([...waiting.values()].map((group) => group[0]!.email.trim()));
    const writes: Promise<void>[] = [];
    const write = (group: ClaimedItem[], finish: (item: ClaimedItem) => Promise<unknown>): Promise<void> => {
      const done = Promise.all(
        group.map(async (item) => {
          try {
            await finish(item);
            unanswered.delete(item);
            letGo(item);
          } catch (error) {
            storeFailures.failed("error", "job runner could not write a result", error, { job_id: item.jobId });
          }
        }),
      ).then(() => {});
      writes.push(done);
      return done;
    };
    const onResult = (result: EmailResult): Promise<void> => {
      const key = keyOf(result.email);
      const group = waiting.get(key);
      if (group === undefined) {
        log.warn("job runner got a result it did not ask for", { email: redactEmail(result.email) });
        return Promise.resolve();
      }
      waiting.delete(key);
      return write(group, (item) => settle(item, result));
    };
    try {
      await verifier.verifyMany(emails, { signal: bound, reuseConnections, onResult });
    } catch (error) {
      if (!bound.aborted) log.warn("job verifier failed", { items: unanswered.size, error: String(error) });
    }
    if (bound.aborted && !stopping.signal.aborted && isTimeoutReason(bound.reason)) {
      // The hard bound: whatever is still unanswered is finished, never renewed again.
      for (const group of waiting.values()) {
        log.warn("job item unanswered at its hard bound", {
          job_id: group[0]!.jobId,
          email: redactEmail(group[0]!.email),
        });
        write(group, (item) => finish(item, overdueResult(item.email)));
      }
      waiting.clear();
    }
    await Promise.all(writes);
    return [...unanswered];
  }

  /** Items that did not get an answer go back to the queue after a backoff; their failed hand-out is counted. */
  async function retryLater(items: ClaimedItem[]): Promise<void> {
    await Promise.all(
      items.map((item) =>
        writer.settle({ item, retry: { delayMs: failureDelay(item, policy) } }).catch((error) => {
          // The lease runs out on its own and the item returns to the queue then.
          storeFailures.failed("error", "job runner could not defer an item", error, { job_id: item.jobId });
        }),
      ),
    );
  }

  /** Runs one claimed batch; each item leaves the window of items in flight once settled, the rest at the end. */
  async function runBatch(items: ClaimedItem[]): Promise<void> {
    const counted = new Set(items);
    const letGo = (item: ClaimedItem) => {
      if (counted.delete(item)) outOfWindow(1);
    };
    try {
      await runItems(items, letGo);
    } finally {
      outOfWindow(counted.size);
      counted.clear();
    }
  }

  async function runItems(items: ClaimedItem[], letGo: (item: ClaimedItem) => void): Promise<void> {
    // An item handed out too often without an answer (it crashed its worker, or the verifier keeps throwing on it)
    // gets the fallback answer rather than looping forever.
    const live: ClaimedItem[] = [];
    const given: Promise<void>[] = [];
    for (const item of items) {
      if (exhausted(item, policy)) {
        log.warn("job item gave up after repeated failures", { job_id: item.jobId, email: redactEmail(item.email) });
        given.push(finish(item, fallbackResult(item.email), true).then(() => letGo(item)));
      } else {
        live.push(item);
      }
    }
    await Promise.all(given);
    if (live.length === 0) return;

    // Long SMTP dialogues outlast a lease: renew it while the batch runs, so a live worker never loses its items
    // (items already answered are skipped by the store). The hard bound ends the batch, and so the renewals.
    const bound = deadline(itemTimeoutMs, { parents: [stopping.signal], what: "verify the batch" });
    const renewal = setInterval(
      () => {
        store
          .renew(live, { leaseMs })
          .catch((error) => storeFailures.failed("warn", "job lease renewal failed", error));
      },
      Math.max(10, Math.floor(leaseMs / 3)),
    );
    try {
      let left = await verify(live, bound.signal, letGo);
      // When a whole batch fails, one bad address may be the cause: try the rest one by one, so it alone is charged
      // with the failure.
      if (left.length > 1 && !bound.signal.aborted) {
        const single: ClaimedItem[] = [];
        for (const item of left) {
          if (bound.signal.aborted) break;
          single.push(...(await verify([item], bound.signal, letGo)));
        }
        left = stopping.signal.aborted ? [] : single;
      }
      if (!stopping.signal.aborted) await retryLater(left);
    } finally {
      clearInterval(renewal);
      bound.dispose();
    }
  }

  // The window: items claimed and not yet settled, over every batch in flight.
  const loop = startClaimLoop<ClaimedItem>({
    name: "job runner",
    unit: "items",
    owner,
    log,
    storeFailures,
    stopping,
    pollMs,
    stopTimeoutMs,
    window: lanes * batchSize,
    claimSize: batchSize,
    claim: (limit) => store.claim(owner, { limit, leaseMs }),
    run: runBatch,
    // A database failure mid-batch: the items' leases run out and they return to the queue; the runner lives on.
    runFailed: (error, items) =>
      storeFailures.failed("error", "job runner batch failed", error, { items: items.length }),
    release: () => store.release(owner),
    reclaimAll: exclusive ? () => store.reclaimAll() : undefined,
    fields: { lanes, batch_size: batchSize },
  });
  const outOfWindow = (n: number) => loop.settled(n);

  return { owner, wake: () => loop.wake(), stop: () => loop.stop() };
}
