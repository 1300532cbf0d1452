// A linear table of { method, pattern, handler } records. Patterns are literal segments and `:name` parameters.
// Parameters are handed over as sent (percent-encoded): each route decodes its own with decodeSegment(), so that a
// malformed escape is that route's own "no such thing" (404 job-not-found after authentication for a job id).
import { HttpError } from "./errors.ts";

export type Handler = (request: Request, params: Record<string, string>) => Promise<Response> | Response;

export interface Route {
  method: string;
  pattern: string;
  handler: Handler;
}

interface CompiledRoute extends Route {
  segments: string[];
}

export interface Match {
  route: Route;
  params: Record<string, string>;
}

/** A percent-decoded path segment, or undefined when its escapes are malformed or not UTF-8 (`%`, `%E0%A4%A`, `%ff`). */
export function decodeSegment(segment: string): string | undefined {
  if (!segment.includes("%")) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

export function createRouter(routes: Route[]) {
  const compiled: CompiledRoute[] = routes.map((r) => ({ ...r, segments: r.pattern.split("/").slice(1) }));

  function matchPath(route: CompiledRoute, parts: string[]): Record<string, string> | undefined {
    if (route.segments.length !== parts.length) return undefined;
    const params: Record<string, string> = {};
    for (let i = 0; i < parts.length; i++) {
      const segment = route.segments[i];
      if (segment.startsWith(":")) {
        if (parts[i] === "") return undefined;
        params[segment.slice(1)] = parts[i];
      } else if (segment !== parts[i]) return undefined;
    }
    return params;
  }

  /** The route for this method and path; throws 404 not-found or 405 method-not-allowed (with Allow). */
  return function route(method: string, pathname: string): Match {
    const parts = pathname.split("/").slice(1);
    const allowed: string[] = [];
    for (const r of compiled) {
      const params = matchPath(r, parts);
      if (!params) continue;
      if (r.method === method || (method === "HEAD" && r.method === "GET")) return { route: r, params };
      allowed.push(r.method);
    }
    if (allowed.length > 0) {
      const allow = [...new Set(allowed.includes("GET") ? [...allowed, "HEAD"] : allowed)].join(", ");
      throw new HttpError("method-not-allowed", `Cannot ${method} ${pathname}: allowed methods are ${allow}`, {
        headers: { allow },
      });
    }
    throw new HttpError("not-found", `Cannot find ${pathname}: no such route`);
  };
}
