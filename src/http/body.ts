// Reads a JSON body at the edge: content type (415), size cap, JSON syntax and schema (400). Past this point, code
// trusts the types it receives.
import * as v from "valibot";
import { HttpError, type ProblemSlug } from "./errors.ts";
import { requestBytes, requestChunks } from "./light.ts";

export const SINGLE_BODY_LIMIT = 64 * 1024;
export const BULK_BODY_LIMIT = 2 * 1024 * 1024;
/**
 * A bulk address file: 100,000 rows (the default address_batch_max) of a long French address with a few columns of
 * the user's take 20 MB or so; 48 MiB leaves room for wide files. Read as it arrives (never held whole), its rows
 * counted against the plan's limit on the way.
 */
export const ADDRESS_BULK_BODY_LIMIT = 48 * 1024 * 1024;
export const ADDRESS_BULK_PATH = "/v1/address/bulk";

export const EMAIL_BULK_PATH = "/v1/email/bulk";

/** Bulk uploads: read by their route as they arrive, once the caller is admitted (serve.ts hands the stream over). */
export function isStreamedTarget(target: string): boolean {
  const path = target.split("?", 1)[0];
  return path === ADDRESS_BULK_PATH || path === EMAIL_BULK_PATH;
}

function mediaTypeOf(request: Request): string {
  return (request.headers.get("content-type") ?? "").split(";", 1)[0].trim().toLowerCase();
}

/** The media types a route reads: JSON, and those of its decoders (ReadJsonOptions.streamed), JSON first. */
export function acceptedMediaTypes(options: Pick<ReadJsonOptions, "streamed">): string[] {
  return ["application/json", ...Object.keys(options.streamed ?? {}).filter((t) => t !== "application/json")];
}

/** 415, naming every media type the route reads (the problem's `accepted` member lists them). */
function unsupported(request: Request, accepted: readonly string[]): HttpError {
  const mediaType = mediaTypeOf(request);
  const listed = accepted.length === 1 ? accepted[0] : `one of ${accepted.join(", ")}`;
  return new HttpError(
    "unsupported-media-type",
    request.headers.get("content-type")
      ? `Cannot read body: content type ${mediaType} is not ${listed}`
      : `Cannot read body: Content-Type must be ${listed}`,
    { extensions: { accepted: [...accepted] } },
  );
}

/** 415 unless the body is of a media type the route reads (JSON unless `accepted` says more). */
export function assertJsonContentType(request: Request, accepted: readonly string[] = ["application/json"]): void {
  if (!accepted.includes(mediaTypeOf(request))) throw unsupported(request, accepted);
}

/** A decoder of a body read as it arrives: its chunks (within the route's byte cap) and the request's headers. */
export type StreamedDecoder = (chunks: AsyncIterable<Uint8Array>, request: Request) => Promise<unknown>;

export interface ReadJsonOptions {
  limit: number;
  /** The problem an oversized body gets: invalid-request on single calls, batch-too-large on bulk. */
  oversized: ProblemSlug;
  /**
   * Media types this route reads as the body arrives (bulk uploads), JSON included when given: each decoder turns
   * the body into the object its schema validates, never holding its bytes whole.
   */
  streamed?: Readonly<Record<string, StreamedDecoder>>;
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

function tooLarge(limit: number, oversized: ProblemSlug): HttpError {
  return new HttpError(
    oversized,
    `Cannot read body: it exceeds ${limit} bytes`,
    oversized === "batch-too-large" ? { extensions: { limit_bytes: limit } } : {},
  );
}

/** The body's chunks, refused with `oversized` once more than `limit` bytes have come. */
async function* capped(request: Request, limit: number, oversized: ProblemSlug): AsyncGenerator<Uint8Array> {
  let size = 0;
  for await (const chunk of requestChunks(request)) {
    size += chunk.byteLength;
    if (size > limit) throw tooLarge(limit, oversized);
    yield chunk;
  }
}

export async function readJson<S extends v.GenericSchema>(
  request: Request,
  schema: S,
  options: ReadJsonOptions,
): Promise<v.InferOutput<S>> {
  const { limit, oversized, streamed = {} } = options;
  const mediaType = mediaTypeOf(request);
  const accepted = acceptedMediaTypes(options);
  if (!accepted.includes(mediaType)) throw unsupported(request, accepted);
  let data: unknown;
  if (Object.hasOwn(streamed, mediaType)) data = await streamed[mediaType]!(capped(request, limit, oversized), request);
  else {
    const bytes = await requestBytes(request);
    if (bytes.byteLength > limit) throw tooLarge(limit, oversized);
    try {
      data = JSON.parse(UTF8.decode(bytes));
    } catch (error) {
      throw new HttpError("invalid-request", `Cannot read body: malformed JSON (${(error as Error).message})`);
    }
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    const message = `the body must be a JSON object, got ${kindOf(data)}`;
    throw new HttpError("invalid-request", `Cannot validate body: ${message}`, {
      extensions: { errors: [{ member: "(body)", message }] },
    });
  }
  const parsed = v.safeParse(schema, data);
  if (!parsed.success) {
    throw invalidBody([...issueErrors(schema, parsed.issues), ...unknownMembers(schema as SchemaNode, data, "")]);
  }
  return parsed.output;
}

/** A validation failure as the caller reads it: the member as a path (`emails[3]`, `address.line`) and a phrase. */
export interface ValidationError {
  member: string;
  message: string;
}

/** The 400 of a body that does not validate: the first five failures in `detail`, up to 50 in `errors`. */
export function invalidBody(errors: readonly ValidationError[]): HttpError {
  const detail = errors
    .slice(0, 5)
    .map((e) => e.message)
    .join("; ");
  return new HttpError("invalid-request", `Cannot validate body: ${detail}`, {
    extensions: { errors: errors.slice(0, 50) },
  });
}

/**
 * Valibot's issues in the caller's words. `schema` is the body's (it tells the length a string may have); `prefix`
 * is the path of the value the issues are about inside the body, when it was validated on its own (a list item).
 */
export function issueErrors(
  schema: v.GenericSchema,
  issues: readonly v.BaseIssue<unknown>[],
  prefix: ReadonlyArray<{ type: "object" | "array"; key: string | number }> = [],
): ValidationError[] {
  const node = schema as unknown as SchemaNode;
  return issues.map((issue) => {
    const path = (
      prefix.length === 0 ? issue.path : [...prefix, ...(issue.path ?? [])]
    ) as v.BaseIssue<unknown>["path"];
    const placed = prefix.length === 0 ? issue : { ...issue, path };
    return { member: memberOf(path), message: plainMessage(placed, node) };
  });
}

/** The member path of an issue, `emails[3]` or `address.line`; `(body)` for the body itself. */
function memberOf(path: v.BaseIssue<unknown>["path"]): string {
  let member = "";
  for (const item of path ?? []) {
    if (item.type === "array") member += `[${String(item.key)}]`;
    else member += member === "" ? String(item.key) : `.${String(item.key)}`;
  }
  return member || "(body)";
}

/** A JSON value's kind, with its article: "a number", "an array", "null". */
function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  return typeof value === "undefined" ? "nothing" : `a ${typeof value === "bigint" ? "number" : typeof value}`;
}

const TYPE_PHRASES: Readonly<Record<string, string>> = {
  string: "a string",
  number: "a number",
  boolean: "true or false",
  array: "an array",
  object: "an object",
  loose_object: "an object",
  strict_object: "an object",
  literal: "the value",
};

/** The length a string must not exceed, when its schema says so: "a string of at most 320 characters". */
function stringPhrase(requirement: number | undefined): string {
  return requirement === undefined ? "a string" : `a string of at most ${requirement} characters`;
}

/**
 * Valibot's issue in the caller's words, naming the member: `email is required`, `emails[3] must be a string, got a
 * number`, `email must be a string of at most 320 characters (it has 331)`, `unexpected member "mail"`.
 */
function plainMessage(issue: v.BaseIssue<unknown>, schema: SchemaNode): string {
  const member = memberOf(issue.path);
  const input = issue.input;
  switch (issue.type) {
    case "strict_object":
    case "object":
    case "loose_object":
      if (issue.expected === "never") return `unexpected member "${member}"`;
      if (input === undefined && issue.path !== undefined && issue.expected !== "Object")
        return `${member} is required`;
      return `${member} must be an object, got ${kindOf(input)}`;
    case "max_length": {
      const requirement = (issue as { requirement?: number }).requirement;
      if (typeof input === "string") return `${member} must be ${stringPhrase(requirement)} (it has ${input.length})`;
      return `${member} must hold at most ${requirement} items, got ${Array.isArray(input) ? input.length : "more"}`;
    }
    case "min_length": {
      const requirement = (issue as { requirement?: number }).requirement;
      if (requirement === 1) return `${member} must not be empty`;
      return `${member} must hold at least ${requirement} ${typeof input === "string" ? "characters" : "items"}`;
    }
    case "picklist":
    case "enum":
      return `${member} must be one of ${String(issue.expected)
        .replace(/^\((.*)\)$/, "$1")
        .replaceAll(" | ", ", ")}, got ${issue.received}`;
    case "literal":
      return `${member} must be ${issue.expected}, got ${issue.received}`;
    case "uuid":
      return `${member} must be a uuid`;
    case "url":
      return `${member} must be a URL`;
    case "check":
      // Our own checks (schemas.ts) are written as the rest of a sentence about the member.
      return `${member} ${issue.message}`;
    case "string":
      return `${member} must be ${stringPhrase(maxLengthAt(schema, issue.path))}, got ${kindOf(input)}`;
    default:
      if (issue.kind === "schema" && Object.hasOwn(TYPE_PHRASES, issue.type)) {
        return `${member} must be ${TYPE_PHRASES[issue.type]}, got ${kindOf(input)}`;
      }
      return `${member} is not valid (${issue.message})`;
  }
}

type SchemaNode = {
  type?: string;
  entries?: Record<string, SchemaNode>;
  wrapped?: SchemaNode;
  item?: SchemaNode;
  pipe?: ReadonlyArray<{ type?: string; requirement?: unknown }>;
};

/** The maximum length the schema puts on the member at `path`, if any: told with the type a string must have. */
function maxLengthAt(schema: SchemaNode, path: v.BaseIssue<unknown>["path"]): number | undefined {
  let node: SchemaNode | undefined = schema;
  for (const item of path ?? []) {
    while (node?.wrapped) node = node.wrapped;
    node = item.type === "array" ? node?.item : node?.entries?.[String(item.key)];
  }
  while (node?.wrapped) node = node.wrapped;
  const requirement = node?.pipe?.find((action) => action.type === "max_length")?.requirement;
  return typeof requirement === "number" ? requirement : undefined;
}

/**
 * Members of the body the schema does not know, anywhere inside it: dropped from a valid request, but named on a
 * refused one, where a misspelt member (`mail` for `email`) is the likely cause of `email is required`.
 */
export function unknownMembers(schema: SchemaNode | v.GenericSchema, data: unknown, path: string): ValidationError[] {
  let node = schema as SchemaNode;
  while (node.wrapped) node = node.wrapped;
  if (node.entries && data !== null && typeof data === "object" && !Array.isArray(data)) {
    const found: ValidationError[] = [];
    for (const [key, value] of Object.entries(data)) {
      // The caller's own key, echoed: cut short, so that a hostile body cannot make the answer large.
      const name = key.length > 64 ? `${key.slice(0, 64)}…` : key;
      const member = path === "" ? name : `${path}.${name}`;
      if (!Object.hasOwn(node.entries, key)) {
        // A strict object reports its own unknown members as issues.
        if (node.type !== "strict_object") found.push({ member, message: `unexpected member "${member}"` });
      } else found.push(...unknownMembers(node.entries[key], value, member));
    }
    return found.slice(0, 50);
  }
  if (node.item && Array.isArray(data)) {
    return data.flatMap((value, i) => unknownMembers(node.item!, value, `${path}[${i}]`));
  }
  return [];
}
