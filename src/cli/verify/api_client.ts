// The three calls the command makes to a vrai server, each bounded by a Deadline it owns (never
// AbortSignal.timeout, which Node 20 can collect away; src/async/deadline.ts says why). A 429 or 503 is waited out
// as its Retry-After says (job reads have their own 60/min allowance, submissions the plan's rate; the user is told
// of each wait), a dropped connection is tried again twice, and every other refusal becomes an ApiError carrying the problem's detail.
import { deadline, isTimeoutReason, sleep } from "../../async/deadline.ts";

/** The server could not be reached (refused, reset, DNS, time limit), after the retries. */
export class NetworkError extends Error {
  override name = "NetworkError";
  constructor(
    message: string,
    /** True when the request surely never reached the server (connection refused, name not found). */
    readonly unsent: boolean,
  ) {
    super(message);
  }
}

/** Failures that happen before a byte of the request is sent: trying a submission again cannot pay for it twice. */
const UNSENT_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);

/** The server answered with a status this command cannot go on from (401, 403, 400, 5xx…). */
export class ApiError extends Error {
  override name = "ApiError";
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

export type SubmitOutcome =
  | { kind: "accepted"; jobId: string; total: number }
  /** 413: over the plan's batch_max (`limit` given), or a body over the size ceiling (no `limit`). */
  | { kind: "too-large"; limit: number | undefined }
  /** 402: the month's quota cannot take this job. */
  | { kind: "quota"; detail: string };

export interface JobProgress {
  status: "queued" | "running" | "completed" | "failed";
  total: number;
  /** Addresses with their final answer. */
  processed: number;
  /** Addresses waiting for the server to try them again (0 from a server that does not say). */
  retrying: number;
  /** When the first of those is due, ms since the epoch; undefined when none waits. */
  nextRetryAt?: number;
  /** The server held the read until the job ended or the wait asked passed (it answered Preference-Applied). */
  held?: boolean;
}

export interface ApiClientOptions {
  url: string;
  key: string;
  /** Time limit of one HTTP exchange, answer body included. */
  timeoutMs: number;
  /** Ends every wait at once (Ctrl-C). */
  signal?: AbortSignal;
  /** Told before a wait on a 429/503, to say why nothing moves (once a minute at most for each kind of wait). */
  onWait?: (message: string) => void;
  /** Time before the first retry of a dropped connection (doubled for the second). */
  retryDelayMs?: number;
}

export interface ApiClient {
  /**
   * Submits a job under `idempotencyKey`: the same key sent again with the same rows answers the job it made, so a
   * submission whose answer was lost is sent again, and a resumed run repeats its last one, without paying twice.
   */
  submit(csv: string, idempotencyKey: string, options?: { path?: string }): Promise<SubmitOutcome>;
  /**
   * The job's state, or undefined when the server no longer has it (404: expired after 48 h, or another account's).
   * With `waitS`, a job still queued or running is answered once it ends or `waitS` seconds pass (`Prefer: wait`),
   * kept below the exchange's time limit; `held` says whether the server did hold it.
   */
  progress(jobId: string, options?: { waitS?: number }): Promise<JobProgress | undefined>;
  /**
   * The rows verified so far as CSV (the submitted columns, then the verdict columns) with the job's state, in one read;
   * undefined when the server no longer has the job.
   */
  rows(jobId: string): Promise<JobRows | undefined>;
}

export interface JobRows extends JobProgress {
  csv: string;
}

/** Waits longer than this are not waited: the answer is an error instead of a command that seems to hang for ever. */
const MAX_RETRY_AFTER_S = 900;
/** 429/503 answers waited out in a row on one call before giving up. */
const MAX_WAITS = 30;
const NETWORK_ATTEMPTS = 3;
/**
 * A kind of wait is told once a minute at most: on a small plan nearly every poll meets a 429 and waits a second, and
 * a line per wait would bury the progress.
 */
const WAIT_NOTE_EVERY_MS = 60_000;

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  const { url, key, timeoutMs, signal, onWait = () => {}, retryDelayMs = 500 } = options;
  const toldWaits = new Map<string, { at: number; untold: number }>();

  function tellWait(what: string, seconds: number): void {
    const now = Date.now();
    const last = toldWaits.get(what);
    if (last !== undefined && now - last.at < WAIT_NOTE_EVERY_MS) {
      last.untold++;
      return;
    }
    const more = last?.untold ? ` (${last.untold} more waits since the last note)` : "";
    toldWaits.set(what, { at: now, untold: 0 });
    onWait(`The server is ${what}: waiting ${seconds} s as its Retry-After says${more}`);
  }

  /** One exchange, body read included, within one deadline: a server that stalls mid-body is cut off too. */
  async function exchange(path: string, init: RequestInit): Promise<Answer> {
    const limit = deadline(timeoutMs, { parents: [signal], what: `reach ${url}` });
    try {
      const response = await fetch(url + path, {
        ...init,
        headers: { authorization: `Bearer ${key}`, ...init.headers },
        signal: limit.signal,
      });
      return { status: response.status, headers: response.headers, text: await response.text() };
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      const timedOut = isTimeoutReason(limit.signal.reason);
      const why = timedOut ? `no answer within ${timeoutMs / 1000} s` : causeOf(error);
      throw new NetworkError(`Cannot reach ${url}: ${why}`, !timedOut && UNSENT_CODES.has(why));
    } finally {
      limit.dispose();
    }
  }

  /** An exchange with the waits and retries above; answers anything that is not a 429/503. */
  async function call(path: string, init: RequestInit): Promise<Answer> {
    let failures = 0;
    let waits = 0;
    for (;;) {
      let answer: Answer;
      try {
        answer = await exchange(path, init);
      } catch (error) {
        if (!(error instanceof NetworkError) || ++failures >= NETWORK_ATTEMPTS) throw error;
        // A submission that may have arrived is sent again only under its Idempotency-Key: without one, a second
        // job would be charged a second time.
        if (init.method === "POST" && !error.unsent && !hasIdempotencyKey(init)) throw error;
        // Quietly: a blip that heals needs no words, and one that does not ends in one line, the last error's.
        await sleep(retryDelayMs * 2 ** (failures - 1), { signal });
        continue;
      }
      if (answer.status !== 429 && answer.status !== 503) return answer;
      const seconds = retryAfterSeconds(answer.headers.get("retry-after"));
      if (++waits > MAX_WAITS || seconds > MAX_RETRY_AFTER_S) {
        throw new ApiError(`The server keeps refusing: ${describe(answer)}`, answer.status);
      }
      tellWait(answer.status === 429 ? "rate limited" : "unavailable", seconds);
      await sleep(seconds * 1000, { signal });
    }
  }

  return {
    async submit(csv, idempotencyKey, submitOptions = {}) {
      const answer = await call(submitOptions.path ?? "/v1/email/bulk", {
        method: "POST",
        headers: {
          "content-type": "text/csv; charset=utf-8",
          accept: "application/json",
          "idempotency-key": idempotencyKey,
        },
        body: csv,
      });
      const body = parseJson(answer.text);
      if (answer.status === 202 && typeof body?.job_id === "string") {
        return { kind: "accepted", jobId: body.job_id, total: Number(body.total) };
      }
      if (answer.status === 413) {
        return { kind: "too-large", limit: Number.isInteger(body?.limit) ? (body.limit as number) : undefined };
      }
      if (answer.status === 402) return { kind: "quota", detail: detailOf(answer) };
      throw new ApiError(`Cannot submit a job: ${describe(answer)}`, answer.status);
    },
    async progress(jobId, progressOptions = {}) {
      // A held read must end before the exchange's own time limit, with a second to spare for the answer itself.
      const waitS = Math.min(progressOptions.waitS ?? 0, Math.floor(timeoutMs / 1000) - 1);
      // limit=0: the state without the results, so that polling a 5000-row job stays cheap.
      const answer = await call(`/v1/jobs/${encodeURIComponent(jobId)}?limit=0`, {
        headers: { accept: "application/json", ...(waitS >= 1 ? { prefer: `wait=${Math.floor(waitS)}` } : {}) },
      });
      if (answer.status === 404) return undefined;
      const body = parseJson(answer.text);
      if (answer.status !== 200 || typeof body?.status !== "string") {
        throw new ApiError(`Cannot read job ${jobId}: ${describe(answer)}`, answer.status);
      }
      return {
        status: body.status,
        total: Number(body.total),
        processed: Number(body.processed),
        ...retriesOf(body.summary?.retrying, body.summary?.next_retry_at),
        held: answer.headers.has("preference-applied"),
      } as JobProgress;
    },
    async rows(jobId) {
      const answer = await call(`/v1/jobs/${encodeURIComponent(jobId)}`, { headers: { accept: "text/csv" } });
      if (answer.status === 404) return undefined;
      const status = answer.headers.get("x-job-status");
      if (answer.status !== 200 || !(answer.headers.get("content-type") ?? "").startsWith("text/csv") || !status) {
        throw new ApiError(`Cannot read the results of job ${jobId}: ${describe(answer)}`, answer.status);
      }
      return {
        status: status as JobProgress["status"],
        total: Number(answer.headers.get("x-job-total")),
        processed: Number(answer.headers.get("x-job-processed")),
        ...retriesOf(answer.headers.get("x-job-retrying"), answer.headers.get("x-job-next-retry-at")),
        csv: answer.text,
      };
    },
  };
}

/** The job read's retry members (summary.retrying and next_retry_at, or their X-Job-* headers), read leniently. */
function retriesOf(count: unknown, at: unknown): Pick<JobProgress, "retrying" | "nextRetryAt"> {
  const retrying = Number(count ?? 0);
  if (!(Number.isInteger(retrying) && retrying > 0)) return { retrying: 0 };
  const nextRetryAt = typeof at === "string" ? Date.parse(at) : Number.NaN;
  return Number.isNaN(nextRetryAt) ? { retrying } : { retrying, nextRetryAt };
}

function hasIdempotencyKey(init: RequestInit): boolean {
  return new Headers(init.headers).has("idempotency-key");
}

/** Retry-After as seconds (delta-seconds or an HTTP date, RFC 9110 §10.2.3); 1 when absent or unreadable. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number {
  if (value === null) return 1;
  if (/^\d+$/.test(value.trim())) return Math.max(1, Number(value.trim()));
  const at = Date.parse(value);
  return Number.isNaN(at) ? 1 : Math.max(1, Math.ceil((at - now) / 1000));
}

// biome-ignore lint/suspicious/noExplicitAny: a server's JSON, read member by member with checks
function parseJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function detailOf(answer: Answer): string {
  const body = parseJson(answer.text);
  return typeof body?.detail === "string" ? body.detail : typeof body?.title === "string" ? body.title : "";
}

/** "401 Cannot authenticate: …" from a problem document, or the status and the start of a body that is none. */
function describe(answer: Answer): string {
  const detail = detailOf(answer) || answer.text.slice(0, 200).trim();
  return `HTTP ${answer.status}${detail ? ` ${detail}` : ""}`;
}

/** fetch's "fetch failed" hides the reason in `cause` (ECONNREFUSED, ENOTFOUND…): that is what the user needs. */
function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (error as Error)?.message ?? String(error);
}
