// Reads a JSON body at the edge: content type (415), size cap, JSON syntax and schema (400). Past this point, code
// trusts the types it receives.
import * as v from "valibot";
import { HttpError, type ProblemSlug } from "./errors.ts";
import { requestBytes } from "./light.ts";

export const SINGLE_BODY_LIMIT = 64 * 1024;
export const BULK_BODY_LIMIT = 2 * 1024 * 1024;

function mediaTypeOf(request: Request): string {
  return (request.headers.get("content-type") ?? "").split(";", 1)[0].trim().toLowerCase();
}

/** Media types some route reads besides JSON, through its own decoder (ReadJsonOptions.decoders): bulk takes CSV. */
const DECODED_MEDIA_TYPES: ReadonlySet<string> = new Set(["text/csv"]);

function unsupported(request: Request): HttpError {
  const mediaType = mediaTypeOf(request);
  return new HttpError(
    "unsupported-media-type",
    request.headers.get("content-type")
      ? `Cannot read body: content type ${mediaType} is not application/json`
      : "Cannot read body: Content-Type must be application/json",
  );
}

/** 415 unless JSON, or a media type some route decodes (readJson then refuses it where no decoder is given). */
export function assertJsonContentType(request: Request): void {
  const mediaType = mediaTypeOf(request);
  if (mediaType !== "application/json" && !DECODED_MEDIA_TYPES.has(mediaType)) throw unsupported(request);
}

export interface ReadJsonOptions {
  limit: number;
  /** The problem an oversized body gets: invalid-request on single calls, batch-too-large on bulk. */
  oversized: ProblemSlug;
  /** Other media types this route reads: each decoder turns the body into the object its schema validates. */
  decoders?: Readonly<Record<string, (bytes: Uint8Array) => unknown>>;
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

export async function readJson<S extends v.GenericSchema>(
  request: Request,
  schema: S,
  options: ReadJsonOptions,
): Promise<v.InferOutput<S>> {
  const { limit, oversized, decoders = {} } = options;
  const mediaType = mediaTypeOf(request);
  const decode =
    mediaType === "application/json" ? undefined : Object.hasOwn(decoders, mediaType) ? decoders[mediaType] : null;
  if (decode === null) throw unsupported(request);
  const bytes = await requestBytes(request);
  if (bytes.byteLength > limit) {
    throw new HttpError(
      oversized,
      `Cannot read body: it exceeds ${limit} bytes`,
      oversized === "batch-too-large" ? { extensions: { limit_bytes: limit } } : {},
    );
  }
  let data: unknown;
  if (decode !== undefined) data = decode(bytes);
  else {
    try {
      data = JSON.parse(UTF8.decode(bytes));
    } catch (error) {
      throw new HttpError("invalid-request", `Cannot read body: malformed JSON (${(error as Error).message})`);
    }
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    const message = `must be a JSON object, got ${data === null ? "null" : Array.isArray(data) ? "an array" : typeof data}`;
    throw new HttpError("invalid-request", `Cannot validate body: ${message}`, {
      extensions: { errors: [{ member: "(body)", message }] },
    });
  }
  const parsed = v.safeParse(schema, data);
  if (!parsed.success) {
    const errors = parsed.issues.map((issue) => ({
      member: issue.path?.map((p) => String(p.key)).join(".") || "(body)",
      message: issue.message,
    }));
    const detail = errors
      .slice(0, 5)
      .map((e) => `${e.member}: ${e.message}`)
      .join("; ");
    throw new HttpError("invalid-request", `Cannot validate body: ${detail}`, {
      extensions: { errors: errors.slice(0, 50) },
    });
  }
  return parsed.output;
}
