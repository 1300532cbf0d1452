// Reads a JSON body at the edge: content type (415), size cap, JSON syntax and schema (400). Past this point, code
// trusts the types it receives.
import * as v from "valibot";
import { HttpError, type ProblemSlug } from "./errors.ts";
import { requestBytes } from "./light.ts";

export const SINGLE_BODY_LIMIT = 64 * 1024;
export const BULK_BODY_LIMIT = 2 * 1024 * 1024;

export function assertJsonContentType(request: Request): void {
  const type = request.headers.get("content-type") ?? "";
  const mediaType = type.split(";", 1)[0].trim().toLowerCase();
  if (mediaType !== "application/json") {
    throw new HttpError(
      "unsupported-media-type",
      type ? `Cannot read body: content type ${mediaType} is not application/json` : "Cannot read body: Content-Type must be application/json",
    );
  }
}

export interface ReadJsonOptions {
  limit: number;
  /** The problem an oversized body gets: invalid-request on single calls, batch-too-large on bulk. */
  oversized: ProblemSlug;
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

export async function readJson<S extends v.GenericSchema>(request: Request, schema: S, options: ReadJsonOptions): Promise<v.InferOutput<S>> {
  const { limit, oversized } = options;
  const bytes = await requestBytes(request);
  if (bytes.byteLength > limit) {
    throw new HttpError(oversized, `Cannot read body: it exceeds ${limit} bytes`, oversized === "batch-too-large" ? { extensions: { limit_bytes: limit } } : {});
  }
  let data: unknown;
  try {
    data = JSON.parse(UTF8.decode(bytes));
  } catch (error) {
    throw new HttpError("invalid-request", `Cannot read body: malformed JSON (${(error as Error).message})`);
  }
  const parsed = v.safeParse(schema, data);
  if (!parsed.success) {
    const errors = parsed.issues.map((issue) => ({
      member: issue.path?.map((p) => String(p.key)).join(".") || "(body)",
      message: issue.message,
    }));
    const detail = errors.slice(0, 5).map((e) => `${e.member}: ${e.message}`).join("; ");
    throw new HttpError("invalid-request", `Cannot validate body: ${detail}`, { extensions: { errors: errors.slice(0, 50) } });
  }
  return parsed.output;
}
