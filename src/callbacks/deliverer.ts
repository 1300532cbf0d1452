// The loop that sends completion callbacks: it claims the callbacks whose job has ended and whose attempt is due,
// POSTs each, signed, to its URL (post_callback.ts), and records what came of it (callback_store.ts): delivered on
// a 2xx, otherwise tried again with back-off (retry_delay.ts) for a day, or failed at once when the target is
// refused. Any number of deliverers (one per worker process) share the table through leases; a callback may still
// be sent twice when a process dies after the receiver answered and before the answer was written, so receivers
// treat a second call for the same job_id as the same news.
//
// The body is the job read (email or address job alike) without its results (GET /v1/jobs/{id} minus `results` and `callback`), plus `poll`, the
// URL the results are read at: what Kickbox's batch callback and ZeroBounce's return_url send, a notice with the
// counts, not the results, so that it stays small whatever the job's size and the results are read with the same
// key and rules as by polling.
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Logger } from "../log.ts";
import type { MxResolver } from "../email/net/mx_resolver.ts";
import type { Sql } from "../store/db.ts";
import { createJobStore } from "../jobs/job_store.ts";
import { createAddressJobStore } from "../jobs/address_job_store.ts";
import { createCallbackStore, type AttemptOutcome, type DueCallback } from "./callback_store.ts";
import { hostOf, type CallbackPolicy } from "./callback_target.ts";
import { postCallback } from "./post_callback.ts";
import { callbackRetryDelay, DEFAULT_CALLBACK_RETRY, type CallbackRetryPolicy } from "./retry_delay.ts";
import { createCallbackSecretStore } from "./secret_store.ts";
import { SIGNATURE_HEADER, signatureHeader } from "./signature.ts";

export const CALLBACK_USER_AGENT = "vrai-callbacks/1";

export interface CallbackDelivererOptions {
  sql: Sql;
  log: Logger;
  policy: CallbackPolicy;
  /** How callback hosts are resolved (the DNS_SERVERS resolver). */
  resolver: Pick<MxResolver, "resolveAddresses">;
  /** The API's public base URL, for the body's `poll` (read at each delivery). */
  publicUrl: () => string;
  /** Lease holder name; unique per deliverer. */
  owner?: string;
  /** Bound on one attempt (CALLBACK_TIMEOUT_MS). */
  timeoutMs?: number;
  /** Wait between looks at the table when nothing was due. */
  pollMs?: number;
  /** Callbacks sent at once, at most. */
  batchSize?: number;
  retry?: Partial<CallbackRetryPolicy>;
  /** Certificate authorities trusted instead of Node's own (tests); unset: Node's. */
  tlsCa?: string;
  /**
   * This deliverer is the only one on its database (the embedded one): callbacks a dead process left leased are
   * taken back at start instead of when their leases run out.
   */
  exclusive?: boolean;
}

export interface CallbackDeliverer {
  readonly owner: string;
  /** Looks for due callbacks now instead of at the next poll. */
  wake(): void;
  /** Aborts the attempts in flight and hands their callbacks back. */
  stop(): Promise<void>;
}

export function startCallbackDeliverer(options: CallbackDelivererOptions): CallbackDeliverer {
  const {
    sql,
    log,
    policy,
    resolver,
    publicUrl,
    owner = `${hostname()}:${process.pid}:callbacks:${randomUUID().slice(0, 8)}`,
    timeoutMs = 10_000,
    pollMs = 1_000,
    batchSize = 16,
    tlsCa,
    exclusive = false,
  } = options;
  const retry: CallbackRetryPolicy = { ...DEFAULT_CALLBACK_RETRY, ...options.retry };
  for (const [name, value] of Object.entries({ timeoutMs, pollMs, batchSize, ...retry })) {
    if (!(Number.isFinite(value) && value > 0)) {
      throw new RangeError(`Cannot start the callback deliverer: ${name} must be a positive number, got ${value}`);
    }
  }
  // A lease outlives the attempt it covers, so that no other deliverer starts the same callback meanwhile.
  const leaseMs = timeoutMs + 30_000;
  const store = createCallbackStore(sql);
  const jobs = createJobStore(sql);
  const addressJobs = createAddressJobStore(sql);
  const secrets = createCallbackSecretStore(sql);
  const stopping = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = exclusive
    ? store.reclaimAll().then(
        (n) => {
          if (n > 0) log.info("callbacks taken back from a process that died", { callbacks: n });
        },
        (error) =>
          log.warn("callbacks not taken back", { error: error instanceof Error ? error.message : String(error) }),
      )
    : Promise.resolve();
  let again = false;
  // A database that does not answer fails every poll: its first failure is logged, then its end, not each one.
  let claimsFailing = false;

  /** What the attempt came to, to be recorded. */
  async function attempt(callback: DueCallback): Promise<AttemptOutcome> {
    const retryInMs = callbackRetryDelay(callback.attempts, retry);
    // An address job first, else an email job, as the job read route asks (the email read does not tell kinds apart).
    const job =
      (await addressJobs.read(callback.accountId, callback.jobId, { limit: 0 })) ??
      (await jobs.read(callback.accountId, callback.jobId, { limit: 0 }));
    if (job === undefined)
      return { delivered: false, status: null, error: "the job has expired", final: true, retryInMs };
    const { results: _results, callback: _callback, ...notice } = job;
    const body = JSON.stringify({ ...notice, poll: `${publicUrl()}/v1/jobs/${job.job_id}` });
    const signature = signatureHeader(
      body,
      await secrets.signingSecrets(callback.accountId),
      Math.floor(Date.now() / 1000),
    );
    const outcome = await postCallback(callback.url, {
      body,
      headers: { "content-type": "application/json", "user-agent": CALLBACK_USER_AGENT, [SIGNATURE_HEADER]: signature },
      policy,
      resolver,
      timeoutMs,
      signal: stopping.signal,
      tlsCa,
    });
    if ("refused" in outcome)
      return { delivered: false, status: null, error: `refused: ${outcome.refused}`, final: true, retryInMs };
    if ("error" in outcome) return { delivered: false, status: null, error: outcome.error, retryInMs };
    const delivered = outcome.status >= 200 && outcome.status < 300;
    return {
      delivered,
      status: outcome.status,
      error: delivered ? null : `the receiver answered ${outcome.status}`,
      retryInMs,
    };
  }

  async function deliver(callback: DueCallback): Promise<void> {
    // The URL's path and query may carry the receiver's tokens: logs name its host only.
    const fields = { job_id: callback.jobId, host: hostOf(callback.url), attempt: callback.attempts };
    try {
      const outcome = await attempt(callback);
      await store.record(callback, outcome, { giveUpAfterMs: retry.giveUpAfterMs });
      if (outcome.delivered) log.info("callback delivered", { ...fields, status: outcome.status });
      else log.warn("callback attempt failed", { ...fields, error: outcome.error, final: outcome.final === true });
    } catch (error) {
      // Stopped, or the database failed: the lease runs out (or is handed back) and the callback is tried again.
      if (stopping.signal.aborted) return;
      log.warn("callback attempt not recorded", {
        ...fields,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  async function tick(): Promise<void> {
    do {
      again = false;
      if (stopping.signal.aborted) return;
      let due: DueCallback[];
      try {
        due = await store.claim(owner, { limit: batchSize, leaseMs });
      } catch (error) {
        if (!claimsFailing)
          log.warn("callback claim failed", { error: error instanceof Error ? error.message : String(error) });
        claimsFailing = true;
        return;
      }
      if (claimsFailing) log.info("callback claims work again", {});
      claimsFailing = false;
      await Promise.all(due.map(deliver));
      if (due.length === batchSize) again = true;
    } while (again);
  }

  const schedule = (ms: number) => {
    if (stopping.signal.aborted) return;
    clearTimeout(timer);
    timer = setTimeout(run, ms);
  };
  function run(): void {
    running = running.then(tick).finally(() => schedule(pollMs));
  }
  schedule(0);

  return {
    owner,
    wake() {
      again = true;
      schedule(0);
    },
    async stop() {
      stopping.abort(new DOMException("Cannot deliver the callback: the deliverer stopped", "AbortError"));
      clearTimeout(timer);
      await running;
      await store.release(owner).catch(() => 0);
    },
  };
}
