// A small CIDR matcher for IPv4 and IPv6, and the list of ranges a probe must never reach by default: an MX record
// pointing at 127.0.0.1 or 10.0.0.5 would otherwise turn the service into a scanner of its own network.
import { isIPv4, isIPv6 } from "node:net";

export interface Cidr {
  version: 4 | 6;
  network: bigint;
  prefix: number;
}

function v4ToBigInt(ip: string): bigint {
  return ip.split(".").reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

function v6ToBigInt(ip: string): bigint {
  let text = ip.split("%")[0]!; // drop a zone id (fe80::1%eth0)
  if (text.includes(".")) {
    // Embedded IPv4 (::ffff:1.2.3.4) is rewritten as its two 16-bit groups.
    const cut = text.lastIndexOf(":") + 1;
    const v4 = v4ToBigInt(text.slice(cut));
    text = `${text.slice(0, cut)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head, rest] = text.includes("::") ? (text.split("::") as [string, string]) : [text, null];
  const parse = (s: string) => (s === "" ? [] : s.split(":").map((g) => BigInt(parseInt(g, 16))));
  const left = parse(head);
  const right = rest === null ? [] : parse(rest);
  const fill = rest === null ? 0 : 8 - left.length - right.length;
  const groups = [...left, ...new Array<bigint>(fill).fill(0n), ...right];
  return groups.reduce((acc, g) => (acc << 16n) | g, 0n);
}

/** Parses "10.0.0.0/8", "fe80::/10" or a bare address (a /32 or /128). Throws RangeError on anything else. */
export function parseCidr(text: string): Cidr {
  const [ip, bits] = text.trim().split("/") as [string, string | undefined];
  const version = isIPv4(ip) ? 4 : isIPv6(ip) ? 6 : 0;
  if (version === 0) throw new RangeError(`Cannot parse CIDR: "${text}" has no valid address`);
  const width = version === 4 ? 32 : 128;
  const prefix = bits === undefined ? width : Number(bits);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > width || (bits !== undefined && !/^\d+$/.test(bits))) {
    throw new RangeError(`Cannot parse CIDR: "${text}" has a bad prefix length`);
  }
  const value = version === 4 ? v4ToBigInt(ip) : v6ToBigInt(ip);
  const shift = BigInt(width - prefix);
  return { version, network: (value >> shift) << shift, prefix };
}

/** An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is judged as the IPv4 address it carries. */
function normalise(ip: string): { version: 4 | 6; value: bigint } | null {
  if (isIPv4(ip)) return { version: 4, value: v4ToBigInt(ip) };
  if (!isIPv6(ip)) return null;
  const value = v6ToBigInt(ip);
  if (value >> 32n === 0xffffn) return { version: 4, value: value & 0xffffffffn };
  return { version: 6, value };
}

export function cidrContains(cidr: Cidr, ip: string): boolean {
  const addr = normalise(ip);
  if (addr === null || addr.version !== cidr.version) return false;
  const shift = BigInt((cidr.version === 4 ? 32 : 128) - cidr.prefix);
  return (addr.value >> shift) << shift === cidr.network;
}

/** Ranges that are not the public Internet: private, loopback, link-local, unspecified, shared, multicast, reserved. */
export const NON_PUBLIC_RANGES: readonly Cidr[] = [
  "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24",
  "192.0.2.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
  "::/128", "::1/128", "64:ff9b::/96", "64:ff9b:1::/48", "100::/64", "2001:db8::/32", "fc00::/7", "fe80::/10", "ff00::/8",
].map(parseCidr);

/** True when a probe may connect to `ip`: a public address, or one inside an explicitly allowed range. */
export function isProbeTarget(ip: string, allow: readonly Cidr[]): boolean {
  if (normalise(ip) === null) return false;
  if (allow.some((c) => cidrContains(c, ip))) return true;
  return !NON_PUBLIC_RANGES.some((c) => cidrContains(c, ip));
}
