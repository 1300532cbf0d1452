// The application is a function from Request to Response. Every failure leaves here as a problem document; anything
// that is not an HttpError is logged and answered 500 (no stack trace) or 503 when the database is unreachable.
// Every request gets an id (request_scope.ts), echoed in X-Request-Id on every answer and carried by its log lines.
import type { Logger } from "../log.ts";
import type { Services } from "../services.ts";
import { isDatabaseUnavailable } from "../store/unavailable.ts";
import { DISK_FULL_RETRY_AFTER_S } from "../store/disk_full.ts";
import { HttpError, PROBLEM_TYPES, type ProblemSlug } from "./errors.ts";
import { buildOpenApi } from "./openapi.ts";
import { problem } from "./problem.ts";
import { LightResponse, pathnameOf, textResponse } from "./light.ts";
import { REQUEST_ID_HEADER, openScope, requestIdFrom, type RequestScope } from "./request_scope.ts";
import { createRouter, type Route } from "./router.ts";
import { errorPage } from "./routes/error_pages.ts";
import { healthz, readyzRoute } from "./routes/health.ts";
import { homeRoute } from "./routes/home.ts";
import { pageAssets } from "./routes/page_assets.ts";
import { serviceVersion } from "../version.ts";
import { metricsRoute } from "./routes/metrics.ts";
import { createMetrics } from "../metrics/metrics.ts";
import { readJobRoute } from "./routes/read_job.ts";
import { createJobWaits } from "./job_wait.ts";
import { readCallbackSecretRoute, rotateCallbackSecretRoute } from "./routes/callback_secret.ts";
import { submitBulkRoute } from "./routes/submit_bulk.ts";
import { submitAddressBulkRoute } from "./routes/submit_address_bulk.ts";
import { verifyAddressRoute } from "./routes/verify_address.ts";
import { verifyEmailRoute } from "./routes/verify_email.ts";
import { verifySignupRoute } from "./routes/verify_signup.ts";

/** Logged (never sent: the connection is gone) when the client hangs up before its answer. */
const CLIENT_CLOSED_REQUEST = 499;

/** Probed every few seconds by load balancers and scrapers: their request lines are written at debug only. */
const QUIET_ROUTES: ReadonlySet<string> = new Set(["/healthz", "/readyz", "/metrics"]);

/** Every answer names its request (X-Request-Id), problems and refusals included. */
function withRequestId(response: Response, id: string): Response {
  if (response instanceof LightResponse) {
    response.rawHeaders[REQUEST_ID_HEADER] = id;
    return response;
  }
  try {
    response.headers.set(REQUEST_ID_HEADER, id);
    return response;
  } catch {
    // Immutable headers (a fetched Response): the same answer with them copied.
    const headers = new Headers(response.headers);
    headers.set(REQUEST_ID_HEADER, id);
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  }
}

/** The request line's fields: who called (account and key prefix, never the key) once the key is known. */
function requestLine(scope: RequestScope, method: string, route: string, status: number, ms: number) {
  return { request_id: scope.id, method, route, status, ms, account: scope.account, key_prefix: scope.keyPrefix };
}

/** The départements answered now: the index's own list once it has one, else those configured and not missing. */
function indexedDepartements(services: Services): readonly string[] {
  const { address, config } = services;
  const index = typeof address.index === "object" ? address.index : undefined;
  if (index !== undefined) return index.departements;
  const missing = new Set(Array.isArray(address.missing) ? address.missing : []);
  return address.ready === true ? config.banDepartements.filter((d) => !missing.has(d)) : [];
}

export interface App {
  fetch(request: Request): Promise<Response>;
  /**
   * The problem document for a request refused before it could reach a route (by the HTTP parser, or for its request
   * target or Host header), logged like any other answer.
   */
  refuse(slug: ProblemSlug, detail: string, log: { method?: string; code?: string; requestId?: string }): Response;
  /**
   * The server stops accepting: requests held waiting for something (job reads under `Prefer: wait`) answer now
   * instead of holding the stop up, and no new ones are held.
   */
  release?(): void;
}

export function createApp(services: Services): App {
  const { config, log } = services;
  // One registry per app: tests build several apps in one process. Kept on services for the routes that count.
  const metrics = (services.metrics ??= createMetrics());
  // Read at call time: a server on port 0 learns its public URL only once it listens.
  const errorsBase = () => `${config.publicUrl}/errors`;
  let openapi: string | undefined;
  const page = config.page ? pageAssets() : undefined;
  // Both job read paths share one bound on the reads held for `Prefer: wait=N`.
  const jobWaits = createJobWaits();
  const routes: Route[] = [
    { method: "POST", pattern: "/v1/email", handler: verifyEmailRoute(services) },
    { method: "POST", pattern: "/v1/address", handler: verifyAddressRoute(services) },
    { method: "POST", pattern: "/v1/signup", handler: verifySignupRoute(services) },
    { method: "POST", pattern: "/v1/email/bulk", handler: submitBulkRoute(services) },
    { method: "POST", pattern: "/v1/address/bulk", handler: submitAddressBulkRoute(services) },
    { method: "GET", pattern: "/v1/jobs/:id", handler: readJobRoute(services, "negotiate", jobWaits) },
    { method: "GET", pattern: "/v1/jobs/:id/results.csv", handler: readJobRoute(services, "csv", jobWaits) },
    { method: "GET", pattern: "/v1/account/callback-secret", handler: readCallbackSecretRoute(services) },
    { method: "POST", pattern: "/v1/account/callback-secret", handler: rotateCallbackSecretRoute(services) },
    {
      method: "GET",
      pattern: "/v1/openapi.json",
      handler: () =>
        new Response((openapi ??= JSON.stringify(buildOpenApi(config.publicUrl))), {
          headers: { "content-type": "application/json" },
        }),
    },
    { method: "GET", pattern: "/errors/:slug", handler: errorPage },
    {
      method: "GET",
      pattern: "/",
      handler: homeRoute({
        publicUrl: () => config.publicUrl,
        describe: buildOpenApi,
        about: () => ({ version: serviceVersion(), departements: indexedDepartements(services) }),
        page,
      }),
    },
    ...(page === undefined
      ? []
      : [
          { method: "GET", pattern: "/assets/:name", handler: page.file },
          { method: "GET", pattern: "/assets/swagger-ui/:name", handler: page.renderer },
        ]),
    { method: "GET", pattern: "/healthz", handler: healthz },
    { method: "GET", pattern: "/readyz", handler: readyzRoute(services) },
    { method: "GET", pattern: "/metrics", handler: metricsRoute({ metrics, token: () => config.metricsToken }) },
  ];
  const route = createRouter(routes);

  function toProblem(error: unknown, log: Logger): Response {
    if (error instanceof HttpError) {
      return problem(error.slug, error.detail, {
        errorsBase: errorsBase(),
        extensions: error.extensions,
        headers: error.headers,
      });
    }
    const headers = (error as { responseHeaders?: Record<string, string> })?.responseHeaders ?? {};
    if (isDatabaseUnavailable(error)) {
      // A full disk is logged once per episode by the database (store/disk_full.ts), never once per call.
      const diskFull = services.db.noteFailure?.(error) ?? services.db.diskFull;
      if (diskFull === undefined) log.warn("database unavailable", { code: (error as { code: string }).code });
      const detail =
        diskFull === undefined
          ? "Cannot serve the call: the database is unreachable; retry later"
          : "Cannot serve the call: the database's disk is full; retry once space is freed";
      return problem("service-unavailable", detail, {
        errorsBase: errorsBase(),
        headers: { ...headers, "retry-after": String(diskFull === undefined ? 5 : DISK_FULL_RETRY_AFTER_S) },
      });
    }
    log.error("internal error", { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
    return problem("internal-error", "The service failed unexpectedly; the fault is logged", {
      errorsBase: errorsBase(),
      headers,
    });
  }

  return {
    release: () => jobWaits.release(),
    refuse(slug, detail, { method = "(unread)", code, requestId }) {
      // The client's X-Request-Id when its headers could be read and it is sane, else a new one.
      const id = requestIdFrom(requestId);
      const status = PROBLEM_TYPES[slug].status;
      log.info("request refused", { request_id: id, method, route: "(none)", status, code });
      metrics.httpRequest(method, "(none)", PROBLEM_TYPES[slug].status, 0);
      return problem(slug, detail, {
        errorsBase: errorsBase(),
        headers: { connection: "close", [REQUEST_ID_HEADER]: id },
      });
    },
    async fetch(request) {
      const started = performance.now();
      const scope = openScope(request, log);
      let pattern = "(none)";
      let response: Response;
      try {
        const match = route(request.method, pathnameOf(request.url));
        pattern = match.route.pattern;
        response = await match.route.handler(request, match.params);
      } catch (error) {
        if (request.signal.aborted) {
          // The client hung up and its call was cancelled: not a fault, and nobody is left to answer. 499 is the
          // status proxies (nginx) log for it.
          const ms = Math.round(performance.now() - started);
          log.info("client closed request", requestLine(scope, request.method, pattern, CLIENT_CLOSED_REQUEST, ms));
          metrics.httpRequest(request.method, pattern, CLIENT_CLOSED_REQUEST, ms / 1000);
          return textResponse("", CLIENT_CLOSED_REQUEST, {});
        }
        response = toProblem(error, scope.log);
      }
      metrics.httpRequest(request.method, pattern, response.status, (performance.now() - started) / 1000);
      // Paths are logged as their route pattern: a job id is fine, but nothing the caller typed is echoed.
      const line = requestLine(
        scope,
        request.method,
        pattern,
        response.status,
        Math.round(performance.now() - started),
      );
      if (QUIET_ROUTES.has(pattern)) log.debug("request", line);
      else log.info("request", line);
      return withRequestId(response, scope.id);
    },
  };
}
