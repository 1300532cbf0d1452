// GET /v1/openapi.json: OpenAPI 3.1 generated from the valibot schemas that validate requests (schemas.ts), their
// definitions hoisted into components/schemas, with the examples of openapi_examples.ts.
import { toJsonSchemaDefs } from "@valibot/to-json-schema";
import {
  AddressInputSchema,
  AddressBulkRequestSchema,
  AddressJobSchema,
  AddressVerificationSchema,
  BulkRequestSchema,
  CallbackSecretSchema,
  EmailRequestSchema,
  EmailVerificationSchema,
  JobAcceptedSchema,
  JobCallbackSchema,
  JobSchema,
  ProblemSchema,
  SignupRequestSchema,
  SignupVerificationSchema,
  ValidationErrorSchema,
} from "./schemas.ts";
import { PROBLEM_TYPES, type ProblemSlug } from "./errors.ts";
import { VERDICTS } from "../email/vocabulary.ts";
import { RESERVED_EMAILS } from "../testmode/email.ts";
import {
  addressBulkExamples,
  addressExamples,
  bulkExamples,
  callbackExamples,
  EXAMPLE_JOB_ID,
  emailExamples,
  type Examples,
  problemExamples,
  signupExamples,
} from "./openapi_examples.ts";

const DEFINITIONS = {
  EmailRequest: EmailRequestSchema,
  AddressInput: AddressInputSchema,
  SignupRequest: SignupRequestSchema,
  BulkRequest: BulkRequestSchema,
  AddressBulkRequest: AddressBulkRequestSchema,
  EmailVerification: EmailVerificationSchema,
  AddressVerification: AddressVerificationSchema,
  SignupVerification: SignupVerificationSchema,
  JobAccepted: JobAcceptedSchema,
  Job: JobSchema,
  JobCallback: JobCallbackSchema,
  CallbackSecret: CallbackSecretSchema,
  AddressJob: AddressJobSchema,
  Problem: ProblemSchema,
  ValidationError: ValidationErrorSchema,
};

const int = { schema: { type: "integer" } };
const RATE_HEADERS = {
  "X-RateLimit-Limit": { description: "The ceiling actually enforced: sustained rate plus burst.", ...int },
  "X-RateLimit-Remaining": { description: "Calls left in the current window.", ...int },
  "X-RateLimit-Reset": { description: "Unix seconds when the allowance is full again.", ...int },
};
const QUOTA_HEADERS = {
  "X-Quota-Limit": { description: "Monthly allowance for this endpoint; absent on unmetered and test keys.", ...int },
  "X-Quota-Remaining": { description: "Remaining monthly allowance.", ...int },
  "X-Quota-Reset": { description: "Unix seconds of the monthly reset (first day of next month, 00:00 UTC).", ...int },
};
const RETRY_AFTER = { "Retry-After": { description: "Seconds to wait before retrying.", ...int } };
/** What a scrape of GET /metrics looks like (routes/metrics.ts; the full list is in the README). */
const METRICS_EXAMPLE = [
  "# HELP vrai_http_requests_total HTTP answers by method, route pattern and status",
  "# TYPE vrai_http_requests_total counter",
  'vrai_http_requests_total{method="POST",route="/v1/email",status="200"} 42',
  "",
].join("\n");
// RFC 6750 §3: every 401 names the scheme; `error="invalid_token"` when a key was sent but is not a valid one.
const WWW_AUTHENTICATE = {
  "WWW-Authenticate": {
    description:
      '`Bearer realm="vrai"`, with `, error="invalid_token"` when the request carried a key that is not valid.',
    schema: { type: "string" },
  },
};
// RFC 7240: a per-call budget for the email half of a call, below the server's EMAIL_DEADLINE_MS.
const PREFER_WAIT = {
  name: "Prefer",
  in: "header",
  required: false,
  description:
    "`wait=N` (RFC 7240): answer within N seconds. Lowers this call's email deadline to N seconds (at least 1, never above the server's EMAIL_DEADLINE_MS); an SMTP probe still running then ends as `probe_timeout`. Other and malformed preferences are ignored.",
  schema: { type: "string" },
  example: "wait=5",
};
const PREFERENCE_APPLIED = {
  "Preference-Applied": {
    description:
      "Sent with `wait=N` when a `Prefer: wait` was applied: the seconds actually allowed (capped by EMAIL_DEADLINE_MS); absent otherwise.",
    schema: { type: "string" },
    example: "wait=5",
  },
};

// RFC 7240 on a job read (an extension, http/job_wait.ts): hold the read until the job ends, instead of polling.
const JOB_PREFER_WAIT = {
  name: "Prefer",
  in: "header",
  required: false,
  description:
    "`wait=N` (RFC 7240, an extension): while the job is queued or running, the read is held until the job ends or N seconds pass (at most 30, below the read timeouts of proxies in front), then answered as without it. A job already ended answers at once. The held read counts once against the job-read allowance. A server already holding many reads (for the account or overall) answers at once instead, without Preference-Applied. `wait=0`, other and malformed preferences are ignored.",
  schema: { type: "string" },
  example: "wait=10",
  "x-vrai-extension": "long-poll",
};
const JOB_PREFERENCE_APPLIED = {
  "Preference-Applied": {
    description:
      "`wait=N` when the read was held (the seconds allowed, at most 30): the job ended meanwhile, or it still runs after N seconds. Absent when nothing was held.",
    schema: { type: "string" },
    example: "wait=10",
  },
};

// An extension beside the spec's contract (its JSON is unchanged): draft-ietf-httpapi-idempotency-key-header on bulk.
const IDEMPOTENCY_KEY = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description:
    "Makes a submission safe to send again (a retry after an answer that never came, a resumed run): a second request " +
    "of the account with the same key and the same list answers 202 with the job the first created, " +
    "`Idempotent-Replayed: true`, and nothing charged, even once the quota is spent; requests racing with one key " +
    "share one job. The same key with another list is a 400 `request-failed`. A key is 1 to 255 printable ASCII " +
    'characters (a Structured Field string such as `"…"`, or the bare value) and is the account\'s for as long as ' +
    "its job lives (48 hours). A malformed key is a 400 `invalid-request`.",
  schema: { type: "string", maxLength: 255 },
  example: "9f2c1e4a-5b7d-4c1e-8f3a-2d6b9e0c7a15",
};
const IDEMPOTENT_REPLAYED = {
  "Idempotent-Replayed": {
    description:
      "`true` when the job was created by an earlier request with the same Idempotency-Key; absent otherwise.",
    schema: { type: "string", enum: ["true"] },
  },
};

// List-cleaning extensions (the spec's JSON contract is unchanged): CSV in and out, pages and a summary on job reads.
const CSV_REQUEST = {
  schema: {
    type: "string",
    description:
      "A CSV file instead of the JSON list: UTF-8 (with or without BOM), comma or semicolon separated, quoted fields, " +
      "a header row. The address column is the one named email (any case, or e-mail, mail, courriel), else the only " +
      "column holding addresses; the other columns are kept with each row and given back by the CSV read of the job. " +
      "The JSON rules apply (5000 rows at most and the plan's batch_max, deduplication, quota at submission); a row " +
      "that cannot be read, or no address column, is a 400 invalid-request whose `line` member names the line. Read " +
      "as it arrives: a file with more rows than the plan allows is a 413 as soon as the first row too many is read.",
  },
};
/**
 * A form upload (an extension, as HTML upload forms send files): one file part holding the CSV file, read as the
 * text/csv body is; a callback_url field stands for the query parameter.
 */
function formRequest(csvExample: string) {
  return {
    schema: {
      type: "object",
      description:
        "multipart/form-data with one file part (any field name) holding the CSV file, read as the text/csv body " +
        "is, as it arrives. Other text fields are ignored, except callback_url, which stands for the query " +
        "parameter (sent before the file part). A form without a file part, or with several, is a 400.",
      properties: {
        file: { type: "string", format: "binary", description: "The CSV file." },
        callback_url: { type: "string", format: "uri", maxLength: 2048 },
      },
      required: ["file"],
    },
    encoding: { file: { contentType: "text/csv" } },
    example: { file: csvExample },
  };
}
const PAGE_PARAMETERS = [
  {
    name: "offset",
    in: "query",
    required: false,
    description:
      "JSON reads: finished results to skip, in submission order (default 0). Ignored unless a whole number.",
    schema: { type: "integer", minimum: 0 },
  },
  {
    name: "limit",
    in: "query",
    required: false,
    description: "JSON reads: results to return at most (default: all). Ignored unless a whole number.",
    schema: { type: "integer", minimum: 0 },
  },
];
const JOB_HEADERS = {
  "X-Job-Status": { description: "CSV reads: the job's status.", schema: { type: "string" } },
  "X-Job-Total": { description: "CSV reads: addresses in the job.", ...int },
  "X-Job-Processed": { description: "CSV reads: finished rows, the rows of this answer.", ...int },
  "X-Job-Retrying": {
    description: "CSV reads: items waiting for a retry (summary.retrying of the JSON read).",
    ...int,
  },
  "X-Job-Next-Retry-At": {
    description:
      "CSV reads: when the first item waiting for a retry is due (summary.next_retry_at); absent when none waits.",
    schema: { type: "string", format: "date-time" },
  },
};
// Completion callbacks, an extension on every bulk submission (callbacks/).
const CALLBACK_URL_QUERY = {
  name: "callback_url",
  in: "query",
  required: false,
  description:
    "CSV uploads (which have no JSON member for it): the callback_url of the job, under the same rules as the JSON " +
    "member. Sent with a JSON body too, it must equal the member.",
  schema: { type: "string", format: "uri", maxLength: 2048 },
  example: "https://hooks.example.com/vrai",
};
const SIGNATURE_PARAMETER = {
  name: "Vrai-Signature",
  in: "header",
  required: true,
  description:
    '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" under the account\'s callback secret>`, as Stripe signs ' +
    "webhooks; two v1 values for a day after a rotation (one per secret still valid). Check one v1 against your " +
    "secret in constant time, over the body's bytes as received, and refuse a t older than a few minutes.",
  schema: { type: "string" },
  example: "t=1767261600,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd",
};
const SUMMARY_SCHEMA = {
  type: "object",
  description:
    "Results so far counted by verdict (every verdict present), and the items waiting for a retry; it describes the " +
    "whole job, not the page.",
  properties: {
    ...Object.fromEntries(VERDICTS.map((verdict) => [verdict, { type: "integer", minimum: 0 }])),
    retrying: {
      type: "integer",
      minimum: 0,
      description:
        "Items tried already that wait to be tried again: a greylisting server's delay, or the cool-off after a mail " +
        "server or DNS server that did not answer in time. `processed` counts only final answers, so a job whose " +
        "items all wait shows `processed: 0` and `retrying` > 0 until their retries answer.",
    },
    next_retry_at: {
      type: ["string", "null"],
      format: "date-time",
      description:
        "When the first item waiting for a retry is due (the time of the read when it is due already and waits for " +
        "a worker); null when no item waits.",
    },
  },
  required: [...VERDICTS, "retrying", "next_retry_at"],
};

/**
 * The generated schemas, with the Job's summary member (built by the job store, not validated from a request), and
 * the body of a completion callback: the job read without its results and its callback state, plus `poll`.
 */
function schemas() {
  const defs = toJsonSchemaDefs(DEFINITIONS, { target: "draft-2020-12", errorMode: "ignore", typeMode: "input" });
  const job = defs.Job as { properties: Record<string, unknown>; required?: string[] };
  job.properties.summary = SUMMARY_SCHEMA;
  job.required = [...(job.required ?? []), "summary"];
  const { results: _results, callback: _callback, ...noticeProperties } = job.properties;
  (defs as Record<string, unknown>).CallbackNotice = {
    ...job,
    description:
      "The body of a completion callback: the job as GET /v1/jobs/{id} reads it, without results, and poll, the URL " +
      "the results are read at (with the same key).",
    properties: { ...noticeProperties, poll: { type: "string", format: "uri" } },
    required: [...(job.required ?? []).filter((name) => name !== "results"), "poll"],
  };
  const addressJob = defs.AddressJob as { properties: Record<string, unknown>; required?: string[] };
  const { results: _addressResults, callback: _addressCallback, ...addressNotice } = addressJob.properties;
  (defs as Record<string, unknown>).AddressCallbackNotice = {
    type: "object",
    description:
      "The body of an address job's completion callback: the job as GET /v1/jobs/{id} reads it, without results, " +
      "and poll, the URL the results are read at (with the same key).",
    properties: { ...addressNotice, poll: { type: "string", format: "uri" } },
    required: [...(addressJob.required ?? []).filter((name) => name !== "results"), "poll"],
  };
  return defs;
}

/** `#/$defs/X` (where the JSON Schema generator points) as `#/components/schemas/X`, everywhere in `node`. */
function hoistRefs(node: unknown, hoisted: Record<string, unknown>): unknown {
  if (Array.isArray(node)) return node.map((item) => hoistRefs(item, hoisted));
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "$defs") {
      // Nested definitions join the components, under their own names.
      for (const [name, def] of Object.entries(value as Record<string, unknown>))
        hoisted[name] = hoistRefs(def, hoisted);
    } else if (key === "$ref" && typeof value === "string" && value.startsWith("#/$defs/")) {
      out.$ref = `#/components/schemas/${value.slice("#/$defs/".length)}`;
    } else out[key] = hoistRefs(value, hoisted);
  }
  return out;
}

/** The component schemas: generated, with every reference pointing inside components/schemas. */
function componentSchemas(): Record<string, unknown> {
  const hoisted: Record<string, unknown> = {};
  const defs = hoistRefs(schemas(), hoisted) as Record<string, unknown>;
  for (const name of Object.keys(hoisted)) {
    if (Object.hasOwn(defs, name)) continue;
    defs[name] = hoisted[name];
  }
  return defs;
}

const ref = (name: keyof typeof DEFINITIONS | "CallbackNotice" | "AddressCallbackNotice") => ({
  $ref: `#/components/schemas/${name}`,
});

function problemResponse(
  publicUrl: string,
  slugs: ProblemSlug[],
  headers: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    description: slugs.map((s) => `${s}: ${PROBLEM_TYPES[s].title}`).join("; "),
    headers,
    content: {
      "application/problem+json": { schema: ref("Problem"), examples: problemExamples(publicUrl, slugs) },
    },
  };
}

// Which refusals carry which headers (verification_call.ts, guard.ts): rate headers once the key is admitted, quota
// headers on everything after admission for a live metered key, Retry-After on 429 and 503.
const AFTER_ADMISSION = { ...RATE_HEADERS, ...QUOTA_HEADERS };

function verificationErrors(publicUrl: string, extra: Record<string, unknown> = {}) {
  return {
    "400": problemResponse(publicUrl, ["invalid-request", "request-failed"], AFTER_ADMISSION),
    "401": problemResponse(publicUrl, ["invalid-api-key", "revoked-api-key"], WWW_AUTHENTICATE),
    "402": problemResponse(publicUrl, ["quota-exceeded"], AFTER_ADMISSION),
    "403": problemResponse(publicUrl, ["endpoint-not-allowed"]),
    "415": problemResponse(publicUrl, ["unsupported-media-type"], AFTER_ADMISSION),
    "429": problemResponse(publicUrl, ["rate-limit-exceeded"], { ...RATE_HEADERS, ...RETRY_AFTER }),
    "500": problemResponse(publicUrl, ["internal-error"], AFTER_ADMISSION),
    "503": problemResponse(publicUrl, ["service-unavailable"], { ...AFTER_ADMISSION, ...RETRY_AFTER }),
    ...extra,
  };
}

/** The POST a job's callback_url receives when the job ends (callbacks/deliverer.ts). */
function jobEndedCallback(
  notice: "CallbackNotice" | "AddressCallbackNotice" = "CallbackNotice",
  example: unknown = callbackExamples().notice,
) {
  return {
    post: {
      summary: "The job ended (completed or failed)",
      description:
        "Sent once when the job ends, retried on anything but a 2xx (no redirect is followed) after 30 s, then " +
        "doubling up to an hour between attempts, for a day. Rarely sent twice (a process that dies after your " +
        "answer): treat a second call for the same job_id as the same news. Its state is the job read's callback.",
      parameters: [SIGNATURE_PARAMETER],
      requestBody: {
        required: true,
        content: { "application/json": { schema: ref(notice), example } },
      },
      // No bearer: the receiver tells vrai's call by its Vrai-Signature header.
      security: [],
      responses: {
        "2XX": { description: "Received; any other answer, or none within 10 s, is tried again." },
        "4XX": { description: "Refused: tried again, as any answer but a 2xx is, until a day has passed." },
      },
    },
  };
}

function callbackSecretOperation(publicUrl: string, options: { operationId: string; summary: string }) {
  return {
    operationId: options.operationId,
    summary: options.summary,
    description:
      "An extension. Any key of the account (live or test, whatever its endpoints) reads or rotates it; the answer " +
      "is never cached. Counts against the 60/min job-read allowance.",
    tags: ["email"],
    security: [{ bearer: [] }],
    responses: {
      "200": {
        description: "The account's callback secret.",
        headers: RATE_HEADERS,
        content: { "application/json": { schema: ref("CallbackSecret"), example: callbackExamples().secret } },
      },
      "401": problemResponse(publicUrl, ["invalid-api-key", "revoked-api-key"], WWW_AUTHENTICATE),
      "429": problemResponse(publicUrl, ["rate-limit-exceeded"], { ...RATE_HEADERS, ...RETRY_AFTER }),
      "503": problemResponse(publicUrl, ["service-unavailable"], RETRY_AFTER),
    },
  };
}

/** What each key answers, on every operation that takes inputs (http/test_inputs.ts). */
const TEST_INPUTS_RULE =
  "A test key (vrai_test_…) answers only the reserved test inputs, offline and free, and a live key answers " +
  "everything but them: an input of the other kind is a 400 request-failed naming it (in a list: the first such row, " +
  "and every one in `errors`), and nothing is answered or charged.";

/** The 202 of a bulk submission: the job, and where to poll it. */
function jobAcceptedResponse(accepted: Examples & { reserved: { value: { poll: string } } }) {
  return {
    description: "Job accepted; poll it at Location.",
    headers: {
      Location: {
        description: "URL of the job.",
        schema: { type: "string", format: "uri" },
        example: accepted.reserved.value.poll,
      },
      ...RATE_HEADERS,
      ...QUOTA_HEADERS,
      ...IDEMPOTENT_REPLAYED,
    },
    content: { "application/json": { schema: ref("JobAccepted"), examples: accepted } },
  };
}

interface VerificationOptions {
  operationId: string;
  summary: string;
  request: keyof typeof DEFINITIONS;
  response: keyof typeof DEFINITIONS;
  tag: string;
  examples: { requests: Examples; responses: Examples };
  preferWait?: boolean;
}

function verification(publicUrl: string, options: VerificationOptions) {
  const { operationId, summary, request, response, tag, examples, preferWait = false } = options;
  return {
    post: {
      operationId,
      summary,
      description: `The reserved test inputs are those of the examples. ${TEST_INPUTS_RULE}`,
      tags: [tag],
      security: [{ bearer: [] }],
      ...(preferWait ? { parameters: [PREFER_WAIT] } : {}),
      requestBody: {
        required: true,
        content: { "application/json": { schema: ref(request), examples: examples.requests } },
      },
      responses: {
        "200": {
          description: "The verdict and its reasons.",
          headers: { ...RATE_HEADERS, ...QUOTA_HEADERS, ...(preferWait ? PREFERENCE_APPLIED : {}) },
          content: { "application/json": { schema: ref(response), examples: examples.responses } },
        },
        ...verificationErrors(publicUrl),
      },
    },
  };
}

/**
 * The server entry. PUBLIC_URL unset leaves a loopback URL, which names no server a client elsewhere can reach: the
 * document then says "/", the origin that served it (a relative server URL, OpenAPI 3.1 §4.8.5).
 */
function serverOf(publicUrl: string): { url: string; description: string } {
  const host = new URL(publicUrl).hostname;
  if (host === "localhost" || host.endsWith(".localhost") || host.startsWith("127.") || host === "[::1]") {
    return { url: "/", description: "The server that serves this document (PUBLIC_URL unset)" };
  }
  return { url: publicUrl, description: "This deployment (PUBLIC_URL)" };
}

const JOB_ID_PARAMETER = {
  name: "id",
  in: "path",
  required: true,
  schema: { type: "string", format: "uuid" },
  example: EXAMPLE_JOB_ID,
};

/** The failures of a job read, in JSON or in CSV. */
function jobReadErrors(publicUrl: string) {
  return {
    "401": problemResponse(publicUrl, ["invalid-api-key", "revoked-api-key"], WWW_AUTHENTICATE),
    "403": problemResponse(publicUrl, ["endpoint-not-allowed"]),
    "404": problemResponse(publicUrl, ["job-not-found"], RATE_HEADERS),
    "429": problemResponse(publicUrl, ["rate-limit-exceeded"], { ...RATE_HEADERS, ...RETRY_AFTER }),
    "503": problemResponse(publicUrl, ["service-unavailable"], RETRY_AFTER),
  };
}

function describeApi(publicUrl: string) {
  const bulk = bulkExamples(publicUrl);
  const addressBulk = addressBulkExamples(publicUrl);
  return {
    openapi: "3.1.0",
    info: {
      title: "vrai verification API",
      version: "1.0.0",
      license: { name: "MIT", identifier: "MIT" },
      description:
        "Is this contact data real? Email, French postal address, signup and bulk email verification, each answer " +
        "with its reasons. Every failure is an RFC 9457 problem document whose `type` links a page explaining it " +
        "(`/errors/<slug>`). Test keys (vrai_test_…) answer the reserved inputs shown in the examples: " +
        "`<local part>@vrai.test` for email, `00000 Testville` lines for addresses; a live key is refused them " +
        "(400 request-failed), and a test key anything else.",
    },
    servers: [serverOf(publicUrl)],
    components: {
      schemas: componentSchemas(),
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "vrai_live_<secret> or vrai_test_<secret>" },
        metricsToken: { type: "http", scheme: "bearer", description: "METRICS_TOKEN, when the server sets it" },
      },
    },
    paths: {
      "/v1/email": verification(publicUrl, {
        operationId: "verifyEmail",
        summary: "Verify one email address",
        request: "EmailRequest",
        response: "EmailVerification",
        tag: "email",
        examples: emailExamples(),
        preferWait: true,
      }),
      "/v1/address": verification(publicUrl, {
        operationId: "verifyAddress",
        summary: "Verify one French postal address",
        request: "AddressInput",
        response: "AddressVerification",
        tag: "address",
        examples: addressExamples(),
      }),
      "/v1/signup": verification(publicUrl, {
        operationId: "verifySignup",
        summary: "Verify the email and address of a signup together",
        request: "SignupRequest",
        response: "SignupVerification",
        tag: "signup",
        examples: signupExamples(),
        preferWait: true,
      }),
      "/v1/email/bulk": {
        post: {
          operationId: "submitBulkEmail",
          summary: "Submit up to 5000 email addresses for asynchronous verification",
          description: TEST_INPUTS_RULE,
          tags: ["email"],
          security: [{ bearer: [] }],
          parameters: [IDEMPOTENCY_KEY, CALLBACK_URL_QUERY],
          requestBody: {
            required: true,
            content: {
              "application/json": { schema: ref("BulkRequest"), examples: bulk.request },
              "text/csv": {
                ...CSV_REQUEST,
                example: `email,name\r\n${RESERVED_EMAILS.map((e, i) => `${e},Person ${i + 1}`).join("\r\n")}\r\n`,
              },
              "multipart/form-data": formRequest(
                `email,name\r\n${RESERVED_EMAILS.map((e, i) => `${e},Person ${i + 1}`).join("\r\n")}\r\n`,
              ),
            },
          },
          responses: {
            "202": jobAcceptedResponse(bulk.accepted),
            ...verificationErrors(publicUrl, {
              "413": problemResponse(publicUrl, ["batch-too-large"], AFTER_ADMISSION),
            }),
          },
          callbacks: {
            jobEnded: {
              "{$request.body#/callback_url}": jobEndedCallback(),
              "{$request.query.callback_url}": jobEndedCallback(),
            },
          },
        },
      },
      // An extension (the spec's JSON contract is unchanged): address lists as bulk jobs.
      "/v1/address/bulk": {
        post: {
          operationId: "submitBulkAddress",
          summary: "Submit a list or a CSV file of French postal addresses for asynchronous verification (extension)",
          description:
            "The bulk job model of POST /v1/email/bulk for addresses: 202 and Location, GET /v1/jobs/{id} with " +
            "status, processed, results in input order (each the POST /v1/address answer with its `row`), pages, a " +
            "summary by verdict and CSV results, Idempotency-Key, 48 h retention. Every row is answered; rows equal " +
            "once trimmed and in any case are charged once and answered alike. One unit of the address quota per " +
            "distinct row, charged at submission (402 when the quota cannot cover the whole list, nothing charged). A job holds " +
            "at most the plan's address_batch_max rows (100,000 by default): a larger list is a 413 naming the " +
            `limit (\`npm run verify\` splits a file into several jobs). ${TEST_INPUTS_RULE}`,
          tags: ["address"],
          "x-vrai-extension": "address-bulk",
          security: [{ bearer: [] }],
          parameters: [IDEMPOTENCY_KEY, CALLBACK_URL_QUERY],
          requestBody: {
            required: true,
            content: {
              "application/json": { schema: ref("AddressBulkRequest"), examples: addressBulk.request },
              "text/csv": {
                schema: {
                  type: "string",
                  description:
                    "A CSV file instead of the JSON list: UTF-8 (with or without BOM), comma or semicolon " +
                    "separated, quoted fields, a header row. The address is one column named adresse, address or " +
                    "line, or field columns named numero/house_number, voie/rue/street, code_postal/cp/postcode, " +
                    "ville/commune/city, pays/country (any case, accents ignored), or both (fields stand over the " +
                    "line). A complement column is kept but not matched. Every other column is kept with its row " +
                    "and given back, before the answer's columns, by the CSV read of the job. A row that cannot be " +
                    "read, or no address column, is a 400 invalid-request whose `line` member names the line. " +
                    "Read as it arrives (never held whole): more rows than address_batch_max is a 413 as soon as " +
                    "the first row too many is read.",
                },
                example: addressBulk.csvRequest,
              },
              "multipart/form-data": formRequest(addressBulk.csvRequest),
            },
          },
          responses: {
            "202": jobAcceptedResponse(addressBulk.accepted),
            ...verificationErrors(publicUrl, {
              "413": problemResponse(publicUrl, ["batch-too-large"], AFTER_ADMISSION),
            }),
          },
          callbacks: {
            jobEnded: {
              "{$request.body#/callback_url}": jobEndedCallback("AddressCallbackNotice", addressBulk.notice),
              "{$request.query.callback_url}": jobEndedCallback("AddressCallbackNotice", addressBulk.notice),
            },
          },
        },
      },
      "/v1/jobs/{id}": {
        get: {
          operationId: "readJob",
          summary: "Read a bulk job with the results verified so far",
          tags: ["email"],
          security: [{ bearer: [] }],
          parameters: [JOB_ID_PARAMETER, ...PAGE_PARAMETERS, JOB_PREFER_WAIT],
          responses: {
            "200": {
              description:
                "The job: an email job's Job, or an AddressJob for an address list (an extension), whose JSON " +
                "read answers 1000 results unless a page is asked for. The same read with `Accept: text/csv` " +
                "answers its finished rows as CSV, as `GET /v1/jobs/{id}/results.csv` does (described there, so that " +
                "typed clients read this one as JSON).",
              headers: { ...RATE_HEADERS, ...JOB_HEADERS, ...JOB_PREFERENCE_APPLIED },
              content: {
                "application/json": {
                  // anyOf: an address job has `kind: "address"`, which an email job lacks; the two are told apart by it.
                  schema: { anyOf: [ref("Job"), ref("AddressJob")] },
                  examples: { ...bulk.job, address: addressBulk.job },
                },
              },
            },
            ...jobReadErrors(publicUrl),
          },
        },
      },
      "/v1/jobs/{id}/results.csv": {
        get: {
          operationId: "readJobCsv",
          summary: "Read a bulk job's finished rows as CSV (an extension)",
          tags: ["email"],
          "x-vrai-extension": "csv",
          security: [{ bearer: [] }],
          parameters: [JOB_ID_PARAMETER, JOB_PREFER_WAIT],
          responses: {
            "200": {
              description:
                "The finished rows as CSV in submission order: the submitted columns (or `email`), then verdict, " +
                "reasons (separated by `|`), suggestion, disposable, role, catch_all (true, false, or empty when the " +
                "check did not run). An address job's rows are the submitted columns (or the input's members), then " +
                "verdict, reasons, normalized_line, normalized_house_number, normalized_house_number_suffix, " +
                "normalized_street, normalized_postcode, normalized_city, latitude, longitude, insee_code, ban_id, " +
                "postal_line_4, postal_line_6. The job's state is in the X-Job-* headers.",
              headers: { ...RATE_HEADERS, ...JOB_HEADERS, ...JOB_PREFERENCE_APPLIED },
              content: { "text/csv": { schema: { type: "string" }, example: bulk.csv } },
            },
            ...jobReadErrors(publicUrl),
          },
        },
      },
      "/v1/account/callback-secret": {
        get: callbackSecretOperation(publicUrl, {
          operationId: "readCallbackSecret",
          summary: "The secret the account's completion callbacks are signed with (made on the first read)",
        }),
        post: callbackSecretOperation(publicUrl, {
          operationId: "rotateCallbackSecret",
          summary: "Rotate the callback secret: the one it replaces still signs, beside it, for 24 hours",
        }),
      },
      // An operations extension outside the /v1 API: for Prometheus, not for API clients.
      "/metrics": {
        get: {
          operationId: "readMetrics",
          summary: "Prometheus metrics of this process (an operations extension, outside the /v1 API)",
          description:
            "Prometheus text exposition format. Open when METRICS_TOKEN is unset; otherwise send it as a bearer " +
            "token. Never charged nor rate limited. Served by API processes (ROLE=all or api).",
          tags: ["operations"],
          "x-vrai-extension": "operations",
          security: [{}, { metricsToken: [] }],
          responses: {
            "200": {
              description: "Every instrument of this process.",
              content: { "text/plain; version=0.0.4": { schema: { type: "string" }, example: METRICS_EXAMPLE } },
            },
            "401": problemResponse(publicUrl, ["invalid-metrics-token"], {
              "WWW-Authenticate": {
                description:
                  '`Bearer realm="vrai-metrics"`, with `, error="invalid_token"` when the request carried a wrong token.',
                schema: { type: "string" },
              },
            }),
          },
        },
      },
    },
  };
}

/** X-Request-Id (request_scope.ts): what a client may send, and what every answer carries. */
const REQUEST_ID_EXAMPLE = "3f1c2a9e-6b7d-4e8f-9a0b-1c2d3e4f5a6b";
const REQUEST_ID_COMPONENTS = {
  parameters: {
    RequestId: {
      name: "X-Request-Id",
      in: "header",
      required: false,
      description:
        "Your id for this request, echoed in the X-Request-Id response header and written in every log line of " +
        "the request (its probes included). Used when it is 1 to 128 characters of A-Z a-z 0-9 `.` `_` `:` `-`; " +
        "anything else, or none, is replaced by a generated UUID.",
      schema: { type: "string", pattern: "^[A-Za-z0-9._:-]{1,128}$" },
      example: REQUEST_ID_EXAMPLE,
    },
  },
  headers: {
    RequestId: {
      description:
        "The request's id: the X-Request-Id the request carried when it was usable, otherwise a generated UUID. " +
        "Sent on every answer, problems included; quote it when reporting a problem, the logs are searchable by it.",
      schema: { type: "string", maxLength: 128 },
      example: REQUEST_ID_EXAMPLE,
    },
  },
};

/** The API description, with X-Request-Id on every operation and every one of its answers. */
export function buildOpenApi(publicUrl: string) {
  const doc = describeApi(publicUrl);
  const parameter = { $ref: "#/components/parameters/RequestId" };
  const header = { $ref: "#/components/headers/RequestId" };
  for (const item of Object.values(doc.paths) as Array<Record<string, Record<string, unknown>>>) {
    for (const operation of Object.values(item)) {
      operation.parameters = [...((operation.parameters as unknown[] | undefined) ?? []), parameter];
      for (const response of Object.values(operation.responses as Record<string, { headers?: object }>)) {
        response.headers = { ...response.headers, "X-Request-Id": header };
      }
    }
  }
  return { ...doc, components: { ...doc.components, ...REQUEST_ID_COMPONENTS } };
}
