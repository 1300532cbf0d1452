// MX answers as the mx check needs them: hosts in preference order with their addresses, or the reason there are
// none. Shared across calls: an LRU cache with a bounded TTL for definite answers, and one in-flight lookup per
// domain so that a bulk chunk of 500 addresses at one domain makes one query.
import { LRUCache } from "lru-cache";
import { untilAborted } from "../async/deadline.ts";
import { DnsError, type DnsErrorCode } from "./errors.ts";
import type { MxResolver } from "./net/mx_resolver.ts";
import type { MxHost } from "./types.ts";

export type MxAnswer =
  | { ok: true; hosts: MxHost[] }
  | { ok: false; reason: "no_mx_record" | "domain_does_not_resolve" | "probe_timeout" | "probe_unavailable" };

export interface MxLookup {
  lookup(domain: string, options: { signal: AbortSignal }): Promise<MxAnswer>;
}

function transient(code: DnsErrorCode): MxAnswer | null {
  if (code === "DNS_TIMEOUT") return { ok: false, reason: "probe_timeout" };
  if (code === "DNS_SERVFAIL" || code === "DNS_REFUSED") return { ok: false, reason: "probe_unavailable" };
  return null;
}

function codeOf(error: unknown): DnsErrorCode {
  return error instanceof DnsError ? error.code : "DNS_SERVFAIL";
}

/** Uncached lookup: MX, then the addresses of every MX host (or of the domain when it has no MX). */
export async function lookupMx(
  resolver: MxResolver,
  domain: string,
  options: { signal: AbortSignal },
): Promise<MxAnswer> {
  const { signal } = options;
  let records: Awaited<ReturnType<MxResolver["resolveMx"]>>;
  try {
    records = await resolver.resolveMx(domain, { signal });
  } catch (error) {
    const code = codeOf(error);
    if (code === "DNS_NXDOMAIN") return { ok: false, reason: "domain_does_not_resolve" };
    if (code !== "DNS_NODATA") return transient(code)!;
    // The name exists but has no MX: an address record means a host without mail; nothing at all, a dead name.
    try {
      await resolver.resolveAddresses(domain, { signal });
      return { ok: false, reason: "no_mx_record" };
    } catch (inner) {
      return transient(codeOf(inner)) ?? { ok: false, reason: "domain_does_not_resolve" };
    }
  }
  // RFC 7505 null MX: a single record with the root as exchange.
  const real = records.filter((r) => r.exchange !== "" && r.exchange !== ".");
  if (real.length === 0) return { ok: false, reason: "no_mx_record" };
  real.sort((a, b) => a.priority - b.priority);
  const resolved = await Promise.allSettled(
    real.map((r) => resolver.resolveAddresses(r.exchange.replace(/\.$/, "").toLowerCase(), { signal })),
  );
  const hosts: MxHost[] = [];
  const codes: DnsErrorCode[] = [];
  resolved.forEach((result, i) => {
    if (result.status === "fulfilled") {
      hosts.push({
        exchange: real[i]!.exchange.replace(/\.$/, "").toLowerCase(),
        priority: real[i]!.priority,
        addresses: result.value,
      });
    } else codes.push(codeOf(result.reason));
  });
  if (hosts.length > 0) return { ok: true, hosts };
  // No MX host has an address: a timeout or server failure may hide one; otherwise there is no usable MX.
  if (codes.includes("DNS_TIMEOUT")) return { ok: false, reason: "probe_timeout" };
  if (codes.some((c) => c === "DNS_SERVFAIL" || c === "DNS_REFUSED")) return { ok: false, reason: "probe_unavailable" };
  return { ok: false, reason: "no_mx_record" };
}

// The shared lookup's own signal: never aborted, the resolver's time bound ends it.
const UNBOUND = new AbortController().signal;

export interface MxLookupOptions {
  /** How long a definite answer is reused. */
  ttlMs?: number;
  max?: number;
}

export function createMxLookup(resolver: MxResolver, options: MxLookupOptions = {}): MxLookup {
  const { ttlMs = 5 * 60_000, max = 10_000 } = options;
  if (ttlMs < 1 || max < 1) throw new RangeError("Cannot create MX lookup: ttlMs and max must be positive");
  const cache = new LRUCache<string, MxAnswer>({ max, ttl: ttlMs });
  const inflight = new Map<string, Promise<MxAnswer>>();
  return {
    async lookup(domain, { signal }) {
      const cached = cache.get(domain);
      if (cached !== undefined) return cached;
      let pending = inflight.get(domain);
      if (pending === undefined) {
        // A lookup shared by several callers must not end when the first of them gives up: it runs on the
        // resolver's own time bound, and each caller stops waiting on its own signal.
        pending = lookupMx(resolver, domain, { signal: UNBOUND })
          .then((answer) => {
            // Timeouts and server failures are not facts about the domain: they are not cached.
            if (answer.ok || answer.reason === "no_mx_record" || answer.reason === "domain_does_not_resolve") {
              cache.set(domain, answer);
            }
            return answer;
          })
          .finally(() => inflight.delete(domain));
        inflight.set(domain, pending);
      }
      const answer = await untilAborted(pending, signal);
      return answer === "aborted" ? { ok: false, reason: "probe_timeout" } : answer;
    },
  };
}
