// POST /v1/address/bulk (an extension, described in the OpenAPI document): a JSON list of what POST /v1/address takes,
// or a CSV file of addresses (jobs/address_csv.ts; text/csv, or one file part of a multipart/form-data upload),
// verified as a job of the bulk model (202, GET /v1/jobs/{id}, Idempotency-Key, test keys answered offline, 48 h
// retention, completion callbacks). Every form is read as it arrives (http/bulk_upload.ts). Every row is answered;
// equal rows are verified and charged once (one unit of the address quota per distinct row, at submission). The rows
// a job may hold are the plan's address_batch_max: more is a 413 naming it, as soon as the first row too many is read
// (`npm run verify` splits a larger file into several jobs).
import { createHash } from "node:crypto";
import * as v from "valibot";
import { ADDRESS_BATCH_MAX } from "../../accounts/plans.ts";
import { type AddressCsv, addressCsvOf } from "../../jobs/address_csv.ts";
import { distinctRows } from "../../jobs/address_rows.ts";
import type { Services } from "../../services.ts";
import { ADDRESS_BULK_BODY_LIMIT } from "../body.ts";
import { bulkSubmission } from "../bulk_submission.ts";
import { bulkUploadDecoders } from "../bulk_upload.ts";
import { HttpError } from "../errors.ts";
import { AddressBulkRequestSchema } from "../schemas.ts";
import { verificationHandler } from "../verification_call.ts";
import { testAddressOrRefuse } from "./verify_address.ts";
import { ADDRESS_INPUTS, assertInputsFitKey, listPlaces } from "../test_inputs.ts";

/** The body as the route sees it: the list, plus the parsed file when the body was CSV (JSON cannot make one). */
const AddressBulkBodySchema = v.object({
  ...AddressBulkRequestSchema.entries,
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
  const submission = bulkSubmission<AddressBulkBody, ReturnType<typeof testAddressOrRefuse>>(services, {
    fingerprint: addressFingerprint,
    submit(accountId, body, { answers, idempotency, callbackUrl }) {
      const table = body.csv === undefined ? undefined : { columns: body.csv.columns, rows: body.csv.rows };
      return services.jobs.submitAddresses(accountId, body.addresses, { answers, table, idempotency, callbackUrl });
    },
  });
  // Rows charged: computed once per request.
  const distinct = new WeakMap<object, number>();
  const distinctOf = (body: AddressBulkBody) => {
    let n = distinct.get(body);
    if (n === undefined) distinct.set(body, (n = distinctRows(body.addresses)));
    return n;
  };
  return verificationHandler(services, {
    endpoint: "address",
    meters: ["address"],
    schema: AddressBulkBodySchema,
    body: (caller) => {
      const limit = caller.plan.address_batch_max ?? ADDRESS_BATCH_MAX;
      return {
        limit: ADDRESS_BULK_BODY_LIMIT,
        oversized: "batch-too-large",
        streamed: bulkUploadDecoders({
          list: "addresses",
          maxRows: limit,
          tooMany: (received, unit) =>
            new HttpError(
              "batch-too-large",
              `Cannot accept batch: more than ${limit} ${unit}, the plan allows ${limit} per address job ` +
                "(address_batch_max); split the list (npm run verify does)",
              { extensions: { limit, received } },
            ),
          fromCsv: (records) => {
            const csv = Object.assign(addressCsvOf(records), { [PARSED]: true as const });
            return { addresses: csv.inputs, csv };
          },
        }),
      };
    },
    inputsFitKey: (body, mode) =>
      assertInputsFitKey(
        mode,
        ADDRESS_INPUTS,
        body.addresses,
        listPlaces("addresses", body.csv?.lines),
        "accept batch",
      ),
    check: (body, _caller, request) => submission.checkCallback(body, request),
    replay: (body, caller, request) => submission.replay(body, caller.key.accountId, request),
    // Test keys: every row must be a reserved address; the job is stored already answered, offline.
    testAnswer: (body, caller, request) =>
      submission.accepted(caller.key.accountId, body, request, body.addresses.map(testAddressOrRefuse)),
    charges: (body) => [{ endpoint: "address", amount: distinctOf(body) }],
    run: (body, caller, request) => submission.accepted(caller.key.accountId, body, request),
  });
}
