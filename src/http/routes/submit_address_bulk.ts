// POST /v1/address/bulk (an extension, described in the OpenAPI document): a JSON list of what POST /v1/address takes,
// or a CSV file of addresses (jobs/address_csv.ts; text/csv, or one file part of a multipart/form-data upload),
// verified as a job of the bulk model (202, GET /v1/jobs/{id}, Idempotency-Key, test keys answered offline, 48 h
// retention, completion callbacks). Every form is read as it arrives (http/bulk_upload.ts). Every row is answered;
// equal rows are verified and charged once (one unit of the address quota per distinct row, at submission). The rows
// a job may hold are the plan's address_batch_max: more is a 413 naming it, as soon as the first row too many is read
// (`npm run verify` splits a larger file into several jobs).
import { createHash } from "node:crypto";
import * as v from "valibot";
import type { KeyMode } from "../../auth/api_key.ts";
import { ADDRESS_BATCH_MAX } from "../../accounts/plans.ts";
import type { AddressInput } from "../../address/types.ts";
import type { AddressUpload } from "../../jobs/address_upload.ts";
import type { Services } from "../../services.ts";
import { testAddressAnswer } from "../../testmode/address.ts";
import { type AddressRowSink, addressUploadDecoders } from "../address_upload_decoders.ts";
import { ADDRESS_BULK_BODY_LIMIT } from "../body.ts";
import { bulkSubmission } from "../bulk_submission.ts";
import { HttpError } from "../errors.ts";
import { CallbackUrlSchema } from "../schemas.ts";
import { verificationHandler } from "../verification_call.ts";
import { ADDRESS_INPUTS, InputsFitKey } from "../test_inputs.ts";

/** The rows of an upload once read: written to their job (not yet submitted), and what the route needs of them. */
interface UploadedRows {
  upload: AddressUpload;
  /**
   * What the submission asks for, as one hash: its inputs in order and, for CSV, its header and rows; "address"
   * first, so that no email list can share it.
   */
  fingerprint: string;
  /** Whether every row fits the key (reserved test inputs on a test key, real ones on a live key). */
  fit: InputsFitKey<AddressInput>;
}

const UPLOADED = Symbol("uploaded rows");
function isUploadedRows(value: unknown): value is UploadedRows {
  return typeof value === "object" && value !== null && (value as { [UPLOADED]?: true })[UPLOADED] === true;
}

/** The body as the route sees it once read: the rows, written away, and the callback URL. */
const AddressUploadBodySchema = v.object({
  addresses: v.custom<UploadedRows>(isUploadedRows),
  callback_url: CallbackUrlSchema,
});
type AddressUploadBody = v.InferOutput<typeof AddressUploadBodySchema>;

/** An upload's sink: each row hashed, checked against the key, answered when the key is a test key, and written. */
interface UploadSink extends AddressRowSink {
  /** Deletes what was written, unless the job was submitted. */
  discard(): Promise<void>;
}

/** About how many characters of rows are hashed at once (the Idempotency-Key fingerprint). */
const HASH_PIECE_CHARS = 64 * 1024;

function uploadSink(services: Services, accountId: string, mode: KeyMode): UploadSink {
  const hash = createHash("sha256").update("address\n");
  // The rows' text not yet hashed: hashed a piece at a time, the same bytes as row by row for the same digest, without
  // three calls into the hash for every row.
  let unhashed = "";
  const fit = new InputsFitKey(mode, ADDRESS_INPUTS);
  let upload: AddressUpload | undefined;
  // A test key's rows are stored answered; after a row that does not fit, none is stored (the upload is refused).
  let fits = true;
  const opened = (columns?: string[]) => {
    if (upload === undefined) {
      hash.update(JSON.stringify(columns ?? null));
      upload = services.jobs.startAddressUpload(accountId, columns === undefined ? {} : { columns });
    }
    return upload;
  };
  return {
    header(columns) {
      opened(columns);
    },
    row(input, cells, where) {
      const job = opened();
      unhashed += cells === null ? `${JSON.stringify(input)}\n` : `${JSON.stringify(input)}${JSON.stringify(cells)}\n`;
      if (unhashed.length >= HASH_PIECE_CHARS) {
        hash.update(unhashed);
        unhashed = "";
      }
      fits = fit.add(input, () => where) && fits;
      if (!fits) return;
      const answer = mode === "test" ? { ...testAddressAnswer(input)!, duration_ms: 0 } : undefined;
      job.add(input, cells ?? undefined, answer);
    },
    drain: () => upload?.drain() ?? Promise.resolve(),
    async finish() {
      const job = opened();
      hash.update(unhashed);
      unhashed = "";
      await job.finish();
      const rows: UploadedRows = { upload: job, fingerprint: hash.digest("hex"), fit };
      return Object.assign(rows, { [UPLOADED]: true as const });
    },
    discard: () => upload?.discard() ?? Promise.resolve(),
  };
}

export function submitAddressBulkRoute(services: Services) {
  const submission = bulkSubmission<AddressUploadBody, never>(services, {
    fingerprint: (body) => body.addresses.fingerprint,
    submit: (_accountId, body, { idempotency, callbackUrl }) =>
      services.jobs.commitAddressUpload(body.addresses.upload, { idempotency, callbackUrl }),
  });
  // The sink of each request's upload, for the delete of an upload that ends in anything but a 202.
  const sinks = new WeakMap<Request, UploadSink>();
  const handler = verificationHandler(services, {
    endpoint: "address",
    meters: ["address"],
    schema: AddressUploadBodySchema,
    body: (caller) => {
      const limit = caller.plan.address_batch_max ?? ADDRESS_BATCH_MAX;
      return {
        limit: ADDRESS_BULK_BODY_LIMIT,
        oversized: "batch-too-large",
        streamed: addressUploadDecoders({
          maxRows: limit,
          tooMany: (received, unit) =>
            new HttpError(
              "batch-too-large",
              `Cannot accept batch: more than ${limit} ${unit}, the plan allows ${limit} per address job ` +
                "(address_batch_max); split the list (npm run verify does)",
              { extensions: { limit, received } },
            ),
          open: (request) => {
            const sink = uploadSink(services, caller.key.accountId, caller.key.mode);
            sinks.set(request, sink);
            return sink;
          },
        }),
      };
    },
    inputsFitKey: (body) => body.addresses.fit.assert("accept batch"),
    check: (body, _caller, request) => submission.checkCallback(body, request),
    replay: (body, caller, request) => submission.replay(body, caller.key.accountId, request),
    // Test keys: every row is a reserved address (inputsFitKey), stored answered as it was read, offline.
    testAnswer: (body, caller, request) => submission.accepted(caller.key.accountId, body, request),
    // Rows charged: the distinct ones.
    charges: (body) => [{ endpoint: "address", amount: body.addresses.upload.distinct }],
    run: (body, caller, request) => submission.accepted(caller.key.accountId, body, request),
  });
  return async (request: Request): Promise<Response> => {
    try {
      return await handler(request);
    } finally {
      // Refused, replayed, broken off or failed: nothing of the upload stays (a submitted job is kept).
      const sink = sinks.get(request);
      sinks.delete(request);
      await sink?.discard().catch((error: unknown) => {
        services.log.warn("address upload not deleted", { error: String(error) });
      });
    }
  };
}
