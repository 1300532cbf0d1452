// RFC 9457 problem documents: the body of every failure.
import { PROBLEM_TYPES, type ProblemSlug } from "./errors.ts";
import { textResponse } from "./raw_body.ts";

export interface ProblemOptions {
  errorsBase: string;
  extensions?: Record<string, unknown>;
  headers?: Record<string, string>;
}

export function problem(slug: ProblemSlug, detail: string, options: ProblemOptions): Response {
  const { errorsBase, extensions = {}, headers = {} } = options;
  const { status, title } = PROBLEM_TYPES[slug];
  const body = { ...extensions, type: `${errorsBase}/${slug}`, title, status, detail };
  return textResponse(JSON.stringify(body), {
    status,
    headers: { ...headers, "content-type": "application/problem+json" },
  });
}

export function json(data: unknown, init: { status?: number; headers?: Record<string, string> } = {}): Response {
  return textResponse(JSON.stringify(data), {
    status: init.status ?? 200,
    headers: { ...init.headers, "content-type": "application/json" },
  });
}
