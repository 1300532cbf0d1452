// Can SMTP probes work from here? Most cloud and home networks block outbound port 25, and a server probing from an
// address without forward-confirmed reverse DNS, or with a HELO name that does not resolve, is refused by many mail
// exchangers: every answer then comes back `unknown`. This check tells the operator which of these holds and how to
// fix it; `npm run doctor` prints it, the server runs it once in the background at start and shows it in /readyz.
import { Resolver } from "node:dns/promises";
import { isIP } from "node:net";
import { deadline, isTimeoutReason } from "../../async/deadline.ts";
import type { Config } from "../../config.ts";
import { SmtpError } from "../errors.ts";
import { createDnsResolver, type MxResolver } from "../net/mx_resolver.ts";
import type { SmtpConnection, SmtpTarget } from "../smtp/dialer.ts";
import { createEgress, type Egress } from "../smtp/egress.ts";
import { silentLogger, type Logger } from "../../log.ts";

/** The default target's domain: a large mailbox provider whose MX answers on port 25 from anywhere it is open. */
export const DEFAULT_SELFTEST_DOMAIN = "gmail.com";

export const EGRESS_CHECKS = ["outbound_port_25", "helo_name", "reverse_dns"] as const;
export type EgressCheckName = (typeof EGRESS_CHECKS)[number];
export type EgressCheckStatus = "pass" | "fail" | "skip";

export interface EgressCheck {
  name: EgressCheckName;
  status: EgressCheckStatus;
  /** What was found, in one sentence. */
  detail: string;
  /** What to do about a failure. */
  fix?: string;
}

export interface EgressReport {
  /** False when a check failed: probes will not work, or many mail exchangers will refuse them. */
  ok: boolean;
  /** "direct" or the proxy the target was reached through (never its password). */
  route: string;
  /** host (address):port of the mail server connected to, or the host alone when it did not resolve. */
  target: string;
  checks: EgressCheck[];
}

export type ReverseLookup = (ip: string, options: { signal: AbortSignal }) => Promise<string[]>;

export interface EgressCheckOptions {
  resolver?: MxResolver;
  /** PTR names of an address (default: node:dns with config.dnsServers). */
  reverse?: ReverseLookup;
  egress?: Egress;
  log?: Logger;
  /** Ends every wait (the process is stopping). */
  signal?: AbortSignal;
}

export type EgressCheckConfig = Pick<
  Config,
  | "dnsServers"
  | "probeTimeoutMs"
  | "smtpPort"
  | "smtpHeloName"
  | "smtpProxy"
  | "smtpProxyRules"
  | "smtpLocalAddresses"
  | "smtpSelftestHost"
>;

function dnsReverse(servers: readonly string[], timeoutMs: number): ReverseLookup {
  return async (ip, { signal }) => {
    const resolver = new Resolver({ timeout: Math.max(50, Math.floor(timeoutMs / 2)), tries: 2 });
    if (servers.length > 0) resolver.setServers([...servers]);
    const limit = deadline(timeoutMs, { parents: [signal], what: `look up the PTR of ${ip}` });
    const onAbort = () => resolver.cancel();
    limit.signal.addEventListener("abort", onAbort, { once: true });
    try {
      return await resolver.reverse(ip);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === "ENOTFOUND" || code === "ENODATA") return [];
      throw error;
    } finally {
      limit.signal.removeEventListener("abort", onAbort);
      limit.dispose();
    }
  };
}

/** The client address a server's EHLO (or HELO) reply names: "[203.0.113.5]", "[IPv6:2001:db8::5]" or a bare IPv4. */
export function echoedAddress(text: string): string | null {
  for (const match of text.matchAll(/\[(?:IPv6:)?([0-9A-Fa-f:.]+)\]/g)) {
    if (isIP(match[1]!) !== 0) return match[1]!;
  }
  for (const match of text.matchAll(/(?<![\d.])(\d{1,3}(?:\.\d{1,3}){3})(?![\d.])/g)) {
    if (isIP(match[1]!) === 4) return match[1]!;
  }
  return null;
}

/** True for a fully qualified host name: two labels at least, letters, digits and hyphens, not an address. */
export function isFqdn(name: string): boolean {
  const host = name.replace(/\.$/, "");
  if (isIP(host) !== 0 || host.length > 253) return false;
  const labels = host.split(".");
  return (
    labels.length >= 2 &&
    labels.every((l) => /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i.test(l)) &&
    !/^\d+$/.test(labels.at(-1)!)
  );
}

function reason(error: unknown): string {
  if (error instanceof SmtpError) return error.message;
  if (isTimeoutReason(error)) return "timed out";
  return error instanceof Error ? error.message : String(error);
}

/** Runs the three checks; never throws for a failed check (it is in the report), only when `signal` aborts. */
export async function checkEgress(config: EgressCheckConfig, options: EgressCheckOptions = {}): Promise<EgressReport> {
  const { log = silentLogger, signal } = options;
  const budget = config.probeTimeoutMs;
  const resolver = options.resolver ?? createDnsResolver({ servers: config.dnsServers, timeoutMs: budget });
  const reverse = options.reverse ?? dnsReverse(config.dnsServers, budget);
  const egress = options.egress ?? createEgress(config, { log, resolver });
  const helo = config.smtpHeloName;
  const checks: EgressCheck[] = [];
  let route = "direct";

  // 1. Outbound TCP to port 25 of the target, and its greeting.
  let host = config.smtpSelftestHost;
  let targetText = host ?? `the first MX of ${DEFAULT_SELFTEST_DOMAIN}`;
  let hello: string | null = null;
  let resolved = false;
  let connected = false;
  const step = deadline(budget * 3, { parents: [signal], what: "check outbound SMTP" });
  try {
    if (host === undefined) {
      const records = await resolver.resolveMx(DEFAULT_SELFTEST_DOMAIN, { signal: step.signal });
      host = records.filter((r) => r.exchange !== "").sort((a, b) => a.priority - b.priority)[0]?.exchange;
      if (host === undefined) throw new Error(`${DEFAULT_SELFTEST_DOMAIN} has no MX record`);
    }
    const address = isIP(host) !== 0 ? host : (await resolver.resolveAddresses(host, { signal: step.signal }))[0]!;
    resolved = true;
    const target: SmtpTarget = { host, address, port: config.smtpPort };
    targetText = `${host}${address === host ? "" : ` (${address})`}:${config.smtpPort}`;
    route = await egress.describe(target, { signal: step.signal });
    let conn: SmtpConnection | undefined;
    try {
      conn = await egress.dialer.dial(target, { signal: step.signal });
      connected = true;
      const banner = await conn.read({ signal: step.signal });
      if (banner.code !== 220) {
        checks.push({
          name: "outbound_port_25",
          status: "fail",
          detail: `connected to ${targetText} ${route === "direct" ? "directly" : `through ${route}`}, but it refused us: ${banner.code} ${banner.text}`,
          fix: "The address probes leave from is refused, often because it is on a blocklist (look it up at https://check.spamhaus.org): probe from another address (SMTP_LOCAL_ADDRESS) or through a proxy (SMTP_PROXY)",
        });
      } else {
        const reply = await conn.command(`EHLO ${helo}`, { signal: step.signal });
        hello = reply.text;
        checks.push({
          name: "outbound_port_25",
          status: "pass",
          detail: `connected to ${targetText} ${route === "direct" ? "directly" : `through ${route}`}: ${banner.code} ${banner.text.split("\n")[0]}`,
        });
        await conn.command("QUIT", { signal: step.signal }).catch(() => {});
      }
    } finally {
      conn?.close();
    }
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    const viaProxy = route !== "direct";
    checks.push({
      name: "outbound_port_25",
      status: "fail",
      detail: `cannot reach ${targetText} ${viaProxy ? `through ${route}` : "directly"}: ${reason(error)}`,
      fix: !resolved
        ? `The target's name could not be looked up, so port ${config.smtpPort} was not tried: check that DNS works from this host (DNS_SERVERS, if set, must answer MX and A queries for public domains), or set SMTP_SELFTEST_HOST to a mail server's address`
        : connected
          ? `The connection opened but the server never finished greeting us: try another SMTP_SELFTEST_HOST; a network that intercepts port ${config.smtpPort} behaves this way too`
          : viaProxy
            ? `Check SMTP_PROXY (or SMTP_PROXY_RULES): the proxy must be up, accept our credentials, and allow CONNECT to port ${config.smtpPort}`
            : `Outbound port ${config.smtpPort} looks blocked (most cloud and home networks block it): ask your provider to open it, or send probes through a SOCKS5 proxy with SMTP_PROXY=socks5://user:pass@host:port`,
    });
  } finally {
    step.dispose();
  }

  // 2. The HELO name is a fully qualified name that resolves.
  const names = deadline(budget, { parents: [signal], what: "resolve the HELO name" });
  try {
    if (!isFqdn(helo)) {
      checks.push({
        name: "helo_name",
        status: "fail",
        detail: `SMTP_HELO_NAME "${helo}" is not a fully qualified host name`,
        fix: "Set SMTP_HELO_NAME to a fully qualified name (mail.example.com) whose A record is the address probes leave from",
      });
    } else {
      const addresses = await resolver.resolveAddresses(helo, { signal: names.signal });
      checks.push({ name: "helo_name", status: "pass", detail: `${helo} resolves to ${addresses.join(", ")}` });
    }
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    checks.push({
      name: "helo_name",
      status: "fail",
      detail: `SMTP_HELO_NAME ${helo} does not resolve: ${reason(error)}`,
      fix: `Give ${helo} an A record pointing at the address probes leave from, or set SMTP_HELO_NAME to a name that has one`,
    });
  } finally {
    names.dispose();
  }

  // 3. Forward-confirmed reverse DNS of the address the target saw, when it told us.
  const ours = hello === null ? null : echoedAddress(hello);
  if (ours === null) {
    checks.push({
      name: "reverse_dns",
      status: "skip",
      detail:
        hello === null
          ? "not checked: no EHLO reply from the target"
          : "not checked: the target did not echo our address in its EHLO reply (check the PTR of your public address yourself)",
    });
  } else {
    const ptr = deadline(budget * 2, { parents: [signal], what: "check reverse DNS" });
    const fix = `Ask whoever owns ${ours} (your host, ISP or proxy provider) to set its reverse DNS (PTR) to ${isFqdn(helo) ? helo : "your HELO name"}, and give that name an A record pointing back to ${ours}`;
    try {
      const ptrNames = await reverse(ours, { signal: ptr.signal });
      let confirmed: string | undefined;
      for (const name of ptrNames) {
        const back = await resolver.resolveAddresses(name, { signal: ptr.signal }).catch(() => [] as string[]);
        if (back.includes(ours)) {
          confirmed = name;
          break;
        }
      }
      if (ptrNames.length === 0) {
        checks.push({
          name: "reverse_dns",
          status: "fail",
          detail: `${ours} (our address as the target saw it) has no PTR record`,
          fix,
        });
      } else if (confirmed === undefined) {
        checks.push({
          name: "reverse_dns",
          status: "fail",
          detail: `${ours} has PTR ${ptrNames.join(", ")}, which does not resolve back to ${ours}`,
          fix,
        });
      } else {
        const same = confirmed.replace(/\.$/, "").toLowerCase() === helo.replace(/\.$/, "").toLowerCase();
        checks.push({
          name: "reverse_dns",
          status: "pass",
          detail: `${ours} → ${confirmed} → ${ours}${same ? ", the HELO name" : ` (SMTP_HELO_NAME is ${helo}: some servers want them equal)`}`,
        });
      }
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      checks.push({
        name: "reverse_dns",
        status: "fail",
        detail: `cannot look up the PTR of ${ours}: ${reason(error)}`,
        fix,
      });
    } finally {
      ptr.dispose();
    }
  }

  return { ok: checks.every((c) => c.status !== "fail"), route, target: targetText, checks };
}

/** One line per check, with the fix when it fails: what `npm run doctor` prints and the server logs. */
export function formatEgressReport(report: EgressReport): string[] {
  return report.checks.map((c) => {
    const head = `${c.status === "pass" ? "ok  " : c.status === "skip" ? "skip" : "FAIL"} ${c.name.padEnd(16)} ${c.detail}`;
    return c.fix === undefined ? head : `${head}\n     fix: ${c.fix}`;
  });
}

export interface EgressStatus {
  /** null until the check has finished. */
  readonly report: EgressReport | null;
}

/**
 * Runs the check in the background (the caller never waits for it) and logs its result once: info when probes can
 * work, warn with every failed check and its fix otherwise.
 */
export function startEgressCheck(config: EgressCheckConfig, options: EgressCheckOptions = {}): EgressStatus {
  const { log = silentLogger } = options;
  const status: { report: EgressReport | null } = { report: null };
  void (async () => {
    try {
      const report = await checkEgress(config, options);
      status.report = report;
      const fields = {
        route: report.route,
        target: report.target,
        checks: Object.fromEntries(report.checks.map((c) => [c.name, c.status])),
        failed: report.checks
          .filter((c) => c.status === "fail")
          .map((c) => ({ check: c.name, detail: c.detail, fix: c.fix })),
      };
      if (report.ok) log.info("smtp egress self-check passed", fields);
      else log.warn("smtp egress self-check failed: email answers will be unknown or refused until fixed", fields);
    } catch (error) {
      log.warn("smtp egress self-check did not finish", { error: reason(error) });
    }
  })();
  return status;
}
