// GET /v1/openapi.json: OpenAPI 3.1 generated from the valibot schemas that validate requests (schemas.ts).
import { toJsonSchemaDefs } from "@valibot/to-json-schema";
import {
  AddressInputSchema,
  AddressVerificationSchema,
  BulkRequestSchema,
  EmailRequestSchema,
  EmailVerificationSchema,
  JobAcceptedSchema,
  JobSchema,
  ProblemSchema,
  SignupRequestSchema,
  SignupVerificationSchema,
} from "./schemas.ts";
import { PROBLEM_TYPES, type ProblemSlug } from "./errors.ts";
import { VERDICTS } from "../email/vocabulary.ts";

const DEFINITIONS = {
  EmailRequest: EmailRequestSchema,
  AddressInput: AddressInputSchema,
  SignupRequest: SignupRequestSchema,
  BulkRequest: BulkRequestSchema,
  EmailVerification: EmailVerificationSchema,
  AddressVerification: AddressVerificationSchema,
  SignupVerification: SignupVerificationSchema,
  JobAccepted: JobAcceptedSchema,
  Job: JobSchema,
  Problem: ProblemSchema,
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
// RFC 7240: a per-call budget for the email half of a call, below the server's EMAIL_DEADLINE_MS.
const PREFER_WAIT = {
  name: "Prefer",
  in: "header",
  required: false,
  description:
    "`wait=N` (RFC 7240): answer within N seconds. Lowers this call's email deadline to N seconds (at least 1, never above the server's EMAIL_DEADLINE_MS); an SMTP probe still running then ends as `probe_timeout`. Other and malformed preferences are ignored.",
  schema: { type: "string", examples: ["wait=5"] },
};
const PREFERENCE_APPLIED = {
  "Preference-Applied": {
    description: "`wait=N` when a Prefer wait was applied: the seconds actually allowed (capped by EMAIL_DEADLINE_MS).",
    schema: { type: "string" },
  },
};

// Extensions of issue 13 (the spec's JSON contract is unchanged): CSV in and out, pages and a summary on job reads.
const CSV_REQUEST = {
  schema: { type: "string" },
  description:
    "A CSV file instead of the JSON list: UTF-8 (with or without BOM), comma or semicolon separated, quoted fields, " +
    "a header row. The address column is the one named email (any case, or e-mail, mail, courriel), else the only " +
    "column holding addresses; the other columns are kept with each row and given back by the CSV read of the job. " +
    "The JSON rules apply (5000 rows at most and the plan's batch_max, deduplication, quota at submission); a row " +
    "that cannot be read, or no address column, is a 400 invalid-request whose `line` member names the line.",
};
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
};
const SUMMARY_SCHEMA = {
  type: "object",
  description: "Results so far counted by verdict (every verdict present); it counts the whole job, not the page.",
  properties: Object.fromEntries(VERDICTS.map((verdict) => [verdict, { type: "integer", minimum: 0 }])),
  required: [...VERDICTS],
};

/** The generated schemas, with the Job's summary member (built by the job store, not validated from a request). */
function schemas() {
  const defs = toJsonSchemaDefs(DEFINITIONS, { target: "draft-2020-12", errorMode: "ignore", typeMode: "input" });
  const job = defs.Job as { properties: Record<string, unknown>; required?: string[] };
  job.properties.summary = SUMMARY_SCHEMA;
  job.required = [...(job.required ?? []), "summary"];
  return defs;
}

const ref = (name: keyof typeof DEFINITIONS) => ({ $ref: `#/components/schemas/${name}` });

function problemResponse(slugs: ProblemSlug[], headers: Record<string, unknown> = {}) {
  return {
    description: slugs.map((s) => `${s}: ${PROBLEM_TYPES[s].title}`).join("; "),
    headers,
    content: { "application/problem+json": { schema: ref("Problem") } },
  };
}

function verificationErrors(extra: Record<string, unknown> = {}) {
  return {
    "400": problemResponse(["invalid-request", "request-failed"], RATE_HEADERS),
    "401": problemResponse(["invalid-api-key", "revoked-api-key"]),
    "402": problemResponse(["quota-exceeded"], { ...RATE_HEADERS, ...QUOTA_HEADERS }),
    "403": problemResponse(["endpoint-not-allowed"]),
    "415": problemResponse(["unsupported-media-type"], RATE_HEADERS),
    "429": problemResponse(["rate-limit-exceeded"], { ...RATE_HEADERS, ...RETRY_AFTER }),
    "500": problemResponse(["internal-error"]),
    "503": problemResponse(["service-unavailable"], RETRY_AFTER),
    ...extra,
  };
}

function verification(
  summary: string,
  request: keyof typeof DEFINITIONS,
  response: keyof typeof DEFINITIONS,
  tag: string,
  options: { preferWait?: boolean } = {},
) {
  const { preferWait = false } = options;
  return {
    post: {
      summary,
      tags: [tag],
      security: [{ bearer: [] }],
      ...(preferWait ? { parameters: [PREFER_WAIT] } : {}),
      requestBody: { required: true, content: { "application/json": { schema: ref(request) } } },
      responses: {
        "200": {
          description: "The verdict and its reasons.",
          headers: { ...RATE_HEADERS, ...QUOTA_HEADERS, ...(preferWait ? PREFERENCE_APPLIED : {}) },
          content: { "application/json": { schema: ref(response) } },
        },
        ...verificationErrors(),
      },
    },
  };
}

export function buildOpenApi(publicUrl: string) {
  return {
    openapi: "3.1.0",
    info: {
      title: "vrai verification API",
      version: "1.0.0",
      description:
        "Is this contact data real? Email, French postal address, signup and bulk email verification, each answer with its reasons.",
    },
    servers: [{ url: publicUrl }],
    components: {
      schemas: schemas(),
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "vrai_live_<secret> or vrai_test_<secret>" },
      },
    },
    paths: {
      "/v1/email": verification("Verify one email address", "EmailRequest", "EmailVerification", "email", {
        preferWait: true,
      }),
      "/v1/address": verification("Verify one French postal address", "AddressInput", "AddressVerification", "address"),
      "/v1/signup": verification(
        "Verify the email and address of a signup together",
        "SignupRequest",
        "SignupVerification",
        "signup",
        { preferWait: true },
      ),
      "/v1/email/bulk": {
        post: {
          summary: "Submit up to 5000 email addresses for asynchronous verification",
          tags: ["email"],
          security: [{ bearer: [] }],
          requestBody: {
            required: true,
            content: { "application/json": { schema: ref("BulkRequest") }, "text/csv": CSV_REQUEST },
          },
          responses: {
            "202": {
              description: "Job accepted; poll it at Location.",
              headers: {
                Location: { description: "URL of the job.", schema: { type: "string", format: "uri" } },
                ...RATE_HEADERS,
                ...QUOTA_HEADERS,
              },
              content: { "application/json": { schema: ref("JobAccepted") } },
            },
            ...verificationErrors({ "413": problemResponse(["batch-too-large"], RATE_HEADERS) }),
          },
        },
      },
      "/v1/jobs/{id}": {
        get: {
          summary: "Read a bulk job with the results verified so far",
          tags: ["email"],
          security: [{ bearer: [] }],
          parameters: [
            { name: "id", in: "path", required: true, schema: { type: "string", format: "uuid" } },
            ...PAGE_PARAMETERS,
          ],
          responses: {
            "200": {
              description:
                "The job (JSON), or with `Accept: text/csv` its finished rows as CSV in submission order: the " +
                "submitted columns (or `email`), then verdict, reasons (separated by `|`), suggestion, disposable, " +
                "role, catch_all (true, false, or empty when the check did not run).",
              headers: { ...RATE_HEADERS, ...JOB_HEADERS },
              content: {
                "application/json": { schema: ref("Job") },
                "text/csv": { schema: { type: "string" } },
              },
            },
            "401": problemResponse(["invalid-api-key", "revoked-api-key"]),
            "403": problemResponse(["endpoint-not-allowed"]),
            "404": problemResponse(["job-not-found"], RATE_HEADERS),
            "429": problemResponse(["rate-limit-exceeded"], { ...RATE_HEADERS, ...RETRY_AFTER }),
            "503": problemResponse(["service-unavailable"], RETRY_AFTER),
          },
        },
      },
    },
  };
}
