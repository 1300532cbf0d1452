// The application is a function from Request to Response. Every failure leaves here as a problem document; anything
// that is not an HttpError is logged and answered 500 (no stack trace) or 503 when the database is unreachable.
import type { Services } from "../services.ts";
import { isDatabaseUnavailable } from "../store/unavailable.ts";
import { HttpError, PROBLEM_TYPES, type ProblemSlug } from "./errors.ts";
import { buildOpenApi } from "./openapi.ts";
import { problem } from "./problem.ts";
import { pathnameOf, textResponse } from "./light.ts";
import { createRouter, type Route } from "./router.ts";
import { errorPage } from "./routes/error_pages.ts";
import { healthz, readyzRoute } from "./routes/health.ts";
import { homeRoute } from "./routes/home.ts";
import { readJobRoute } from "./routes/read_job.ts";
import { submitBulkRoute } from "./routes/submit_bulk.ts";
import { verifyAddressRoute } from "./routes/verify_address.ts";
import { verifyEmailRoute } from "./routes/verify_email.ts";
import { verifySignupRoute } from "./routes/verify_signup.ts";

/** Logged (never sent: the connection is gone) when the client hangs up before its answer. */
const CLIENT_CLOSED_REQUEST = 499;

export interface App {
  fetch(request: Request): Promise<Response>;
  /**
   * The problem document for a request refused before it could reach a route (by the HTTP parser, or for its request
   * target or Host header), logged like any other answer.
   */
  refuse(slug: ProblemSlug, detail: string, log: { method?: string; code?: string }): Response;
}

export function createApp(services: Services): App {
  const { config, log } = services;
  // Read at call time: a server on port 0 learns its public URL only once it listens.
  const errorsBase = () => `${config.publicUrl}/errors`;
  let openapi: string | undefined;
  const routes: Route[] = [
    { method: "POST", pattern: "/v1/email", handler: verifyEmailRoute(services) },
    { method: "POST", pattern: "/v1/address", handler: verifyAddressRoute(services) },
    { method: "POST", pattern: "/v1/signup", handler: verifySignupRoute(services) },
    { method: "POST", pattern: "/v1/email/bulk", handler: submitBulkRoute(services) },
    { method: "GET", pattern: "/v1/jobs/:id", handler: readJobRoute(services) },
    {
      method: "GET",
      pattern: "/v1/openapi.json",
      handler: () =>
        new Response((openapi ??= JSON.stringify(buildOpenApi(config.publicUrl))), {
          headers: { "content-type": "application/json" },
        }),
    },
    { method: "GET", pattern: "/errors/:slug", handler: errorPage },
    { method: "GET", pattern: "/", handler: homeRoute({ publicUrl: () => config.publicUrl, describe: buildOpenApi }) },
    { method: "GET", pattern: "/healthz", handler: healthz },
    { method: "GET", pattern: "/readyz", handler: readyzRoute(services) },
  ];
  const route = createRouter(routes);

  function toProblem(error: unknown): Response {
    if (error instanceof HttpError) {
      return problem(error.slug, error.detail, {
        errorsBase: errorsBase(),
        extensions: error.extensions,
        headers: error.headers,
      });
    }
    const headers = (error as { responseHeaders?: Record<string, string> })?.responseHeaders ?? {};
    if (isDatabaseUnavailable(error)) {
      log.warn("database unavailable", { code: (error as { code: string }).code });
      return problem("service-unavailable", "Cannot serve the call: the database is unreachable; retry later", {
        errorsBase: errorsBase(),
        headers: { ...headers, "retry-after": "5" },
      });
    }
    log.error("internal error", { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
    return problem("internal-error", "The service failed unexpectedly; the fault is logged", {
      errorsBase: errorsBase(),
      headers,
    });
  }

  return {
    refuse(slug, detail, { method = "(unread)", code }) {
      log.info("request refused", { method, route: "(none)", status: PROBLEM_TYPES[slug].status, code });
      return problem(slug, detail, { errorsBase: errorsBase(), headers: { connection: "close" } });
    },
    async fetch(request) {
      const started = performance.now();
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
          log.info("client closed request", {
            method: request.method,
            route: pattern,
            status: CLIENT_CLOSED_REQUEST,
            ms,
          });
          return textResponse("", CLIENT_CLOSED_REQUEST, {});
        }
        response = toProblem(error);
      }
      // Paths are logged as their route pattern: a job id is fine, but nothing the caller typed is echoed.
      log.info("request", {
        method: request.method,
        route: pattern,
        status: response.status,
        ms: Math.round(performance.now() - started),
      });
      return response;
    },
  };
}
