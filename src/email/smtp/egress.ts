// The way SMTP probes leave the host, built from the configuration: direct (bound to SMTP_LOCAL_ADDRESS when set),
// through the SOCKS5 proxy of SMTP_PROXY, or chosen per MX host by the SMTP_PROXY_RULES file.
import type { Config } from "../../config.ts";
import type { Logger } from "../../log.ts";
import type { MxResolver } from "../net/mx_resolver.ts";
import { createNetDialer, type SmtpDialer, type SmtpTarget } from "./dialer.ts";
import { createRoutingDialer, loadProxyRules, type Via } from "./routing_dialer.ts";
import { createSocksDialer, parseProxyUrl } from "./socks_dialer.ts";

export type EgressConfig = Pick<Config, "probeTimeoutMs" | "smtpProxy" | "smtpProxyRules" | "smtpLocalAddresses">;

export interface Egress {
  dialer: SmtpDialer;
  /** How a target is reached: "direct" or the proxy's label (socks5://user@host:port, never the password). */
  describe(target: SmtpTarget, options: { signal: AbortSignal }): Promise<string>;
}

/** Builds the dialers the configuration names. Throws RangeError on a bad proxy URL or rules file. */
export function createEgress(config: EgressConfig, options: { log: Logger; resolver: MxResolver }): Egress {
  const { log, resolver } = options;
  const idleTimeoutMs = config.probeTimeoutMs;
  const direct = createNetDialer({ idleTimeoutMs, localAddresses: config.smtpLocalAddresses });
  const labels = new Map<Via, string>([["direct", "direct"]]);
  const dialers = new Map<Via, SmtpDialer>([["direct", direct]]);
  const addProxy = (via: Via, url: string) => {
    const proxy = parseProxyUrl(url);
    labels.set(via, proxy.label);
    dialers.set(via, createSocksDialer({ proxy, idleTimeoutMs, log }));
  };
  if (config.smtpProxy !== undefined) addProxy("proxy", config.smtpProxy);
  const fallback: Via = config.smtpProxy !== undefined ? "proxy" : "direct";
  if (config.smtpProxyRules === undefined) {
    const dialer = dialers.get(fallback)!;
    const label = labels.get(fallback)!;
    return { dialer, describe: async () => label };
  }
  const rules = loadProxyRules(config.smtpProxyRules);
  for (const via of [rules.fallback ?? fallback, ...rules.rules.map((r) => r.via)]) {
    if (dialers.has(via)) continue;
    if (via === "proxy") {
      throw new RangeError(`Cannot read SMTP_PROXY_RULES: a rule routes through "proxy" but SMTP_PROXY is not set`);
    }
    addProxy(via, via);
  }
  const routing = createRoutingDialer({ dialers, rules, fallback, resolver, log });
  return {
    dialer: routing,
    describe: async (target, { signal }) => labels.get(await routing.route(target, { signal }))!,
  };
}
