// GET /metrics: the process's instruments in Prometheus text format. Open when METRICS_TOKEN is unset; otherwise the
// caller must send it as a bearer token, compared in constant time (both sides hashed to equal lengths first, as
// API keys are compared by their SHA-256). It is no API call: no key, no rate bucket, no quota.
import { createHash, timingSafeEqual } from "node:crypto";
import { bearerToken } from "../../auth/api_key.ts";
import type { Metrics } from "../../metrics/metrics.ts";
import { HttpError } from "../errors.ts";
import { textResponse } from "../light.ts";

export const METRICS_WWW_AUTHENTICATE = 'Bearer realm="vrai-metrics"';

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

/** Whether `sent` is `token`, in time that does not depend on where they differ. */
export function sameToken(sent: string, token: string): boolean {
  return timingSafeEqual(digest(sent), digest(token));
}

export interface MetricsRouteOptions {
  metrics: Metrics;
  /** Read at call time; undefined: open. */
  token: () => string | undefined;
}

export function metricsRoute(options: MetricsRouteOptions) {
  const { metrics, token } = options;
  return async (request: Request): Promise<Response> => {
    const expected = token();
    if (expected !== undefined) {
      const sent = bearerToken(request.headers.get("authorization"));
      if (sent === undefined) {
        throw new HttpError(
          "invalid-metrics-token",
          "Cannot read metrics: send Authorization: Bearer <METRICS_TOKEN>",
          {
            headers: { "www-authenticate": METRICS_WWW_AUTHENTICATE },
          },
        );
      }
      if (!sameToken(sent, expected)) {
        throw new HttpError("invalid-metrics-token", "Cannot read metrics: the token is not METRICS_TOKEN", {
          headers: { "www-authenticate": `${METRICS_WWW_AUTHENTICATE}, error="invalid_token"` },
        });
      }
    }
    return textResponse(await metrics.scrape(), 200, { "content-type": metrics.contentType });
  };
}
