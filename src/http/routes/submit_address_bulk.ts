// POST /v1/address/bulk (an extension, described in the OpenAPI document): a JSON list of what POST /v1/address takes,
// or a CSV file of addresses (jobs/address_csv.ts), verified as a job of the bulk model (202, GET /v1/jobs/{id},
// Idempotency-Key, test keys answered offline, 48 h retention). Every row is answered; equal rows are verified and
// charged once (one unit of the address quota per distinct row, at submission). The rows a job may hold are the
// plan's address_batch_max: more is a 413 naming it (`npm run verify` splits a larger file into several jobs).
import * as v from "valibot";
import { ADDRESS_BATCH_MAX } from "../../accounts/plans.ts";
import type { AddressInput } from "../../address/types.ts";
import { type AddressCsv, parseAddressCsv } from "../../jobs/address_csv.ts";
import { distinctRows } from "../../jobs/address_rows.ts";
import { CsvReadError } from "../../jobs/csv_table.ts";
import { IdempotencyKeyTaken } from "../../jobs/job_store.ts";
import type { AcceptedJob, Services } from "../../services.ts";
import { ADDRESS_BULK_BODY_LIMIT } from "../body.ts";
import { HttpError } from "../errors.ts";
import { idempotencyKeyOf, REPLAYED_HEADER } from "../idempotency.ts";
import { createHash } from "node:crypto";
import { AddressBulkRequestSchema, isStorableText } from "../schemas.ts";
import { type Answer, verificationHandler } from "../verification_call.ts";
import { RETENTION_NOTE } from "./submit_bulk.ts";
import { testAddressOrRefuse } from "./verify_address.ts";
import { callbackPolicy } from "../../callbacks/callback_target.ts";
import { callbackUrlOf, callbackUrlSent, fingerprintWithCallback } from "../callback_url.ts";

/** The body as the route sees it: the list, plus the parsed file when the body was CSV (JSON cannot make one). */
const AddressBulkBodySchema = v.object({
  addresses: AddressBulkRequestSchema.entries.addresses,
  callback_url: AddressBulkRequestSchema.entries.callback_url,
  csv: v.optional(
    v.pipe(
      v.unknown(),
      v.transform((value) => (isAddressCsv(value) ? value : undefined)),
    ),
  ),
});
type AddressBulkBody = v.InferOutput<typeof AddressBulkBodySchema>;

const PARSED = Symbol("address csv");
function isAddressCsv(value: unknown): value is AddressCsv {
  return typeof value === "object" && value !== null && (value as { [PARSED]?: true })[PARSED] === true;
}

function decodeCsv(bytes: Uint8Array): { addresses: AddressInput[]; csv: AddressCsv } {
  try {
    const csv = Object.assign(parseAddressCsv(bytes, { isStorable: isStorableText }), { [PARSED]: true as const });
    return { addresses: csv.inputs, csv };
  } catch (error) {
    if (!(error instanceof CsvReadError)) throw error;
    const message = `line ${error.line}: ${error.message}`;
    throw new HttpError("invalid-request", `Cannot read CSV: ${message}`, {
      extensions: { line: error.line, errors: [{ member: `line ${error.line}`, message: error.message }] },
    });
  }
}

/**
 * What a submission asks for, as one hash: its inputs in order and, for CSV, its header and rows; "address" first, so
 * that no email list can share it.
 */
function addressFingerprint(body: AddressBulkBody): string {
  const hash = createHash("sha256").update("address\n");
  hash.update(JSON.stringify(body.csv?.columns ?? null));
  for (let i = 0; i < body.addresses.length; i++) {
    hash.update(JSON.stringify(body.addresses[i]));
    if (body.csv) hash.update(JSON.stringify(body.csv.rows[i]));
    hash.update("\n");
  }
  return hash.digest("hex");
}

export function submitAddressBulkRoute(services: Services) {
  const policy = callbackPolicy({
    allowCidrs: services.config.callbackAllowCidrs,
    allowHttpHosts: services.config.callbackAllowHttpHosts,
  });
  const acceptedAnswer = (job: AcceptedJob, headers: Record<string, string> = {}): Answer => {
    const poll = `${services.config.publicUrl}/v1/jobs/${job.jobId}`;
    return {
      status: 202,
      headers: { location: poll, ...headers },
      data: {
        job_id: job.jobId,
        status: job.status,
        total: job.total,
        poll,
        expires_at: job.expiresAt,
        retention_note: RETENTION_NOTE,
      },
    };
  };
  const replay = async (accountId: string, key: string, fingerprint: string): Promise<Answer | undefined> => {
    const job = await services.jobs.findIdempotent(accountId, key);
    if (job === undefined) return undefined;
    if (job.requestHash !== fingerprint) {
      throw new HttpError(
        "request-failed",
        "Cannot accept batch: this Idempotency-Key was sent before with another list; send a new key with this one",
        { extensions: { errors: [{ member: "Idempotency-Key", message: "used before for another list" }] } },
      );
    }
    return acceptedAnswer(job, { [REPLAYED_HEADER]: "true" });
  };
  // Computed once per request, shared by check, replay, charges and run.
  const distinct = new WeakMap<object, number>();
  const distinctOf = (body: AddressBulkBody) => {
    let n = distinct.get(body);
    if (n === undefined) distinct.set(body, (n = distinctRows(body.addresses)));
    return n;
  };
  // The callback URL, from the body or (CSV) the query, judged once: 400 before anything is charged.
  const callbacks = new WeakMap<object, string | undefined>();
  const callbackOf = (body: AddressBulkBody, request: Request) => {
    if (!callbacks.has(body)) callbacks.set(body, callbackUrlOf(request, body.callback_url, policy));
    return callbacks.get(body);
  };
  const keyed = new WeakMap<object, { key: string; requestHash: string } | undefined>();
  const idempotencyOf = (body: AddressBulkBody, request: Request) => {
    if (!keyed.has(body)) {
      const key = idempotencyKeyOf(request);
      const sent = callbackUrlSent(request, body.callback_url);
      const requestHash = fingerprintWithCallback(addressFingerprint(body), sent);
      keyed.set(body, key === undefined ? undefined : { key, requestHash });
    }
    return keyed.get(body);
  };
  const accepted = async (
    accountId: string,
    body: AddressBulkBody,
    request: Request,
    answers?: ReturnType<typeof testAddressOrRefuse>[],
  ): Promise<Answer> => {
    const table = body.csv === undefined ? undefined : { columns: body.csv.columns, rows: body.csv.rows };
    const idempotency = idempotencyOf(body, request);
    let job: AcceptedJob;
    try {
      const callbackUrl = callbackOf(body, request);
      job = await services.jobs.submitAddresses(accountId, body.addresses, {
        answers,
        table,
        idempotency,
        callbackUrl,
      });
    } catch (error) {
      if (!(error instanceof IdempotencyKeyTaken) || idempotency === undefined) throw error;
      const replayed = await replay(accountId, idempotency.key, idempotency.requestHash);
      if (replayed === undefined) throw error;
      return { ...replayed, uncharged: true };
    }
    return acceptedAnswer(job);
  };
  return verificationHandler(services, {
    endpoint: "address",
    meters: ["address"],
    schema: AddressBulkBodySchema,
    body: { limit: ADDRESS_BULK_BODY_LIMIT, oversized: "batch-too-large", decoders: { "text/csv": decodeCsv } },
    check(body, caller, request) {
      callbackOf(body, request);
      const limit = caller.plan.address_batch_max ?? ADDRESS_BATCH_MAX;
      if (body.addresses.length > limit) {
        throw new HttpError(
          "batch-too-large",
          `Cannot accept batch: ${body.addresses.length} ${body.csv ? "rows" : "addresses"}, the plan allows ` +
            `${limit} per address job (address_batch_max); split the list (npm run verify does)`,
          { extensions: { limit, received: body.addresses.length } },
        );
      }
    },
    replay: async (body, caller, request) => {
      const idempotency = idempotencyOf(body, request);
      if (idempotency === undefined) return undefined;
      return replay(caller.key.accountId, idempotency.key, idempotency.requestHash);
    },
    // Test keys: every row must be a reserved address; the job is stored already answered, offline.
    testAnswer: (body, caller, request) =>
      accepted(caller.key.accountId, body, request, body.addresses.map(testAddressOrRefuse)),
    charges: (body) => [{ endpoint: "address", amount: distinctOf(body) }],
    run: (body, caller, request) => accepted(caller.key.accountId, body, request),
  });
}
