// Failed authentications per client address, so that guessing keys is slow and cheap to refuse: a token bucket per
// address of AUTH_FAILURES_PER_MINUTE tokens, refilled over a minute, one token per 401. An address whose bucket is
// empty is refused 429 before any key lookup (http/guard.ts), so a flood of guessed keys costs a map lookup each, no
// hash and no query. IPv6 clients are counted per /64, the block one host is usually given. Memory is bounded: the
// least recently seen addresses are forgotten first (a forgotten address starts again with a full bucket).
import ipaddr from "ipaddr.js";
import { LRUCache } from "lru-cache";
import { refill, type BucketSpec } from "./rate_limiter.ts";

export interface FailedAuthLimiter {
  /** Seconds until `address` may present a key again; 0 when it may now. */
  retryAfter(address: string): number;
  /** Counts one failed authentication (unknown, revoked or malformed key) from `address`. */
  fail(address: string): void;
}

export interface FailedAuthLimiterOptions {
  /** Failures allowed per address and minute; 0 turns the limit off. */
  perMinute: number;
  /** Addresses remembered at most. */
  max?: number;
  now?: () => number;
}

/** The bucket an address draws from: itself for IPv4 (IPv4-mapped IPv6 included), its /64 for IPv6. */
export function clientBucket(address: string): string {
  if (!address.includes(":")) return address;
  try {
    const parsed = ipaddr.parse(address.replace(/%.*$/, ""));
    if (parsed.kind() === "ipv6") {
      const v6 = parsed as ipaddr.IPv6;
      if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
      return `${v6.parts
        .slice(0, 4)
        .map((part) => part.toString(16))
        .join(":")}::/64`;
    }
    return parsed.toString();
  } catch {
    return address;
  }
}

export function createFailedAuthLimiter(options: FailedAuthLimiterOptions): FailedAuthLimiter {
  const { perMinute, max = 10_000, now = Date.now } = options;
  if (!Number.isInteger(perMinute) || perMinute < 0) {
    throw new RangeError(`Cannot limit failed authentications: perMinute must be an integer >= 0, got ${perMinute}`);
  }
  if (!Number.isInteger(max) || max < 1) {
    throw new RangeError(`Cannot limit failed authentications: max must be an integer >= 1, got ${max}`);
  }
  if (perMinute === 0) return { retryAfter: () => 0, fail() {} };
  const spec: BucketSpec = { per_minute: perMinute, burst: 0 };
  const buckets = new LRUCache<string, { tokens: number; at: number }>({ max });
  return {
    retryAfter(address) {
      const state = buckets.get(clientBucket(address));
      if (!state) return 0;
      const tokens = refill(state.tokens, state.at, now(), spec);
      return tokens >= 1 ? 0 : Math.max(1, Math.ceil(((1 - tokens) * 60) / perMinute));
    },
    fail(address) {
      const key = clientBucket(address);
      const at = now();
      const state = buckets.get(key);
      const tokens = state ? refill(state.tokens, state.at, at, spec) : perMinute;
      buckets.set(key, { tokens: Math.max(0, tokens - 1), at });
    },
  };
}
