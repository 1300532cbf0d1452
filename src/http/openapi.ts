// GET /v1/openapi.json: OpenAPI 3.1 generated from the valibot schemas that validate requests (schemas.ts).
import { toJsonSchemaDefs } from "@valibot/to-json-schema";
import {
  AddressInputSchema, AddressVerificationSchema, BulkRequestSchema, EmailRequestSchema, EmailVerificationSchema,
  JobAcceptedSchema, JobSchema, ProblemSchema, SignupRequestSchema, SignupVerificationSchema,
} from "./schemas.ts";
import { PROBLEM_TYPES, type ProblemSlug } from "./errors.ts";

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

function verification(summary: string, request: keyof typeof DEFINITIONS, response: keyof typeof DEFINITIONS, tag: string) {
  return {
    post: {
      summary,
      tags: [tag],
      security: [{ bearer: [] }],
      requestBody: { required: true, content: { "application/json": { schema: ref(request) } } },
      responses: {
        "200": { description: "The verdict and its reasons.", headers: { ...RATE_HEADERS, ...QUOTA_HEADERS }, content: { "application/json": { schema: ref(response) } } },
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
      description: "Is this contact data real? Email, French postal address, signup and bulk email verification, each answer with its reasons.",
    },
    servers: [{ url: publicUrl }],
    components: {
      schemas: toJsonSchemaDefs(DEFINITIONS, { target: "draft-2020-12", errorMode: "ignore", typeMode: "input" }),
      securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "vrai_live_<secret> or vrai_test_<secret>" } },
    },
    paths: {
      "/v1/email": verification("Verify one email address", "EmailRequest", "EmailVerification", "email"),
      "/v1/address": verification("Verify one French postal address", "AddressInput", "AddressVerification", "address"),
      "/v1/signup": verification("Verify the email and address of a signup together", "SignupRequest", "SignupVerification", "signup"),
      "/v1/email/bulk": {
        post: {
          summary: "Submit up to 5000 email addresses for asynchronous verification",
          tags: ["email"],
          security: [{ bearer: [] }],
          requestBody: { required: true, content: { "application/json": { schema: ref("BulkRequest") } } },
          responses: {
            "202": {
              description: "Job accepted; poll it at Location.",
              headers: { Location: { description: "URL of the job.", schema: { type: "string", format: "uri" } }, ...RATE_HEADERS, ...QUOTA_HEADERS },
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
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "string", format: "uuid" } }],
          responses: {
            "200": { description: "The job.", headers: RATE_HEADERS, content: { "application/json": { schema: ref("Job") } } },
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
