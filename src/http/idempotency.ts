// Idempotency-Key on POST /v1/email/bulk (draft-ietf-httpapi-idempotency-key-header): a client that sends the same
// submission again under the same key (a retry after an answer it never got, `npm run verify -- --resume` after a
// kill) gets the job it already has, answered again with Idempotent-Replayed: true, and is not charged twice. The key
// is the account's for as long as its job lives (48 hours). The draft's 409 and 422 are not among the statuses the
// spec lets bulk answer, so a key sent again with another list is a 400 request-failed, and two requests racing with
// one key both get the one job (route: submit_bulk.ts).
import { createHash } from "node:crypto";
import { HttpError } from "./errors.ts";

export const IDEMPOTENCY_KEY_HEADER = "idempotency-key";
export const REPLAYED_HEADER = "idempotent-replayed";
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

/** Printable ASCII: what a UUID, a ULID or any client's random token is made of. */
const KEY_CHARS = /^[\x20-\x7e]+$/;

/**
 * The request's Idempotency-Key, or undefined when it has none. The draft makes the value a Structured Field string
 * ("…", RFC 8941); a bare token, as most clients send it, is taken as it is.
 */
export function idempotencyKeyOf(request: Request): string | undefined {
  const raw = request.headers.get(IDEMPOTENCY_KEY_HEADER);
  if (raw === null) return undefined;
  const key = unquote(raw.trim());
  let problem: string | undefined;
  if (key === undefined) problem = "a quoted key must end with its quote";
  else if (key.trim() === "") problem = "it is empty";
  else if (key.length > IDEMPOTENCY_KEY_MAX_LENGTH)
    problem = `it is longer than ${IDEMPOTENCY_KEY_MAX_LENGTH} characters`;
  else if (!KEY_CHARS.test(key)) problem = "it holds characters outside printable ASCII";
  if (problem === undefined) return key;
  throw new HttpError("invalid-request", `Cannot read the Idempotency-Key header: ${problem}`, {
    extensions: { errors: [{ member: "Idempotency-Key", message: problem }] },
  });
}

/** An sf-string's content (backslash escapes undone); a value that is not quoted is its own content. */
function unquote(value: string): string | undefined {
  if (!value.startsWith('"')) return value;
  if (value.length < 2 || !value.endsWith('"')) return undefined;
  return value.slice(1, -1).replace(/\\(["\\])/g, "$1");
}

/**
 * What a submission asks for, as one hash: its addresses in order and, for CSV, its header and rows. The same file
 * sent again hashes the same whatever its separator or quoting; any change of an address or a cell does not.
 */
export function requestFingerprint(
  emails: readonly string[],
  table?: { columns: readonly string[]; rows: ReadonlyArray<readonly string[]> },
): string {
  return createHash("sha256")
    .update(JSON.stringify([emails, table?.columns ?? null, table?.rows ?? null]))
    .digest("hex");
}
