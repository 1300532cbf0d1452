// Which rows of the input went to which job: the record that makes a run resumable. A job is a range of input rows
// [start, end); the rows no job covers yet are cut into ranges of the current batch size. The record is written
// before every submission, naming the range and the Idempotency-Key it goes with, and after it, naming the job (to a
// temporary file, then renamed, so a kill never leaves half a file): a run killed between the server's 202 and the
// record sends that range again under that key, and the server answers the job it made instead of a second one paid
// again.
import { createHash } from "node:crypto";
import { readFile, rename, writeFile } from "node:fs/promises";

/** The server's hard cap on rows per job (SPEC_BATCH_MAX): the first try uses it, a 413 then says the plan's. */
export const HARD_BATCH_MAX = 5000;

export interface SubmittedJob {
  /** First input row (0-based, header not counted) and the row after the last. */
  start: number;
  end: number;
  job_id: string;
  /** Addresses the server took (after its deduplication), from the 202 answer. */
  total: number;
}

export interface JobState {
  version: 1;
  /** Which input the jobs belong to: resuming with another file would mix up rows. */
  input: { sha256: string; rows: number };
  /** Rows per job for the ranges not submitted yet; lowered when the server says the plan allows fewer. */
  batch: number;
  jobs: SubmittedJob[];
  /** The range being submitted, and its Idempotency-Key: sent again first when the run is resumed. */
  pending?: PendingSubmission;
  /** Set once every job ended and the results were written: when, and where. */
  finished?: { at: string; out: string };
}

export interface PendingSubmission {
  start: number;
  end: number;
  key: string;
}

/** A state file that cannot be used for this input; the message says why and what to do. */
export class StateFileError extends Error {
  override name = "StateFileError";
}

/** The fingerprint of the input bytes, kept in the state file. */
export function fingerprint(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** `batchMax`: the first try's rows per job (the server's hard cap for the kind of list; a 413 then says the plan's). */
export function newJobState(sha256: string, rows: number, batchMax = HARD_BATCH_MAX): JobState {
  return { version: 1, input: { sha256, rows }, batch: Math.min(batchMax, Math.max(1, rows)), jobs: [] };
}

/**
 * The state file at `path` for this input, or undefined when there is none. Throws StateFileError when it cannot be
 * read or belongs to other input.
 */
export async function loadJobState(path: string, expected: JobState["input"]): Promise<JobState | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new StateFileError(`Cannot read the jobs file ${path}: ${(error as Error).message}`);
  }
  let state: JobState;
  try {
    state = JSON.parse(text);
  } catch {
    throw new StateFileError(
      `Cannot read the jobs file ${path}: it is not JSON (add --force to start over and replace it)`,
    );
  }
  if (
    state?.version !== 1 ||
    !Array.isArray(state.jobs) ||
    !(state.batch >= 1) ||
    !(state.pending === undefined || isPendingSubmission(state.pending, state.input?.rows))
  ) {
    throw new StateFileError(
      `Cannot read the jobs file ${path}: not a jobs file of this command (add --force to start over and replace it, or give another --state)`,
    );
  }
  if (state.input?.sha256 !== expected.sha256 || state.input.rows !== expected.rows) {
    // Nothing was submitted under it (the server refused the first submission): nothing to keep or to pay twice.
    if (!submittedAny(state)) return undefined;
    throw new StateFileError(
      `Cannot start: ${path} records ${describeJobs(state)} of another input file (an earlier version of this one?): ` +
        "add --force to forget them and verify this file (rows they covered are charged again), or give another --out",
    );
  }
  return state;
}

/** True when some rows went to the server: a job was made, or a submission may have been (its answer never came). */
export function submittedAny(state: JobState): boolean {
  return state.jobs.length > 0 || state.pending !== undefined;
}

/** "2 jobs (rows 1-4 of 5)": what the jobs file records, for messages. */
export function describeJobs(state: JobState): string {
  const ranges = [...state.jobs, ...(state.pending ? [state.pending] : [])];
  const rows = ranges.reduce((sum, r) => sum + (r.end - r.start), 0);
  const jobs = `${ranges.length} job${ranges.length === 1 ? "" : "s"}`;
  return `${jobs} (${rows} of its ${state.input.rows} rows)`;
}

/** Records in the jobs file that the run ended with its results written to `out`. */
export async function markFinished(path: string, state: JobState, out: string): Promise<void> {
  state.finished = { at: new Date().toISOString(), out };
  await saveJobState(path, state);
}

function isPendingSubmission(value: PendingSubmission, rows: number): boolean {
  const { start, end, key } = value ?? {};
  return (
    Number.isInteger(start) &&
    Number.isInteger(end) &&
    0 <= start &&
    start < end &&
    end <= rows &&
    typeof key === "string"
  );
}

export async function saveJobState(path: string, state: JobState): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(state, null, 2)}\n`);
  await rename(temporary, path);
}

/** The ranges of rows no job covers, in input order, each at most `state.batch` rows long. */
export function pendingRanges(state: JobState): Array<{ start: number; end: number }> {
  const covered = [...state.jobs].sort((a, b) => a.start - b.start);
  const ranges: Array<{ start: number; end: number }> = [];
  let at = 0;
  const fill = (until: number) => {
    for (; at < until; at = Math.min(until, at + state.batch))
      ranges.push({ start: at, end: Math.min(until, at + state.batch) });
  };
  for (const job of covered) {
    fill(job.start);
    at = Math.max(at, job.end);
  }
  fill(state.input.rows);
  return ranges;
}
