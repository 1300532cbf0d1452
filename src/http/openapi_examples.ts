// The examples of GET /v1/openapi.json. Every success example is the answer a test key gets for the spec's reserved
// inputs (testmode/*.ts builds them, so they cannot drift); the problem examples repeat the details the routes write.
import type { AddressInput } from "../address/types.ts";
import type { Verdict } from "../email/types.ts";
import { combineSignup } from "../signup/combine.ts";
import { RESERVED_ADDRESS_LINES, testAddressAnswer } from "../testmode/address.ts";
import { RESERVED_EMAILS, testEmailAnswer } from "../testmode/email.ts";
import { HttpError, PROBLEM_TYPES, type ProblemSlug } from "./errors.ts";
import { assertInputsFitKey, EMAIL_INPUTS, listPlaces } from "./test_inputs.ts";
import {
  ADDRESS_INPUT_COLUMNS,
  ADDRESS_RESULT_COLUMNS,
  addressInputCells,
  addressResultCells,
} from "../jobs/address_csv.ts";
import { csvLines } from "../jobs/csv_table.ts";
import { ADDRESS_VERDICTS } from "../address/vocabulary.ts";

/** An OpenAPI Example Object. */
export interface Example {
  summary: string;
  value: unknown;
}
export type Examples = Record<string, Example>;

/** The example job id of the bulk and job examples. */
export const EXAMPLE_JOB_ID = "0b9a2c5e-4f1d-4c8a-9e3b-7d6f5a4c3b21";

function emailAnswer(email: string) {
  const answer = testEmailAnswer(email);
  if (!answer) throw new RangeError(`Cannot build OpenAPI example: ${email} is not a reserved test address`);
  return { ...answer, duration_ms: 0 };
}

function addressAnswer(input: AddressInput) {
  const answer = testAddressAnswer(input);
  if (!answer) throw new RangeError(`Cannot build OpenAPI example: ${JSON.stringify(input)} is not a reserved address`);
  return { ...answer, duration_ms: 0 };
}

const TEST_KEY_NOTE = "test key: the reserved input";

/** POST /v1/email: one example per reserved local part, named after it. */
export function emailExamples(): { requests: Examples; responses: Examples } {
  const requests: Examples = {};
  const responses: Examples = {};
  for (const email of RESERVED_EMAILS) {
    const name = email.slice(0, email.indexOf("@"));
    const answer = emailAnswer(email);
    requests[name] = { summary: `${email} (${TEST_KEY_NOTE}: ${answer.verdict})`, value: { email } };
    responses[name] = { summary: `${email} answered ${answer.verdict}`, value: answer };
  }
  return { requests, responses };
}

/** POST /v1/address: one example per reserved line, named after its verdict, and one made of fields. */
export function addressExamples(): { requests: Examples; responses: Examples } {
  const requests: Examples = {};
  const responses: Examples = {};
  for (const line of RESERVED_ADDRESS_LINES) {
    const answer = addressAnswer({ line });
    requests[answer.verdict] = { summary: `${line} (${TEST_KEY_NOTE}: ${answer.verdict})`, value: { line } };
    responses[answer.verdict] = { summary: `${line} answered ${answer.verdict}`, value: answer };
  }
  const fields = { house_number: "1", street: "Rue Deliverable", postcode: "00000", city: "Testville", country: "FR" };
  requests.fields = { summary: `The same address as separate fields (${TEST_KEY_NOTE})`, value: fields };
  responses.fields = { summary: "Separate fields answered deliverable", value: addressAnswer(fields) };
  return { requests, responses };
}

/** POST /v1/signup: both signals, a worse address than email, and email alone. */
export function signupExamples(): { requests: Examples; responses: Examples } {
  const cases: Array<[string, string, { email?: string; address?: { line: string } }]> = [
    [
      "deliverable",
      "Email and address both deliverable",
      {
        email: "deliverable@vrai.test",
        address: { line: "1 Rue Deliverable, 00000 Testville" },
      },
    ],
    [
      "corrected_address",
      "A corrected address makes the signup risky",
      {
        email: "deliverable@vrai.test",
        address: { line: "1 Rue Corected, 00000 Testville" },
      },
    ],
    ["email_only", "Email alone: only the email signal runs and is billed", { email: "disposable@vrai.test" }],
  ];
  const requests: Examples = {};
  const responses: Examples = {};
  for (const [name, summary, body] of cases) {
    const combined = combineSignup({
      email: body.email === undefined ? undefined : emailAnswer(body.email),
      address: body.address === undefined ? undefined : addressAnswer(body.address),
    });
    requests[name] = { summary: `${summary} (${TEST_KEY_NOTE})`, value: body };
    responses[name] = { summary: `${summary}: ${combined.verdict}`, value: { ...combined, duration_ms: 0 } };
  }
  return { requests, responses };
}

function countVerdicts(results: ReadonlyArray<{ verdict: Verdict }>): Record<Verdict, number> {
  const counts = { undeliverable: 0, risky: 0, unknown: 0, deliverable: 0 };
  for (const result of results) counts[result.verdict] += 1;
  return counts;
}

/** POST /v1/email/bulk and GET /v1/jobs/{id}: a job of every reserved address, accepted, then completed. */
/** A completion callback's body and the account's secret, as the service sends and shows them. */
export function callbackExamples() {
  return {
    notice: {
      job_id: EXAMPLE_JOB_ID,
      status: "completed",
      total: 5,
      processed: 5,
      created_at: "2026-01-01T10:00:00.000Z",
      expires_at: "2026-01-03T10:00:00.000Z",
      summary: { undeliverable: 1, risky: 1, unknown: 2, deliverable: 1, retrying: 0, next_retry_at: null },
      poll: `https://vrai.example.com/v1/jobs/${EXAMPLE_JOB_ID}`,
    },
    secret: {
      secret: "vrai_whsec_3q2-7wK9m_Zt4yVb1nXcP0aLs8dFh6gJ5kRe2uTi9oE",
      created_at: "2026-01-01T09:00:00.000Z",
      previous_expires_at: null,
    },
  };
}

export function bulkExamples(publicUrl: string) {
  const poll = `${publicUrl}/v1/jobs/${EXAMPLE_JOB_ID}`;
  const results = RESERVED_EMAILS.map(emailAnswer);
  const summary = { ...countVerdicts(results), retrying: 0, next_retry_at: null };
  return {
    request: {
      reserved: { summary: `Every reserved address (${TEST_KEY_NOTE})`, value: { emails: RESERVED_EMAILS } },
      callback: {
        summary: "With a completion callback: a signed POST to callback_url when the job ends",
        value: { emails: RESERVED_EMAILS, callback_url: "https://hooks.example.com/vrai" },
      },
    } satisfies Examples,
    accepted: {
      reserved: {
        summary: "Accepted: poll the job",
        value: {
          job_id: EXAMPLE_JOB_ID,
          status: "queued",
          total: RESERVED_EMAILS.length,
          poll,
          expires_at: "2026-01-03T10:00:00.000Z",
          retention_note: "Submitted addresses and results are deleted 48 hours after submission.",
        },
      },
    } satisfies Examples,
    job: {
      retrying: {
        summary: "A running job whose last addresses wait for a retry (a greylisting server asked to come back later)",
        value: {
          job_id: EXAMPLE_JOB_ID,
          status: "running",
          total: results.length,
          processed: results.length - 1,
          created_at: "2026-01-01T10:00:00.000Z",
          expires_at: "2026-01-03T10:00:00.000Z",
          summary: {
            ...countVerdicts(results.slice(0, -1)),
            retrying: 1,
            next_retry_at: "2026-01-01T10:02:00.000Z",
          },
          results: results.slice(0, -1),
        },
      },
      completed: {
        summary: "The job once completed",
        value: {
          job_id: EXAMPLE_JOB_ID,
          status: "completed",
          total: results.length,
          processed: results.length,
          created_at: "2026-01-01T10:00:00.000Z",
          expires_at: "2026-01-03T10:00:00.000Z",
          summary,
          results,
        },
      },
      callback: {
        summary: "A job submitted with a callback_url, its callback delivered",
        value: {
          job_id: EXAMPLE_JOB_ID,
          status: "completed",
          total: results.length,
          processed: results.length,
          created_at: "2026-01-01T10:00:00.000Z",
          expires_at: "2026-01-03T10:00:00.000Z",
          summary,
          callback: {
            url: "https://hooks.example.com/vrai",
            state: "delivered",
            attempts: 2,
            last_status: 200,
            last_error: null,
            next_attempt_at: null,
            delivered_at: "2026-01-01T10:00:41.000Z",
          },
          results,
        },
      },
    } satisfies Examples,
    csv: `email,verdict,reasons,suggestion,disposable,role,catch_all\r\n${results
      .map((r) =>
        [r.email, r.verdict, r.reasons.join("|"), "", r.flags.disposable, r.flags.role, r.flags.catch_all]
          .map((cell) => (cell === null ? "" : String(cell)))
          .join(","),
      )
      .join("\r\n")}\r\n`,
  };
}

interface ProblemExample {
  summary: string;
  detail: string;
  extensions?: Record<string, unknown>;
}

/** The invalid-request example: what `{"mail": "deliverable@vrai.test"}` is answered on POST /v1/email. */
export const MISSPELT_MEMBER_BODY = { mail: "deliverable@vrai.test" };

/** The request-failed examples: what a test key is answered for these on POST /v1/email and POST /v1/email/bulk. */
export const NOT_RESERVED_EMAIL = "jane@example.com";
export const NOT_RESERVED_BATCH = { emails: ["deliverable@vrai.test", "jane@example.com", "bob@example.org"] };

/** The detail and members of the refusal `refuse` throws, as the route writes them. */
function refusalOf(refuse: () => void): Pick<ProblemExample, "detail" | "extensions"> {
  try {
    refuse();
  } catch (error) {
    if (error instanceof HttpError) return { detail: error.detail, extensions: error.extensions };
    throw error;
  }
  throw new RangeError("Cannot build OpenAPI example: the input was not refused");
}

/** One or more examples per problem slug, with the detail the service writes. */
const PROBLEM_EXAMPLES: Record<ProblemSlug, Record<string, ProblemExample>> = {
  "invalid-metrics-token": {
    "invalid-metrics-token": {
      summary: "METRICS_TOKEN is set and the request did not send it",
      detail: "Cannot read metrics: send Authorization: Bearer <METRICS_TOKEN>",
    },
  },
  "invalid-api-key": {
    "invalid-api-key": {
      summary: "No key, or not a vrai key",
      detail: "Cannot authenticate: send Authorization: Bearer vrai_live_<secret> or vrai_test_<secret>",
    },
  },
  "revoked-api-key": {
    "revoked-api-key": { summary: "A revoked key", detail: "Cannot authenticate: key vrai_live_Q3… was revoked" },
  },
  "endpoint-not-allowed": {
    "endpoint-not-allowed": {
      summary: "The key may not call this endpoint",
      detail: "Cannot call this endpoint: the key may call address, not email",
    },
  },
  "invalid-request": {
    "invalid-request": {
      summary: 'A misspelt member: {"mail": …} instead of {"email": …}',
      detail: 'Cannot validate body: email is required; unexpected member "mail"',
      extensions: {
        errors: [
          { member: "email", message: "email is required" },
          { member: "mail", message: 'unexpected member "mail"' },
        ],
      },
    },
    "invalid-request-too-long": {
      summary: "An address over 320 characters",
      detail: "Cannot validate body: email must be a string of at most 320 characters (it has 331)",
      extensions: {
        errors: [{ member: "email", message: "email must be a string of at most 320 characters (it has 331)" }],
      },
    },
  },
  "request-failed": {
    "request-failed": {
      summary: "A test key with an input that is not reserved",
      ...refusalOf(() =>
        assertInputsFitKey("test", EMAIL_INPUTS, [NOT_RESERVED_EMAIL], () => ({ member: "email" }), "verify"),
      ),
    },
    "request-failed-batch": {
      summary: "A test key with a list holding rows that are not reserved (POST /v1/email/bulk)",
      ...refusalOf(() =>
        assertInputsFitKey("test", EMAIL_INPUTS, NOT_RESERVED_BATCH.emails, listPlaces("emails"), "accept batch"),
      ),
    },
    "request-failed-live-key": {
      summary: "A live key with a reserved test input",
      ...refusalOf(() =>
        assertInputsFitKey("live", EMAIL_INPUTS, [RESERVED_EMAILS[0]!], () => ({ member: "email" }), "verify"),
      ),
    },
  },
  "rate-limit-exceeded": {
    "rate-limit-exceeded": {
      summary: "Too many calls this minute",
      detail: "Cannot accept call: more than 70 calls a minute; retry in 12 s",
    },
  },
  "quota-exceeded": {
    "quota-exceeded": {
      summary: "The monthly allowance is spent",
      detail:
        "Cannot verify: the email quota of 100 calls this month is spent; it renews on the first day of next month (X-Quota-Reset)",
    },
  },
  "batch-too-large": {
    "batch-too-large": {
      summary: "More addresses than the plan allows per job",
      detail: "Cannot accept batch: 6000 addresses, the plan allows 5000 per job",
      extensions: { limit: 5000, received: 6000 },
    },
    "batch-too-large-bytes": {
      summary: "A body over 2 MiB",
      detail: "Cannot read body: it exceeds 2097152 bytes",
      extensions: { limit_bytes: 2097152 },
    },
  },
  "job-not-found": {
    "job-not-found": {
      summary: "Unknown, expired or another account's job",
      detail: "Cannot read job: no such job for this account (unknown, expired or another account's)",
    },
  },
  "service-unavailable": {
    "service-unavailable": {
      summary: "The database is unreachable",
      detail: "Cannot serve the call: the database is unreachable; retry later",
    },
  },
  "internal-error": {
    "internal-error": {
      summary: "An unexpected fault",
      detail: "The service failed unexpectedly; the fault is logged",
    },
  },
  "not-found": {
    "not-found": { summary: "No such route", detail: "Cannot find /v1/nothing: no such route" },
  },
  "method-not-allowed": {
    "method-not-allowed": {
      summary: "Wrong method",
      detail: "Cannot GET /v1/email: allowed methods are POST",
    },
  },
  "request-timeout": {
    "request-timeout": {
      summary: "The request did not arrive in time",
      detail: "Cannot read the request: it did not arrive in time",
    },
  },
  "unsupported-media-type": {
    "unsupported-media-type": {
      summary: "A body that is not JSON",
      detail: "Cannot read body: content type text/plain is not application/json",
    },
  },
};

/** The examples of a response carrying these problem slugs: each one a whole problem document. */
export function problemExamples(publicUrl: string, slugs: readonly ProblemSlug[]): Examples {
  const examples: Examples = {};
  for (const slug of slugs) {
    const { status, title } = PROBLEM_TYPES[slug];
    for (const [name, { summary, detail, extensions = {} }] of Object.entries(PROBLEM_EXAMPLES[slug])) {
      examples[name] = {
        summary,
        value: { ...extensions, type: `${publicUrl}/errors/${slug}`, title, status, detail },
      };
    }
  }
  return examples;
}

/** POST /v1/address/bulk and its job read: every reserved address line, accepted, then completed. */
export function addressBulkExamples(publicUrl: string) {
  const poll = `${publicUrl}/v1/jobs/${EXAMPLE_JOB_ID}`;
  const inputs = RESERVED_ADDRESS_LINES.map((line) => ({ line }));
  const answers = inputs.map((input) => addressAnswer(input));
  const summary = Object.fromEntries(ADDRESS_VERDICTS.map((v) => [v, 0])) as Record<string, number>;
  for (const answer of answers) summary[answer.verdict]! += 1;
  const ended = {
    job_id: EXAMPLE_JOB_ID,
    kind: "address",
    status: "completed",
    total: answers.length,
    processed: answers.length,
    created_at: "2026-01-01T10:00:00.000Z",
    expires_at: "2026-01-03T10:00:00.000Z",
    summary,
  };
  return {
    request: {
      reserved: { summary: `Every reserved address (${TEST_KEY_NOTE})`, value: { addresses: inputs } },
      callback: {
        summary: "With a completion callback: a signed POST to callback_url when the job ends",
        value: { addresses: inputs, callback_url: "https://hooks.example.com/vrai" },
      },
    } satisfies Examples,
    csvRequest: `id;adresse\r\n${RESERVED_ADDRESS_LINES.map((line, i) => `${i + 1};${line}`).join("\r\n")}\r\n`,
    accepted: {
      reserved: {
        summary: "Accepted: poll the job",
        value: {
          job_id: EXAMPLE_JOB_ID,
          status: "completed",
          total: inputs.length,
          poll,
          expires_at: "2026-01-03T10:00:00.000Z",
          retention_note: "Submitted addresses and results are deleted 48 hours after submission.",
        },
      },
    } satisfies Examples,
    job: {
      summary: "An address job once completed",
      value: { ...ended, results: answers.map((answer, i) => ({ ...answer, row: i + 1 })) },
    },
    // Its completion callback: the job read without results, and where they are read.
    notice: { ...ended, poll: `https://vrai.example.com/v1/jobs/${EXAMPLE_JOB_ID}` },
    csv: csvLines([
      [...ADDRESS_INPUT_COLUMNS, ...ADDRESS_RESULT_COLUMNS],
      ...inputs.map((input, i) => [...addressInputCells(input), ...addressResultCells(answers[i]!)]),
    ]),
  };
}
