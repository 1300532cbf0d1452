// GET /errors/<slug>: the human-readable page behind every problem `type` URI.
import { PROBLEM_TYPES, HttpError, type ProblemSlug } from "../errors.ts";
import { decodeSegment } from "../router.ts";

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);
}

export function errorPage(_request: Request, params: Record<string, string>): Response {
  const slug = decodeSegment(params.slug);
  if (slug === undefined || !Object.hasOwn(PROBLEM_TYPES, slug)) {
    throw new HttpError("not-found", `Cannot find error type ${params.slug}`);
  }
  const { status, title, explanation } = PROBLEM_TYPES[slug as ProblemSlug];
  const html = `<!doctype html><html lang="en"><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<h1>${escapeHtml(title)}</h1><p>HTTP status ${status}, problem type <code>${escapeHtml(slug)}</code>.</p><p>${escapeHtml(explanation)}</p>
<p><a href="/">Every error type and endpoint</a>; the API is described at <a href="/v1/openapi.json">/v1/openapi.json</a>.</p></html>\n`;
  return new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } });
}
