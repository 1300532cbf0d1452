// Chooses, per mail exchanger, the way out: direct or through one of several SOCKS5 proxies (SMTP_PROXY_RULES). The
// choice is per MX host, never per recipient: connections are pooled and reused per MX host, so one connection must
// go one way for every domain it serves. A `domain` rule therefore means "the MX hosts of this domain" (looked up
// through the engine's resolver, cached); an `mx_suffix` rule matches the MX host name itself.
import { readFileSync } from "node:fs";
import { isTimeoutReason, untilAborted } from "../../async/deadline.ts";
import type { Logger } from "../../log.ts";
import { SmtpError } from "../errors.ts";
import type { MxResolver } from "../net/mx_resolver.ts";
import type { SmtpDialer, SmtpTarget } from "./dialer.ts";

/** "direct", "proxy" (SMTP_PROXY) or a socks5:// URL. */
export type Via = string;

export interface ProxyRule {
  /** Matches an MX host equal to this name or ending with it at a label boundary (".google.com" or "google.com"). */
  mxSuffix?: string;
  /** Matches the MX hosts this domain's MX records name (and the domain itself, its implicit MX). */
  domain?: string;
  via: Via;
}

export interface ProxyRules {
  rules: ProxyRule[];
  /** Where everything else goes; "proxy" when SMTP_PROXY is set, "direct" otherwise, unless the file says. */
  fallback?: Via;
}

function lowerName(name: string): string {
  return name.trim().toLowerCase().replace(/\.$/, "");
}

/**
 * Reads a rules file:
 * `{"rules": [{"mx_suffix": ".google.com", "via": "socks5://u:p@10.0.0.2:1080"}, {"domain": "example.org",
 * "via": "direct"}], "default": "proxy"}`. The first matching rule wins. Throws RangeError naming what is wrong.
 */
export function parseProxyRules(json: unknown, source = "SMTP_PROXY_RULES"): ProxyRules {
  const fail = (what: string) => new RangeError(`Cannot read ${source}: ${what}`);
  if (typeof json !== "object" || json === null || Array.isArray(json)) throw fail("expected a JSON object");
  const { rules = [], default: fallback, ...rest } = json as Record<string, unknown>;
  const unknown = Object.keys(rest).filter((k) => !k.startsWith("_"));
  if (unknown.length > 0) throw fail(`unknown member ${unknown[0]}`);
  if (!Array.isArray(rules)) throw fail("rules must be an array");
  const via = (value: unknown, where: string): Via => {
    if (typeof value !== "string" || value === "")
      throw fail(`${where}.via must be "direct", "proxy" or a socks5:// URL`);
    if (value !== "direct" && value !== "proxy" && !value.startsWith("socks5://")) {
      throw fail(`${where}.via must be "direct", "proxy" or a socks5:// URL`);
    }
    return value;
  };
  const parsed = rules.map((rule: unknown, i): ProxyRule => {
    const where = `rules[${i}]`;
    if (typeof rule !== "object" || rule === null) throw fail(`${where} must be an object`);
    const { mx_suffix: mxSuffix, domain, via: to, ...others } = rule as Record<string, unknown>;
    const extra = Object.keys(others).filter((k) => !k.startsWith("_"));
    if (extra.length > 0) throw fail(`${where} has an unknown member ${extra[0]}`);
    if ((mxSuffix === undefined) === (domain === undefined))
      throw fail(`${where} needs exactly one of mx_suffix, domain`);
    const name = mxSuffix ?? domain;
    if (typeof name !== "string" || lowerName(name).replace(/^\./, "") === "") throw fail(`${where} has an empty name`);
    return mxSuffix !== undefined
      ? { mxSuffix: lowerName(name).replace(/^\./, ""), via: via(to, where) }
      : { domain: lowerName(name), via: via(to, where) };
  });
  return { rules: parsed, ...(fallback === undefined ? {} : { fallback: via(fallback, "default") }) };
}

/** Reads and parses the SMTP_PROXY_RULES file. */
export function loadProxyRules(path: string): ProxyRules {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new RangeError(`Cannot read SMTP_PROXY_RULES: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new RangeError(`Cannot read SMTP_PROXY_RULES: ${path} is not JSON: ${(error as Error).message}`);
  }
  return parseProxyRules(json, `SMTP_PROXY_RULES ${path}`);
}

export interface RoutingDialerOptions {
  /** The dialer of each `via` value used by the rules and the fallback ("direct" included). */
  dialers: ReadonlyMap<Via, SmtpDialer>;
  rules: ProxyRules;
  /** Where everything unmatched goes when the rules do not say. */
  fallback: Via;
  /** Looks up the MX hosts of `domain` rules. */
  resolver: MxResolver;
  log: Logger;
  /** How long the MX hosts of a `domain` rule are kept (default 5 min; a failed lookup is retried after 1 min). */
  ttlMs?: number;
}

export interface RoutingDialer extends SmtpDialer {
  /** The `via` value a target goes through (for logs, doctor and tests). */
  route(target: SmtpTarget, options: { signal: AbortSignal }): Promise<Via>;
}

const NEVER = new AbortController().signal;

function suffixMatches(host: string, suffix: string): boolean {
  return host === suffix || host.endsWith(`.${suffix}`);
}

export function createRoutingDialer(options: RoutingDialerOptions): RoutingDialer {
  const { dialers, rules, resolver, log, ttlMs = 5 * 60_000 } = options;
  const fallback = rules.fallback ?? options.fallback;
  for (const via of [fallback, ...rules.rules.map((r) => r.via)]) {
    if (!dialers.has(via)) throw new RangeError(`Cannot create routing dialer: no dialer for "${via}"`);
  }
  const hostsOf = new Map<string, { hosts: Promise<Set<string>>; until: number }>();

  function mxHosts(domain: string): Promise<Set<string>> {
    const now = performance.now();
    const cached = hostsOf.get(domain);
    if (cached !== undefined && cached.until > now) return cached.hosts;
    const entry = { until: now + ttlMs, hosts: Promise.resolve(new Set<string>()) };
    // The lookup serves every probe until it expires, so no one probe's signal ends it: the resolver's own budget
    // bounds it (each probe waits on it only until its own signal aborts).
    entry.hosts = resolver.resolveMx(domain, { signal: NEVER }).then(
      (records) => new Set([domain, ...records.map((r) => lowerName(r.exchange)).filter((h) => h !== "")]),
      (error) => {
        log.warn("smtp proxy rule lookup failed", { domain, error: (error as Error).message });
        entry.until = performance.now() + Math.min(ttlMs, 60_000);
        return new Set([domain]);
      },
    );
    hostsOf.set(domain, entry);
    return entry.hosts;
  }

  async function route(target: SmtpTarget, { signal }: { signal: AbortSignal }): Promise<Via> {
    const host = lowerName(target.host);
    for (const rule of rules.rules) {
      if (rule.mxSuffix !== undefined && suffixMatches(host, rule.mxSuffix)) return rule.via;
      if (rule.domain !== undefined) {
        const hosts = await untilAborted(mxHosts(rule.domain), signal);
        if (hosts === "aborted") throw signal.reason;
        if (hosts.has(host)) return rule.via;
      }
    }
    return fallback;
  }

  return {
    route,
    async dial(target, options) {
      let via: Via;
      try {
        via = await route(target, options);
      } catch (reason) {
        const timeout = isTimeoutReason(reason);
        throw new SmtpError(
          timeout ? "SMTP_TIMEOUT" : "SMTP_ABORTED",
          `Cannot connect to ${target.host}: ${timeout ? "timed out" : "aborted"} choosing its route`,
          { cause: reason },
        );
      }
      return dialers.get(via)!.dial(target, options);
    },
  };
}
