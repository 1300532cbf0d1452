// The engine's DNS boundary with a stopwatch: every MX and address query is timed by outcome. Queries answered from
// the MX cache never reach the resolver, so what is counted is what went to the network.
import { DnsError } from "../email/errors.ts";
import type { MxResolver } from "../email/net/mx_resolver.ts";
import type { Metrics } from "./metrics.ts";

function outcomeOf(error: unknown): string {
  return error instanceof DnsError ? error.code : "error";
}

async function timed<T>(metrics: Metrics, type: "mx" | "address", query: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    const answer = await query();
    metrics.dnsLookup(type, "ok", (performance.now() - started) / 1000);
    return answer;
  } catch (error) {
    metrics.dnsLookup(type, outcomeOf(error), (performance.now() - started) / 1000);
    throw error;
  }
}

/** `resolver`, each query recorded in `vrai_dns_lookup_duration_seconds`. */
export function timedResolver(resolver: MxResolver, metrics: Metrics): MxResolver {
  return {
    resolveMx: (domain, options) => timed(metrics, "mx", () => resolver.resolveMx(domain, options)),
    resolveAddresses: (host, options) => timed(metrics, "address", () => resolver.resolveAddresses(host, options)),
  };
}
