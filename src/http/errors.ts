// The closed vocabulary of problem types (spec "Errors" plus docs/contract.md §7), and the one error class that carries an
// HTTP answer. Code anywhere may throw HttpError; http/app.ts turns it into a problem document.

export interface ProblemType {
  status: number;
  title: string;
  /** What the slug means and what a client should do: served at GET /errors/<slug>. */
  explanation: string;
}

export const PROBLEM_TYPES = {
  "invalid-api-key": {
    status: 401,
    title: "Invalid API key",
    explanation:
      "The Authorization header is missing, is not of the form 'Bearer vrai_live_…' or 'Bearer vrai_test_…', or names no key. Send a key created with `npm run keys -- create`.",
  },
  "revoked-api-key": {
    status: 401,
    title: "Revoked API key",
    explanation: "The key was revoked. Create a new key for the account and stop using this one.",
  },
  "invalid-metrics-token": {
    status: 401,
    title: "Invalid metrics token",
    explanation:
      "GET /metrics is protected by METRICS_TOKEN on this server: send it as 'Authorization: Bearer <METRICS_TOKEN>'. API keys do not open it.",
  },
  "endpoint-not-allowed": {
    status: 403,
    title: "Endpoint not allowed for this key",
    explanation:
      "The key may only call some endpoints (email, address, signup; bulk and job reads need email). Use a key created with the endpoint in --endpoints.",
  },
  "invalid-request": {
    status: 400,
    title: "Invalid request",
    explanation:
      "The body is not valid JSON, is larger than 64 KiB, or does not match the endpoint's schema, or a header the endpoint reads (Idempotency-Key on bulk) is malformed, or a bulk job's callback_url cannot be called (not https, or a private or loopback address). The detail and the errors member name each failing member.",
  },
  "request-failed": {
    status: 400,
    title: "Request could not be served as sent",
    explanation:
      "The request is well formed but cannot be served as sent: see detail. A test key answers only the reserved test inputs (<local part>@vrai.test, the 00000 Testville addresses), and a live key answers everything but them: an input of the other kind, anywhere in the request or list, refuses the whole request, and `errors` names each such row (its JSON member, or `line N` of a CSV file, also given in `line` for the first). On bulk, an Idempotency-Key sent before with another list cannot name this one.",
  },
  "rate-limit-exceeded": {
    status: 429,
    title: "Rate limit exceeded",
    explanation:
      "The account's per-minute allowance is spent, or this client address sent too many invalid keys in the last minute (AUTH_FAILURES_PER_MINUTE). Wait the number of seconds in Retry-After, then retry; X-RateLimit-* headers, when present, show the account's allowance.",
  },
  "quota-exceeded": {
    status: 402,
    title: "Monthly quota exceeded",
    explanation:
      "The account's monthly allowance for this endpoint is spent until the first day of next month (X-Quota-Reset). This is not a backoff signal: retrying sooner will not help.",
  },
  "batch-too-large": {
    status: 413,
    title: "Batch too large",
    explanation:
      "The bulk request holds more addresses than the plan allows (member limit), or its body exceeds 2 MiB. Split it into several jobs.",
  },
  "job-not-found": {
    status: 404,
    title: "Job not found",
    explanation:
      "No job with this id is visible to this account: it never existed, expired 48 hours after submission, or belongs to another account.",
  },
  "service-unavailable": {
    status: 503,
    title: "Service unavailable",
    explanation:
      "A dependency (the database or the address index) is unreachable. Retry after the number of seconds in Retry-After.",
  },
  "internal-error": {
    status: 500,
    title: "Internal error",
    explanation: "The service failed unexpectedly. The fault is logged; retrying may help.",
  },
  "not-found": {
    status: 404,
    title: "Not found",
    explanation: "No resource lives at this path. GET /v1/openapi.json lists every route.",
  },
  "method-not-allowed": {
    status: 405,
    title: "Method not allowed",
    explanation: "The path exists but not with this method. The Allow header lists the methods it accepts.",
  },
  "request-timeout": {
    status: 408,
    title: "Request timeout",
    explanation:
      "The request's headers or body did not arrive in time (seconds, not minutes: see HTTP_HEADERS_TIMEOUT_MS and HTTP_REQUEST_TIMEOUT_MS). The connection is closed; send the request again, at once, on a new connection.",
  },
  "unsupported-media-type": {
    status: 415,
    title: "Unsupported media type",
    explanation:
      "Request bodies must be JSON, sent with Content-Type: application/json; the bulk endpoints also read a CSV file (text/csv) or a form with one CSV file part (multipart/form-data). The problem's accepted member lists the endpoint's types.",
  },
} as const satisfies Record<string, ProblemType>;

export type ProblemSlug = keyof typeof PROBLEM_TYPES;

export interface HttpErrorOptions {
  /** Extension members of the problem document (RFC 9457 §3.2), such as `limit` on 413. */
  extensions?: Record<string, unknown>;
  headers?: Record<string, string>;
  cause?: unknown;
}

export class HttpError extends Error {
  readonly status: number;
  readonly extensions: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    readonly slug: ProblemSlug,
    readonly detail: string,
    options: HttpErrorOptions = {},
  ) {
    super(detail, { cause: options.cause });
    this.name = "HttpError";
    this.status = PROBLEM_TYPES[slug].status;
    this.extensions = options.extensions ?? {};
    this.headers = options.headers ?? {};
  }
}
