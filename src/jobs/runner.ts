// The bulk job worker loop: claims batches of items under leases, hands them to the email engine's verifyMany, and
// writes each answer as it arrives, so a job's partial results grow while it runs. Any number of runners (in one or
// several processes) share the queue; see job_store.ts for why each address still gets exactly one result.
import { randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import { hostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import type { CheckName } from "../email/types.ts";
import type { Logger } from "../log.ts";
import { redactEmail } from "../redact.ts";
import type { Sql } from "../store/db.ts";
import { createJobStore, type ClaimedItem } from "./job_store.ts";
import { GREYLISTED, type BatchResult, type BatchVerifier, type JobResult } from "./verifier.ts";

export interface GreylistPolicy {
  /** Probes of a greylisted address, the first included, before its greylisted answer is final. */
  maxTries?: number;
  /** Retries happen within this time from the first greylisted answer. */
  windowMs?: number;
  /** Bounds of the delay before a retry (the server's delay, doubled at each further try). */
  minDelayMs?: number;
  maxDelayMs?: number;
}

export interface JobRunnerOptions {
  sql: Sql;
  verifier: BatchVerifier;
  log: Logger;
  /** Lease holder name; unique per runner so that a restarted process never mistakes old leases for its own. */
  owner?: string;
  /** How long a claim holds without renewal; a dead worker's items return to the queue after this. */
  leaseMs?: number;
  /**
   * Items per verifyMany call: the engine shares MX lookups and reuses SMTP connections only within one call, so a
   * batch should hold several addresses per domain (bench/bulk_5000.ts: 250 beat 100 and 500).
   */
  batchSize?: number;
  /**
   * Batches in flight at once: throughput is lanes times the engine's per-call concurrency, and one slow probe does
   * not hold up the next claim.
   */
  lanes?: number;
  /** Wait between claims when the queue is empty. */
  pollMs?: number;
  greylist?: GreylistPolicy;
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
}

export interface JobRunner {
  readonly owner: string;
  /** Claims at once instead of waiting for the next poll (a job was just submitted in this process). */
  wake(): void;
  /** Aborts in-flight verification and hands every claimed item back to the queue. */
  stop(): Promise<void>;
}

const CHECK_NAMES: readonly CheckName[] = ["syntax", "provider_rules", "typo", "disposable", "role", "mx", "smtp", "catch_all"];

/**
 * The answer of an address whose verification kept failing: unknown, since the service could not tell, with
 * probe_unavailable, the reason the spec gives when nothing could be reached.
 */
export function fallbackResult(email: string): JobResult {
  return {
    email,
    verdict: "unknown",
    reasons: ["probe_unavailable"],
    suggestion: null,
    flags: { disposable: null, role: null, catch_all: null },
    checks: Object.fromEntries(CHECK_NAMES.map((name) => [name, "inconclusive"])) as JobResult["checks"],
    duration_ms: 0,
  };
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
    batchSize = 250,
    lanes = 4,
    pollMs = 1000,
    greylist = {},
    maxFailures = 3,
    errorDelayMs = 5000,
    reuseConnections = true,
    stopTimeoutMs = 10_000,
    exclusive = false,
  } = options;
  const { maxTries = 3, windowMs = 30 * 60_000, minDelayMs = 60_000, maxDelayMs = 5 * 60_000 } = greylist;
  for (const [name, value] of Object.entries({ leaseMs, batchSize, lanes, pollMs, maxTries, windowMs, maxFailures })) {
    positive(name, value);
  }
  if (!(minDelayMs >= 0 && maxDelayMs >= minDelayMs)) {
    throw new RangeError(`Cannot start the job runner: greylist delays must satisfy 0 <= minDelayMs <= maxDelayMs`);
  }

  const store = createJobStore(sql);
  const stopping = new AbortController();
  // Every probe in flight listens to this one signal: hundreds of listeners are expected, not a leak.
  setMaxListeners(0, stopping.signal);
  let nap = new AbortController(); // aborted by wake() and stop() to cut an idle wait short

  /** Delay before the next probe of a greylisted address: the server's delay first, then doubled, within bounds. */
  function greylistDelay(item: ClaimedItem, result: BatchResult): number {
    const base = result.retryAfterMs ?? minDelayMs;
    return Math.min(maxDelayMs, Math.max(minDelayMs, base * 2 ** item.greylistTries));
  }

  /** Writes an answer, or defers a greylisted one while tries and the window allow. */
  async function settle(item: ClaimedItem, result: BatchResult): Promise<void> {
    const { retryAfterMs: _retry, ...answer } = result;
    if (answer.reasons.includes(GREYLISTED) && item.greylistTries + 1 < maxTries) {
      const delayMs = greylistDelay(item, result);
      const firstAt = item.greylistedAt?.getTime() ?? Date.now();
      if (Date.now() + delayMs <= firstAt + windowMs) {
        await store.defer(item, { delayMs, greylisted: true });
        return;
      }
    }
    // The submission's spelling is the one the job shows, whatever the engine echoes back.
    const written = await store.complete(item, { result: { ...answer, email: item.email } });
    if (!written) log.warn("job item lease lost before its result", { job_id: item.jobId, email: redactEmail(item.email) });
  }

  /**
   * Verifies `items` in one verifyMany call; returns the items that got no answer (verifier error or a failed write),
   * still claimed by us. After an abort the caller leaves them for stop() to release.
   */
  async function verify(items: ClaimedItem[]): Promise<ClaimedItem[]> {
    const waiting = new Map<string, ClaimedItem[]>();
    for (const item of items) {
      const key = keyOf(item.email);
      waiting.set(key, [...(waiting.get(key) ?? []), item]);
    }
    const unanswered = new Set(items);
    // The same address may sit in two jobs of one batch: probe it once.
    const emails = interleaveDomains([...waiting.values()].map((group) => group[0]!.email.trim()));
    const writes: Promise<void>[] = [];
    const onResult = (result: BatchResult): Promise<void> => {
      const key = keyOf(result.email);
      const group = waiting.get(key);
      if (group === undefined) {
        log.warn("job runner got a result it did not ask for", { email: redactEmail(result.email) });
        return Promise.resolve();
      }
      waiting.delete(key);
      const write = Promise.all(
        group.map(async (item) => {
          try {
            await settle(item, result);
            unanswered.delete(item);
          } catch (error) {
            log.error("job runner could not write a result", { job_id: item.jobId, error: String(error) });
          }
        }),
      ).then(() => {});
      writes.push(write);
      return write;
    };
    try {
      await verifier.verifyMany(emails, { signal: stopping.signal, reuseConnections, onResult });
    } catch (error) {
      if (!stopping.signal.aborted) {
        log.warn("job verifier failed", { items: unanswered.size, error: String(error) });
      }
    }
    await Promise.all(writes);
    return [...unanswered];
  }

  /** Items that did not get an answer go back to the queue after a backoff; their failed hand-out is counted. */
  async function retryLater(items: ClaimedItem[]): Promise<void> {
    for (const item of items) {
      const failures = item.attempts - item.greylistTries; // this hand-out included
      const delayMs = Math.min(5 * 60_000, errorDelayMs * 2 ** (failures - 1));
      try {
        await store.defer(item, { delayMs });
      } catch (error) {
        // The lease runs out on its own and the item returns to the queue then.
        log.error("job runner could not defer an item", { job_id: item.jobId, error: String(error) });
      }
    }
  }

  async function runBatch(items: ClaimedItem[]): Promise<void> {
    // An item handed out too often without an answer (it crashed its worker, or the verifier keeps throwing on it)
    // gets the fallback answer rather than looping forever.
    const live: ClaimedItem[] = [];
    for (const item of items) {
      if (item.attempts - 1 - item.greylistTries >= maxFailures) {
        log.warn("job item gave up after repeated failures", { job_id: item.jobId, email: redactEmail(item.email) });
        await store.complete(item, { result: fallbackResult(item.email), exhausted: true });
      } else {
        live.push(item);
      }
    }
    if (live.length === 0) return;

    // Long SMTP dialogues outlast a lease: renew it while the batch runs, so a live worker never loses its items
    // (items already answered are skipped by the store).
    const renewal = setInterval(() => {
      store.renew(live, { leaseMs }).catch((error) => log.warn("job lease renewal failed", { error: String(error) }));
    }, Math.max(10, Math.floor(leaseMs / 3)));
    try {
      let left = await verify(live);
      // When a whole batch fails, one bad address may be the cause: try the rest one by one, so it alone is charged
      // with the failure.
      if (left.length > 1 && !stopping.signal.aborted) {
        const single: ClaimedItem[] = [];
        for (const item of left) {
          if (stopping.signal.aborted) break;
          single.push(...(await verify([item])));
        }
        left = stopping.signal.aborted ? [] : single;
      }
      if (!stopping.signal.aborted) await retryLater(left);
    } finally {
      clearInterval(renewal);
    }
  }

  async function lane(): Promise<void> {
    while (!stopping.signal.aborted) {
      let items: ClaimedItem[] = [];
      try {
        items = await store.claim(owner, { limit: batchSize, leaseMs });
      } catch (error) {
        log.warn("job runner could not claim items", { error: String(error) });
      }
      if (stopping.signal.aborted) break; // stop() releases what was just claimed
      if (items.length > 0) {
        try {
          await runBatch(items);
          continue;
        } catch (error) {
          // A database failure mid-batch: the items' leases run out and they return to the queue; the lane lives on.
          log.error("job runner batch failed", { items: items.length, error: String(error) });
        }
      }
      await sleep(pollMs, undefined, { signal: nap.signal }).catch(() => {});
      if (nap.signal.aborted && !stopping.signal.aborted) nap = new AbortController();
    }
  }

  async function recover(): Promise<void> {
    try {
      const reclaimed = await store.reclaimAll();
      if (reclaimed > 0) log.info("job items of a stopped process reclaimed", { items: reclaimed });
    } catch (error) {
      log.warn("job runner could not reclaim items at start", { error: String(error) });
    }
  }

  const ready = exclusive ? recover() : Promise.resolve();
  const running = ready.then(() =>
    Promise.all(
      Array.from({ length: lanes }, () =>
        lane().catch((error) => log.error("job runner lane stopped", { error: String(error) })),
      ),
    ),
  );
  log.info("job runner started", { owner, lanes, batch_size: batchSize });

  let stopped: Promise<void> | undefined;
  return {
    owner,
    wake() {
      nap.abort();
    },
    stop() {
      stopped ??= (async () => {
        stopping.abort();
        nap.abort();
        const timer = sleep(stopTimeoutMs, undefined, { ref: false });
        await Promise.race([running, timer]);
        const released = await store.release(owner);
        log.info("job runner stopped", { owner, released });
      })();
      return stopped;
    },
  };
}
