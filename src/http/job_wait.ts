// `Prefer: wait=N` on a job read (RFC 7240 §4.3, an extension described in the OpenAPI document): while the job is
// queued or running, the read is held until the job ends or N seconds pass, then answered as any read. Clients poll
// once per job end instead of every half second, and see the end when it happens rather than at their next poll.
//
// The job's end is seen two ways: the runners of this process say when they wrote a job's rows (jobs/job_progress.ts),
// which re-reads the status at once; and a periodic re-read (every second) sees a job finished by another process
// sharing the database, or news this process missed. Each held read costs a socket and a status query a second, so
// the reads held at once are bounded per account and overall: beyond, the read is answered at once (the client
// polls as before) rather than refused.
import type { JobStatus } from "../jobs/job_store.ts";
import { type JobProgress, processJobProgress } from "../jobs/job_progress.ts";
import { preferredWait } from "./prefer.ts";

/**
 * The longest hold, in seconds. Proxies and load balancers in front of an API close a response that stays silent
 * for longer than their read or idle timeout (60 s by default for nginx's proxy_read_timeout and an AWS load
 * balancer's idle timeout) and answer 502/504; a hold well below that leaves room for the read itself and for
 * proxies configured tighter. A longer wait is applied as this one (Preference-Applied says so) and the client asks again.
 */
export const MAX_JOB_WAIT_S = 30;

/** The seconds to hold a job read for its `Prefer` header, or null: none, malformed, or `wait=0` (answer at once). */
export function jobWaitSeconds(prefer: string | null): number | null {
  const wait = preferredWait(prefer);
  return wait === null || wait === 0 ? null : Math.min(wait, MAX_JOB_WAIT_S);
}

/**
 * `not-running`: the job had ended (or is not the caller's) when asked, nothing was held. `busy`: too many reads held
 * already, nothing was held. `ended`: held until the job ended. `timed-out`: held the whole time, the job still runs.
 * `released`: the server is stopping, the read answers now (held or not, the client asks again, elsewhere perhaps).
 */
export type JobWaitOutcome = "not-running" | "busy" | "ended" | "timed-out" | "released";

export interface JobWaitRequest {
  accountId: string;
  jobId: string;
  seconds: number;
  /** The client's request: its disconnect ends the hold at once (the promise rejects with the signal's reason). */
  signal: AbortSignal;
  /** The job's status for this account now; undefined for a job unknown, expired or another account's. */
  status: () => Promise<JobStatus | undefined>;
}

export interface JobWaits {
  wait(request: JobWaitRequest): Promise<JobWaitOutcome>;
  /** Reads held now. */
  readonly holding: number;
  /**
   * Ends every hold now and holds none from then on: the server is stopping, and a held read should answer with the
   * job's state rather than keep the stop waiting, then be cut off with its connection.
   */
  release(): void;
}

export interface JobWaitsOptions {
  /** Reads held at once per account, beyond which they are answered at once. */
  perAccount?: number;
  /** Reads held at once in this process. */
  overall?: number;
  /** How often a held read re-reads its job's status without news from a runner of this process. */
  recheckMs?: number;
  progress?: JobProgress;
}

function isLive(status: JobStatus | undefined): boolean {
  return status === "queued" || status === "running";
}

export function createJobWaits(options: JobWaitsOptions = {}): JobWaits {
  const { perAccount = 10, overall = 200, recheckMs = 1000, progress = processJobProgress } = options;
  for (const [name, value] of Object.entries({ perAccount, overall, recheckMs })) {
    if (!(Number.isInteger(value) && value > 0)) {
      throw new RangeError(`Cannot create the job waits: ${name} must be a positive integer, got ${value}`);
    }
  }
  const byAccount = new Map<string, number>();
  let holding = 0;
  let released = false;
  /** The pokes of the reads held now, for release(). */
  const held = new Set<() => void>();

  function take(accountId: string): boolean {
    const mine = byAccount.get(accountId) ?? 0;
    if (holding >= overall || mine >= perAccount) return false;
    byAccount.set(accountId, mine + 1);
    holding++;
    return true;
  }

  function give(accountId: string): void {
    const mine = (byAccount.get(accountId) ?? 1) - 1;
    if (mine <= 0) byAccount.delete(accountId);
    else byAccount.set(accountId, mine);
    holding--;
  }

  async function hold(request: JobWaitRequest): Promise<JobWaitOutcome> {
    const { jobId, seconds, signal, status } = request;
    const until = performance.now() + seconds * 1000;
    // News that arrives while a status query runs is kept for the next round, never lost.
    let news = false;
    let wake: (() => void) | undefined;
    const poke = () => {
      news = true;
      wake?.();
    };
    // Listening before the first status query: a job ending between the two is heard.
    const unlisten = progress.listen(jobId, poke);
    signal.addEventListener("abort", poke);
    held.add(poke);
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      if (signal.aborted) throw signal.reason;
      if (!isLive(await status())) return "not-running";
      for (;;) {
        const left = until - performance.now();
        if (left <= 0) return "timed-out";
        if (!news) {
          await new Promise<void>((resolve) => {
            wake = resolve;
            timer = setTimeout(resolve, Math.min(recheckMs, left));
          });
          clearTimeout(timer);
          timer = undefined;
          wake = undefined;
        }
        news = false;
        if (signal.aborted) throw signal.reason;
        if (released) return "released";
        if (performance.now() >= until) return "timed-out";
        if (!isLive(await status())) return "ended";
      }
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", poke);
      held.delete(poke);
      unlisten();
    }
  }

  return {
    get holding() {
      return holding;
    },
    release() {
      released = true;
      for (const poke of [...held]) poke();
    },
    async wait(request) {
      if (released) return "released";
      if (!take(request.accountId)) return "busy";
      try {
        return await hold(request);
      } finally {
        give(request.accountId);
      }
    },
  };
}
