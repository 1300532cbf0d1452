// GET /v1/jobs/{id}: its own 60/min bucket, no quota, and one 404 for unknown, expired and foreign jobs alike (the
// store answers all three through the same query, so neither body nor timing tells them apart).
// Extensions for list cleaning (described in the OpenAPI document): `?offset=N&limit=M` pages the results (default: all, as
// the spec has it), every read carries `summary` (results so far by verdict, and the items waiting for a retry), and
// `Accept: text/csv` gets the finished rows as CSV in submission order, with the job's state in X-Job-* headers.
// `Prefer: wait=N` holds the read of a queued or running job until it ends or N seconds pass (http/job_wait.ts); the
// read is admitted once, before the hold, so it counts once against the job-read allowance however long it waits.
import * as v from "valibot";
import { csvLines, VERDICT_COLUMNS, verdictCells } from "../../jobs/csv_table.ts";
import type { JobTable } from "../../jobs/job_store.ts";
import type { AddressJobTable } from "../../jobs/address_job_store.ts";
import { ADDRESS_INPUT_COLUMNS, ADDRESS_RESULT_COLUMNS, addressCsvBytes } from "../../jobs/address_csv.ts";
import type { Services } from "../../services.ts";
import { HttpError } from "../errors.ts";
import { admit } from "../guard.ts";
import { json } from "../problem.ts";
import { streamedResponse } from "../light.ts";
import { decodeSegment } from "../router.ts";
import { JobIdSchema } from "../schemas.ts";
import { createJobWaits, type JobWaits, jobWaitSeconds } from "../job_wait.ts";

/**
 * `negotiate`: GET /v1/jobs/{id}, JSON unless the Accept header prefers CSV. `csv`: GET /v1/jobs/{id}/results.csv,
 * the same CSV whatever the Accept header says. The second path exists for typed clients: an operation that declares
 * both JSON and CSV answers types its body as `Job | string`, so the OpenAPI document gives each form its own path.
 */
export function readJobRoute(
  services: Services,
  form: "negotiate" | "csv" = "negotiate",
  waits: JobWaits = createJobWaits(),
) {
  return async (request: Request, params: Record<string, string>): Promise<Response> => {
    const caller = await admit(request, services, { endpoint: ["email", "address"], bucket: "jobs" });
    // A malformed id (a broken percent-escape too) is just another job that does not exist: never a 400.
    const id = decodeSegment(params.id)?.toLowerCase();
    const csv = form === "csv" || prefersCsv(request.headers.get("accept"));
    const accountId = caller.key.accountId;
    const seconds = jobWaitSeconds(request.headers.get("prefer"));
    const status = services.jobs.status;
    if (seconds !== null && id !== undefined && v.is(JobIdSchema, id) && status !== undefined) {
      const outcome = await waits.wait({
        accountId,
        jobId: id,
        seconds,
        signal: request.signal,
        status: () => status(accountId, id),
      });
      // Only a read actually held says so: an ended job, or one refused a hold (too many held), answers as without.
      if (outcome === "ended" || outcome === "timed-out") caller.headers["preference-applied"] = `wait=${seconds}`;
    }
    // An address job first (bulk address, an extension), else an email job: every read asks both, so neither the
    // answer nor its timing tells an unknown job from another account's.
    const job = !v.is(JobIdSchema, id)
      ? undefined
      : csv
        ? ((await services.jobs.readAddressTable(accountId, id)) ?? (await services.jobs.readTable(accountId, id)))
        : ((await services.jobs.readAddresses(accountId, id, pageOf(request.url))) ??
          (await services.jobs.read(accountId, id, pageOf(request.url))));
    if (!job) {
      throw new HttpError(
        "job-not-found",
        "Cannot read job: no such job for this account (unknown, expired or another account's)",
        {
          headers: caller.headers,
        },
      );
    }
    if ("chunks" in job) return addressCsvResponse(job as AddressJobTable, caller.headers);
    if ("rows" in job) return csvResponse(job as JobTable, caller.headers);
    return json(job, { headers: caller.headers });
  };
}

/**
 * True when the Accept header ranks text/csv above JSON (RFC 9110 §12.5.1: q-values, JSON also matched by
 * application/* and any type). Without an Accept header, or on a tie, JSON: the spec's answer stays the default.
 */
export function prefersCsv(accept: string | null): boolean {
  if (accept === null) return false;
  let csv = 0;
  let json = 0;
  for (const part of accept.split(",")) {
    const [type = "", ...params] = part.split(";").map((p) => p.trim().toLowerCase());
    const q = params.find((p) => p.startsWith("q="));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (!(weight >= 0)) continue;
    if (type === "text/csv") csv = Math.max(csv, weight);
    if (type === "application/json" || type === "application/*" || type === "*/*") json = Math.max(json, weight);
  }
  return csv > json;
}

/** `?offset=N&limit=M` as given; a value that is not a whole number is ignored (the job read never answers 400). */
function pageOf(url: string): { offset?: number; limit?: number } {
  const query = url.indexOf("?");
  if (query < 0) return {};
  const params = new URLSearchParams(url.slice(query + 1));
  const count = (name: string) => {
    const value = params.get(name);
    return value !== null && /^\d{1,9}$/.test(value) ? Number(value) : undefined;
  };
  return { offset: count("offset"), limit: count("limit") };
}

/** Rows handed to the stream at a time: a 5000-row job is written in slices, between which the loop breathes. */
const CSV_SLICE = 500;

/** The finished rows as CSV: the submitted columns (or `email`), then the verdict columns, in submission order. */
function csvResponse(table: JobTable, headers: Record<string, string>): Response {
  const { job, columns, rows } = table;
  const header = [...(columns ?? ["email"]), ...VERDICT_COLUMNS];
  let next = 0;
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(csvLines([header])));
    },
    pull(controller) {
      if (next >= rows.length) return controller.close();
      const slice = rows.slice(next, next + CSV_SLICE);
      next += slice.length;
      const lines = slice.map(({ fields, result }) => [...(fields ?? [result.email]), ...verdictCells(result)]);
      controller.enqueue(encoder.encode(csvLines(lines)));
    },
  });
  return streamedResponse(body, {
    status: 200,
    headers: {
      ...headers,
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="job-${job.job_id}.csv"`,
      "x-job-status": job.status,
      "x-job-total": String(job.total),
      "x-job-processed": String(rows.length),
      "x-job-retrying": String(job.summary.retrying),
      ...(job.summary.next_retry_at === null ? {} : { "x-job-next-retry-at": job.summary.next_retry_at }),
    },
  });
}

/**
 * An address job's finished rows as CSV: the submitted columns (or the input's members for a JSON list), then the
 * answer's columns, in input order. Read from the database a page at a time as the client takes them: neither the
 * rows nor the text is ever held whole.
 */
export function addressCsvResponse(table: AddressJobTable, headers: Record<string, string>): Response {
  const { job, columns } = table;
  const header = [...(columns ?? ADDRESS_INPUT_COLUMNS), ...ADDRESS_RESULT_COLUMNS];
  const pages = table.chunks()[Symbol.asyncIterator]();
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(csvLines([header])));
    },
    async pull(controller) {
      const page = await pages.next();
      if (page.done) return controller.close();
      controller.enqueue(addressCsvBytes(page.value));
    },
    async cancel() {
      await pages.return?.();
    },
  });
  return streamedResponse(body, {
    status: 200,
    headers: {
      ...headers,
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="job-${job.job_id}.csv"`,
      "x-job-status": job.status,
      "x-job-total": String(job.total),
      "x-job-processed": String(job.processed),
    },
  });
}
