// GET /: where to start, without a key. For a browser (Accept prefers text/html) the page for people (web/index.html,
// see page_assets.ts) unless PAGE=off; else a small JSON document: the service's version and indexed départements,
// the OpenAPI description, the endpoints (read from it, so the list cannot drift) and the error pages. The page reads
// that same document for what it shows about the service.
import { PROBLEM_TYPES } from "../errors.ts";
import { json } from "../problem.ts";
import type { PageAssets } from "./page_assets.ts";

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
  /** The running service: its version and the départements it answers addresses for now (read at each call). */
  about: () => { version: string; departements: readonly string[] };
  /** The page for browsers; undefined when it is turned off (PAGE=off): browsers get the JSON document too. */
  page: PageAssets | undefined;
}

interface Endpoint {
  method: string;
  path: string;
  summary: string;
  operation_id: string | undefined;
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

export function homeRoute(options: HomeOptions) {
  const { publicUrl, describe, about, page } = options;
  let cached: { url: string; home: ReturnType<typeof homeDocument> } | undefined;
  return (request: Request): Response => {
    if (page !== undefined && prefersHtml(request.headers.get("accept"))) {
      const response = page.page(request);
      response.headers.set("vary", "accept, accept-encoding");
      return response;
    }
    const url = publicUrl();
    if (cached?.url !== url) cached = { url, home: homeDocument(url, describe(url)) };
    const { version, departements } = about();
    const { name, description, ...rest } = cached.home;
    return json({ name, description, version, departements, ...rest }, { headers: { vary: "accept" } });
  };
}
