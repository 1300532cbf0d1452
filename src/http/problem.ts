// RFC 9457 problem documents: the body of every failure.
import { PROBLEM_TYPES, type ProblemSlug } from "./errors.ts";
import { textResponse } from "./light.ts";

export interface ProblemOptions {
  errorsBase: string;
  extensions?: Record<string, unknown>;
  headers?: Record<string, string>;
}

export function problem(slug: ProblemSlug, detail: string, options: ProblemOptions): Response {
  const { errorsBase, extensions = {}, headers = {} } = options;
  const { status, title } = PROBLEM_TYPES[slug];
  const body = { ...extensions, type: `${errorsBase}/${slug}`, title, status, detail };
  return textResponse(JSON.stringify(body), status, {
    ...lowerCase(headers),
    "content-type": "application/problem+json",
  });
}

export function json(data: unknown, init: { status?: number; headers?: Record<string, string> } = {}): Response {
  return textResponse(JSON.stringify(data), init.status ?? 200, {
    ...lowerCase(init.headers),
    "content-type": "application/json",
  });
}

function lowerCase(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers) for (const name in headers) out[name.toLowerCase()] = headers[name];
  return out;
}
