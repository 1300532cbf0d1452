// GET /: where to start, without a key. A short HTML page for a browser (Accept prefers text/html), else a small JSON
// document: the OpenAPI description, the endpoints (read from it, so the list cannot drift) and the error pages.
import { PROBLEM_TYPES } from "../errors.ts";
import { json } from "../problem.ts";

interface Operation {
  operationId?: string;
  summary?: string;
  /** "operations" for what serves operators, not API clients (/metrics): named beside health, not as an endpoint. */
  "x-vrai-extension"?: string;
}

/** The part of the OpenAPI document this page reads. */
export interface DescribedApi {
  info: { title: string; description: string };
  paths: Record<string, Record<string, Operation>>;
}

export interface HomeOptions {
  /** Read at call time: a server on port 0 learns its public URL only once it listens. */
  publicUrl: () => string;
  /** The OpenAPI document for a public URL. */
  describe: (publicUrl: string) => DescribedApi;
}

interface Endpoint {
  method: string;
  path: string;
  summary: string;
  operation_id: string | undefined;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);
}

/** The quality an Accept header gives a media type: its most specific matching range wins (RFC 9110 §12.5.1). */
function qualityOf(accept: string, mediaType: string): number {
  const [type] = mediaType.split("/");
  let best = { specificity: -1, q: 0 };
  for (const item of accept.split(",")) {
    const [range = "", ...params] = item.split(";").map((part) => part.trim().toLowerCase());
    const specificity = range === mediaType ? 2 : range === `${type}/*` ? 1 : range === "*/*" ? 0 : -1;
    if (specificity <= best.specificity) continue;
    const qParam = params.find((p) => p.startsWith("q="));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    best = { specificity, q: Number.isFinite(q) ? q : 0 };
  }
  return best.q;
}

/** True when the client prefers HTML to JSON: browsers do; curl, fetch and no Accept at all get JSON. */
export function prefersHtml(accept: string | null): boolean {
  if (accept === null) return false;
  return qualityOf(accept, "text/html") > qualityOf(accept, "application/json");
}

function homeDocument(publicUrl: string, api: DescribedApi) {
  const endpoints: Endpoint[] = [];
  for (const [path, operations] of Object.entries(api.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      if (operation["x-vrai-extension"] === "operations") continue;
      endpoints.push({
        method: method.toUpperCase(),
        path,
        summary: operation.summary ?? "",
        operation_id: operation.operationId,
      });
    }
  }
  return {
    name: api.info.title,
    description: api.info.description,
    openapi: `${publicUrl}/v1/openapi.json`,
    authentication: "Authorization: Bearer vrai_live_<secret> (or vrai_test_<secret> for the reserved test inputs)",
    endpoints,
    errors: Object.entries(PROBLEM_TYPES).map(([slug, { status, title }]) => ({
      slug,
      status,
      title,
      url: `${publicUrl}/errors/${slug}`,
    })),
    health: { live: `${publicUrl}/healthz`, ready: `${publicUrl}/readyz`, metrics: `${publicUrl}/metrics` },
  };
}

function homePage(home: ReturnType<typeof homeDocument>): string {
  const endpoints = home.endpoints
    .map((e) => `<li><code>${escapeHtml(e.method)} ${escapeHtml(e.path)}</code>: ${escapeHtml(e.summary)}</li>`)
    .join("\n");
  const errors = home.errors
    .map(
      (e) =>
        `<li><a href="/errors/${escapeHtml(e.slug)}">${escapeHtml(e.slug)}</a> (${e.status}): ${escapeHtml(e.title)}</li>`,
    )
    .join("\n");
  return `<!doctype html><html lang="en"><meta charset="utf-8"><title>${escapeHtml(home.name)}</title>
<h1>${escapeHtml(home.name)}</h1>
<p>${escapeHtml(home.description)}</p>
<p>The API is described in OpenAPI 3.1: <a href="/v1/openapi.json">/v1/openapi.json</a>.
Every call needs <code>${escapeHtml(home.authentication)}</code>.</p>
<h2>Endpoints</h2>
<ul>
${endpoints}
</ul>
<h2>Errors</h2>
<p>Every failure is an RFC 9457 problem document; its <code>type</code> links one of these pages.</p>
<ul>
${errors}
</ul>
<p>Health: <a href="/healthz">/healthz</a>, <a href="/readyz">/readyz</a>; Prometheus metrics:
<a href="/metrics">/metrics</a>.</p>
</html>
`;
}

export function homeRoute(options: HomeOptions) {
  const { publicUrl, describe } = options;
  let cached: { url: string; home: ReturnType<typeof homeDocument> } | undefined;
  return (request: Request): Response => {
    const url = publicUrl();
    if (cached?.url !== url) cached = { url, home: homeDocument(url, describe(url)) };
    if (prefersHtml(request.headers.get("accept"))) {
      return new Response(homePage(cached.home), {
        headers: { "content-type": "text/html; charset=utf-8", vary: "accept" },
      });
    }
    return json(cached.home, { headers: { vary: "accept" } });
  };
}
