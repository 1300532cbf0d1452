// One run of `npm run verify`, top to bottom: read and check the whole file here (a bad line is named by its line in
// the user's file, not in a slice of it), forget saved jobs the server no longer has, submit the rows no job covers,
// wait for each job in input order, and put the verdict cells back on the user's own rows. Rows are matched to
// results by address (the server keeps one row per address in a job), so duplicates get their first row's verdict.
import { randomUUID } from "node:crypto";
import { parse } from "csv-parse/sync";
import { sleep } from "../../async/deadline.ts";
import { dedupeKey } from "../../jobs/dedupe.ts";
import {
  ADDRESS_COLUMN_NAMES as EMAIL_COLUMN_NAMES,
  type CsvSeparator,
  csvLines,
  parseCsvTable,
  readCsvRecords,
  VERDICT_COLUMNS,
} from "../../jobs/csv_table.ts";
import { ADDRESS_RESULT_COLUMNS, addressColumns, parseAddressCsv } from "../../jobs/address_csv.ts";
import { ADDRESS_BATCH_MAX } from "../../accounts/plans.ts";
import { EMAIL_MAX_LENGTH, isStorableText } from "../../http/schemas.ts";
import { type ApiClient, ApiError, type JobProgress } from "./api_client.ts";
import {
  describeJobs,
  HARD_BATCH_MAX,
  fingerprint,
  type JobState,
  loadJobState,
  markFinished,
  newJobState,
  pendingRanges,
  type SubmittedJob,
  saveJobState,
  submittedAny,
} from "./job_state.ts";
import type { Progress, Retries } from "./progress.ts";

export interface RunOptions {
  /** The input file's bytes. */
  input: Uint8Array;
  client: ApiClient;
  progress: Progress;
  /** The jobs file; undefined: nothing is recorded (results to stdout without --state). */
  statePath: string | undefined;
  resume: boolean;
  /** Start over: the jobs file's record is not read, and is replaced. */
  force?: boolean;
  pollMs: number;
  /** What the file lists; "auto" (the default): told by its columns. */
  kind?: "email" | "address" | "auto";
  signal?: AbortSignal;
}

export interface RunOutcome {
  /** "quota": the server refused a job for the quota; the rows of the jobs before it are in `csv`. */
  ended: "done" | "quota";
  /** The results: header, then the rows that have a verdict, in input order. */
  csv: string;
  rowsWritten: number;
  rowsTotal: number;
  /** The server's words when the quota was spent. */
  quotaDetail?: string;
  /** Records in the jobs file that the results were written to `out` (the next run then says so). */
  recordFinished(out: string): Promise<void>;
}

/**
 * The run cannot go on, for a reason the message gives in one line: an unreadable CSV (naming the line), a jobs file
 * that would have rows paid twice, results the server no longer has or that do not fit the input.
 */
export class RunError extends Error {
  override name = "RunError";
}

export async function runVerify(options: RunOptions): Promise<RunOutcome> {
  const { input, client, progress, statePath, resume, force = false, pollMs, kind = "auto", signal } = options;
  const table = readTable(input, kind);
  const identity = { sha256: fingerprint(input), rows: table.rows.length };
  const recorded = statePath === undefined || force ? undefined : await loadJobState(statePath, identity);
  // A record of nothing submitted (the server refused the first submission) holds nothing to keep or to pay twice.
  const saved = recorded && submittedAny(recorded) ? recorded : undefined;
  if (saved && !resume) throw new RunError(startOverRefusal(statePath!, saved));
  const state = saved ?? newJobState(identity.sha256, identity.rows, table.batchMax);
  const save = () => (statePath === undefined ? Promise.resolve() : saveJobState(statePath, state));
  if (saved) await forgetGoneJobs(state, client, progress, save);

  const quotaDetail = await submitPending(table, state, { client, progress, save });
  const cells = await collectResults(table, state, { client, progress, pollMs, signal });

  const written: string[][] = [[...table.columns, ...table.resultColumns]];
  for (let row = 0; row < table.rows.length; row++) {
    const verdict = cells[row];
    if (verdict) written.push([...table.rows[row]!, ...verdict]);
  }
  // Written as the user's file was (separator, BOM): a French spreadsheet opens it as it opened the input.
  const { separator, bom } = table.format;
  return {
    ended: quotaDetail === undefined ? "done" : "quota",
    csv: (bom ? "\uFEFF" : "") + csvLines(written, separator),
    rowsWritten: written.length - 1,
    rowsTotal: table.rows.length,
    quotaDetail,
    recordFinished: (out) => (statePath === undefined ? Promise.resolve() : markFinished(statePath, state, out)),
  };
}

/** Why a run does not start over a jobs file of this input, what it holds, and the ways on. */
function startOverRefusal(statePath: string, saved: JobState): string {
  if (saved.finished !== undefined) {
    return (
      `Cannot start over: ${statePath} records a finished run of this file (${describeJobs(saved)}, results written ` +
      `to ${saved.finished.out === "-" ? "stdout" : saved.finished.out}): add --force to verify every row again ` +
      "(charged again), give another --out, or add --resume to write the same results again without charge (the " +
      "server keeps its jobs 48 hours)"
    );
  }
  return (
    `Cannot start over: ${statePath} records ${describeJobs(saved)} already submitted for this file by a run that ` +
    "did not finish: add --resume to go on from them without paying for them again, or --force to start over (they " +
    "are charged again)"
  );
}

/** The list as this run sends it: the user's rows, where they go, and how a job's results go back on them. */
interface ListTable {
  kind: "email" | "address";
  columns: string[];
  rows: string[][];
  format: { separator: CsvSeparator; bom: boolean };
  /** The route jobs are submitted to, and the most rows one job may hold there (a 413 then says the plan's). */
  path: string;
  batchMax: number;
  /** The columns the server adds after the user's. */
  resultColumns: readonly string[];
  /** Puts a job's result cells on its input rows. */
  place(job: SubmittedJob, csv: string, cells: Array<string[] | undefined>): void;
}

/**
 * The file read as the kind of list it is: an email list when asked, or when a column is named as email columns are;
 * else an address list when its columns name an address (address_csv.ts); else an email list (whose reading then
 * says what is missing).
 */
function readTable(input: Uint8Array, kind: "email" | "address" | "auto"): ListTable {
  try {
    const chosen = kind === "auto" ? kindOfFile(input) : kind;
    if (chosen === "address") {
      const csv = parseAddressCsv(input, { isStorable: isStorableText });
      return {
        kind: "address",
        columns: csv.columns,
        rows: csv.rows,
        format: csv.format,
        path: "/v1/address/bulk",
        batchMax: ADDRESS_BATCH_MAX,
        resultColumns: ADDRESS_RESULT_COLUMNS,
        place: (job, text, cells) => placeRows(csv.columns.length, ADDRESS_RESULT_COLUMNS.length, job, text, cells),
      };
    }
    const table = parseCsvTable(input, { maxAddressLength: EMAIL_MAX_LENGTH, isStorable: isStorableText });
    return {
      kind: "email",
      columns: table.columns,
      rows: table.rows,
      format: table.format,
      path: "/v1/email/bulk",
      batchMax: HARD_BATCH_MAX,
      resultColumns: VERDICT_COLUMNS,
      place: (job, text, cells) => placeResults(table.columns, table.rows, table.emailColumn, job, text, cells),
    };
  } catch (error) {
    const line = (error as { line?: number }).line;
    if (line === undefined) throw error;
    throw new RunError(`Cannot read the CSV file: line ${line}: ${(error as Error).message}`);
  }
}

/** "address" when no column is named as an email column and the columns name an address; else "email". */
function kindOfFile(input: Uint8Array): "email" | "address" {
  const { columns } = readCsvRecords(input, { isStorable: isStorableText });
  const names = columns.map((c) => c.trim().toLowerCase());
  if (EMAIL_COLUMN_NAMES.some((name) => names.includes(name))) return "email";
  try {
    addressColumns(columns);
    return "address";
  } catch {
    return "email";
  }
}

/** Saved jobs the server answers 404 for (expired 48 h after submission) are dropped: their rows go again. */
async function forgetGoneJobs(
  state: JobState,
  client: ApiClient,
  progress: Progress,
  save: () => Promise<void>,
): Promise<void> {
  const kept: SubmittedJob[] = [];
  for (const job of state.jobs) {
    if (await client.progress(job.job_id)) kept.push(job);
    else
      progress.note(
        `Job ${job.job_id} (rows ${job.start + 1}-${job.end}) is gone from the server: sending its rows again`,
      );
  }
  if (kept.length !== state.jobs.length) {
    state.jobs = kept;
    await save();
  }
}

/**
 * Submits every range no job covers, recording each job as soon as it is accepted. A 413 lowers the batch to the
 * plan's limit (or halves it when the body itself was too big) and cuts the rest again. Answers the server's words
 * when a 402 stopped the submissions, undefined when every row is in a job.
 */
async function submitPending(
  table: ListTable,
  state: JobState,
  options: { client: ApiClient; progress: Progress; save: () => Promise<void> },
): Promise<string | undefined> {
  const { client, progress, save } = options;
  for (;;) {
    const range = state.pending ?? pendingRanges(state)[0];
    if (range === undefined) return undefined;
    if (state.pending === undefined) {
      // Written down before it is sent: see job_state.ts.
      state.pending = { start: range.start, end: range.end, key: randomUUID() };
      await save();
    }
    const rows = table.rows.slice(range.start, range.end);
    const outcome = await client
      .submit(csvLines([table.columns, ...rows]), state.pending.key, { path: table.path })
      .catch(async (error) => {
        // A refusal (400 invalid rows, 401, 403…) made no job: the record must not say a submission may have.
        if (!(error instanceof ApiError && error.status >= 400 && error.status < 500)) throw error;
        state.pending = undefined;
        await save();
        throw new ApiError(
          `${error.message} (no job was made for rows ${range.start + 1}-${range.end}: once corrected, run the same ` +
            "command again)",
          error.status,
        );
      });
    if (outcome.kind !== "accepted") state.pending = undefined; // refused: no job holds the key
    if (outcome.kind === "quota") {
      await save();
      return outcome.detail;
    }
    if (outcome.kind === "too-large") {
      const size = range.end - range.start;
      const smaller = outcome.limit !== undefined && outcome.limit < size ? outcome.limit : Math.floor(size / 2);
      if (smaller < 1) throw new RunError(`Cannot submit row ${range.start + 1}: the server refuses it as too large`);
      state.batch = smaller;
      progress.note(
        outcome.limit !== undefined
          ? `The plan allows ${outcome.limit} addresses per job: sending ${smaller} rows per job`
          : `The server refused ${size} rows as too large a body: sending ${smaller} rows per job`,
      );
      continue;
    }
    state.jobs.push({ start: range.start, end: range.end, job_id: outcome.jobId, total: outcome.total });
    state.pending = undefined;
    await save();
  }
}

/**
 * Waits for each job in input order and reads its rows back. Answers the verdict cells of every input row that has
 * one (index: input row). Progress counts addresses as the server does (after its deduplication). The rows are read
 * first: a job finished by then (most, once the first are) costs one read of the allowance; a job still running is
 * then read without its results until it ends, and read again. Those reads ask the server to hold them until the job
 * ends or the poll interval passes (`Prefer: wait`): the end is seen when it happens rather than at the next poll,
 * and the progress still moves at each interval. A read the server did not hold (a server without the extension, or
 * too many reads held there) is followed by a pause of the interval, as polling always did.
 */
async function collectResults(
  table: ListTable,
  state: JobState,
  options: { client: ApiClient; progress: Progress; pollMs: number; signal?: AbortSignal },
): Promise<Array<string[] | undefined>> {
  const { client, progress, pollMs, signal } = options;
  const jobs = [...state.jobs].sort((a, b) => a.start - b.start);
  const total = jobs.reduce((sum, job) => sum + job.total, 0);
  const processed = new Map<string, number>();
  const waiting = new Map<string, Retries>();
  const done = () => [...processed.values()].reduce((sum, n) => sum + n, 0);
  /** The jobs' retries together: how many wait, and the first due. */
  const retries = (): Retries => {
    const all = [...waiting.values()];
    const dues = all.flatMap((r) => (r.nextAt === undefined ? [] : [r.nextAt]));
    return {
      waiting: all.reduce((sum, r) => sum + r.waiting, 0),
      nextAt: dues.length > 0 ? Math.min(...dues) : undefined,
    };
  };
  /** Counts what a read says the job has done; a job the server no longer has ends the run. */
  const seen = <Read extends JobProgress>(job: SubmittedJob, progressed: Read | undefined): Read => {
    if (progressed === undefined) {
      throw new RunError(`Cannot read job ${job.job_id}: the server no longer has it (run again with --resume)`);
    }
    processed.set(job.job_id, progressed.processed);
    waiting.set(job.job_id, { waiting: progressed.retrying, nextAt: progressed.nextRetryAt });
    progress.update(done(), retries());
    return progressed;
  };
  const ended = (job: JobProgress) => job.status === "completed" || job.status === "failed";
  // Whole seconds (the header's unit), at least one.
  const waitS = Math.max(1, Math.ceil(pollMs / 1000));
  const cells: Array<string[] | undefined> = new Array(table.rows.length);
  progress.start(total);
  try {
    for (const job of jobs) {
      let read = seen(job, await client.rows(job.job_id));
      while (!ended(read)) {
        const polled = seen(job, await client.progress(job.job_id, { waitS }));
        if (ended(polled)) read = seen(job, await client.rows(job.job_id));
        else if (!polled.held) await sleep(pollMs, { signal });
      }
      table.place(job, read.csv, cells);
    }
  } finally {
    progress.stop();
  }
  return cells;
}

/** Puts a job's verdict cells on its input rows, matched by address as the server deduplicates them. */
function placeResults(
  columns: readonly string[],
  input: readonly string[][],
  emailColumn: number,
  job: SubmittedJob,
  csv: string,
  cells: Array<string[] | undefined>,
): void {
  const [header, ...rows] = parse(csv, { bom: true }) as string[][];
  const width = columns.length + VERDICT_COLUMNS.length;
  if (header === undefined || header.length !== width) {
    throw new RunError(`Cannot read the results of job ${job.job_id}: ${header?.length ?? 0} columns, not ${width}`);
  }
  const byAddress = new Map<string, string[]>();
  for (const row of rows) byAddress.set(dedupeKey(row[emailColumn] ?? ""), row.slice(columns.length));
  for (let i = job.start; i < job.end; i++) {
    const found = byAddress.get(dedupeKey(input[i]![emailColumn]!));
    if (found) cells[i] = found;
  }
}

/**
 * Puts an address job's answer cells on its input rows: the server answers every row of an address job, in input
 * order, so the job's k-th row is the range's k-th.
 */
function placeRows(
  width: number,
  added: number,
  job: SubmittedJob,
  csv: string,
  cells: Array<string[] | undefined>,
): void {
  const [header, ...rows] = parse(csv, { bom: true, relax_column_count: true }) as string[][];
  if (header === undefined || header.length !== width + added) {
    throw new RunError(
      `Cannot read the results of job ${job.job_id}: ${header?.length ?? 0} columns, not ${width + added}`,
    );
  }
  if (rows.length > job.end - job.start) {
    throw new RunError(`Cannot read the results of job ${job.job_id}: ${rows.length} rows for ${job.end - job.start}`);
  }
  for (let k = 0; k < rows.length; k++) cells[job.start + k] = rows[k]!.slice(width);
}
