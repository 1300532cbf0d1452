// The DNS boundary of the engine. Checks never import node:dns: they get an MxResolver, so tests can pass a fake
// one or point the default one at a local dnsmasq.
import { Resolver } from "node:dns/promises";
import { deadline } from "../../async/deadline.ts";
import { DnsError, type DnsErrorCode } from "../errors.ts";

export interface MxRecord {
  exchange: string;
  priority: number;
}

export interface MxResolver {
  /** MX records of a domain; a null MX (RFC 7505) comes back as `{ exchange: "", priority: 0 }`. Throws DnsError. */
  resolveMx(domain: string, options: { signal: AbortSignal }): Promise<MxRecord[]>;
  /** A and AAAA addresses of a host (IPv4 first). Throws DnsError when there is none. */
  resolveAddresses(host: string, options: { signal: AbortSignal }): Promise<string[]>;
}

const CODES: Record<string, DnsErrorCode> = {
  ENOTFOUND: "DNS_NXDOMAIN",
  ENODATA: "DNS_NODATA",
  ETIMEOUT: "DNS_TIMEOUT",
  ESERVFAIL: "DNS_SERVFAIL",
  EREFUSED: "DNS_REFUSED",
  ECONNREFUSED: "DNS_REFUSED",
  ECANCELLED: "DNS_TIMEOUT",
};

function toDnsError(error: unknown, name: string): DnsError {
  if (error instanceof DnsError) return error;
  const code = CODES[(error as { code?: string }).code ?? ""] ?? "DNS_SERVFAIL";
  return new DnsError(code, `Cannot resolve ${name}: ${(error as Error).message}`, { cause: error });
}

// Strongest first: when A and AAAA both fail, the answer reported is the one that says most about the name.
const RANK: DnsErrorCode[] = ["DNS_TIMEOUT", "DNS_SERVFAIL", "DNS_REFUSED", "DNS_NODATA", "DNS_NXDOMAIN"];

export interface DnsResolverOptions {
  /** `ip` or `ip:port` entries (config.dnsServers); empty keeps the system configuration. */
  servers: readonly string[];
  /** Budget of one lookup, retries included. */
  timeoutMs: number;
}

/** The default resolver: node:dns with the configured servers, one c-ares channel per lookup so that an abort
 *  cancels only that lookup. */
export function createDnsResolver(options: DnsResolverOptions): MxResolver {
  const { servers, timeoutMs } = options;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1)
    throw new RangeError("Cannot create resolver: timeoutMs must be a positive integer");
  const tries = 2;
  const perTry = Math.max(50, Math.floor(timeoutMs / tries));

  async function run<T>(name: string, signal: AbortSignal, query: (r: Resolver) => Promise<T>): Promise<T> {
    if (signal.aborted) throw new DnsError("DNS_TIMEOUT", `Cannot resolve ${name}: aborted`, { cause: signal.reason });
    const resolver = new Resolver({ timeout: perTry, tries });
    if (servers.length > 0) resolver.setServers([...servers]);
    // c-ares has its own per-try timer; ours is the hard bound over every try, and carries the caller's signal.
    const limit = deadline(timeoutMs, { parents: [signal], what: `resolve ${name}` });
    const onAbort = () => resolver.cancel();
    limit.signal.addEventListener("abort", onAbort, { once: true });
    try {
      return await query(resolver);
    } catch (error) {
      throw toDnsError(error, name);
    } finally {
      limit.signal.removeEventListener("abort", onAbort);
      limit.dispose();
    }
  }

  return {
    resolveMx(domain, { signal }) {
      return run(domain, signal, (r) => r.resolveMx(domain));
    },
    async resolveAddresses(host, { signal }) {
      const [v4, v6] = await Promise.allSettled([
        run(host, signal, (r) => r.resolve4(host)),
        run(host, signal, (r) => r.resolve6(host)),
      ]);
      const addresses = [
        ...(v4.status === "fulfilled" ? v4.value : []),
        ...(v6.status === "fulfilled" ? v6.value : []),
      ];
      if (addresses.length > 0) return addresses;
      const errors = [v4, v6].flatMap((r) => (r.status === "rejected" ? [r.reason as DnsError] : []));
      if (errors.length === 0) throw new DnsError("DNS_NODATA", `Cannot resolve ${host}: no address`);
      errors.sort((a, b) => RANK.indexOf(a.code) - RANK.indexOf(b.code));
      throw errors[0]!;
    },
  };
}
