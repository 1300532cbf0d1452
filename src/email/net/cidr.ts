// Which IP addresses a probe may connect to. An MX record pointing at 127.0.0.1, 10.0.0.5 or a v6 form that carries one
// of them (2002:7f00:1::, 64:ff9b::a00:1) would otherwise turn the service into a scanner of its own network.
//
// Ranges come from ipaddr.js `range()` (IANA special-purpose registries, RFC 6890): only "unicast" is global. The v6
// forms that carry a v4 address are judged by the v4 address they carry:
// - IPv4-mapped ::ffff:a.b.c.d (RFC 4291 §2.5.5.2): a dual-stack socket dials a.b.c.d itself.
// - 6to4 2002:aabb:ccdd::/48 (RFC 3056 §2): a relay or the host's own tunnel sends to aa.bb.cc.dd.
// - Teredo 2001:0:SSSS:SSSS:f:p:CCCC:CCCC (RFC 4380 §4): the client a relay sends to is the last 32 bits XOR
//   0xffffffff, the server is bits 32-63; both must be global.
// - NAT64 64:ff9b::a.b.c.d (RFC 6052 §2): the translator sends to a.b.c.d. A public one is allowed: an IPv6-only
//   host behind DNS64 sees every v4-only MX this way, the registry marks 64:ff9b::/96 globally reachable, and the
//   packet ends at the very address the v4 rule accepts. RFC 6052 §3.1 forbids this prefix for non-global v4.
// Refused whatever they carry:
// - IPv4-compatible ::a.b.c.d (RFC 4291 §2.5.5.1): deprecated, no mail server publishes one, and Linux with the sit
//   module tunnels it to a.b.c.d.
// - Local-use NAT64 64:ff9b:1::/48 (RFC 8215): the registry marks it not global, and where the v4 address sits
//   depends on the prefix length its operator chose (RFC 6052 §2.2), so it cannot be read back.
// - v6 "unicast" outside 2000::/3 (RFC 4291 §2.4): the rest of the space is reserved by the IETF.
//
// An allowed range (PROBE_ALLOW_CIDRS) matches the literal address: a v4 range also matches that address written
// IPv4-mapped (the same socket peer), never a 6to4, Teredo or NAT64 form reached through a relay. Allowing
// 127.0.0.0/8 for tests does not allow 2002:7f00:1::; an operator who wants that lists 2002:7f00::/24 too.
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

type Address = ipaddr.IPv4 | ipaddr.IPv6;

export interface Cidr {
  version: 4 | 6;
  /** The first address of the range (host bits cleared). */
  network: Address;
  prefix: number;
}

/**
 * Parses an address exactly as net.connect() will dial it, or returns null. Only what node:net's isIP() accepts (the
 * test net.connect uses to skip DNS) gets through, so "0177.0.0.1" or "127.1" are never classified as one address and
 * resolved as another. A zone id (fe80::1%eth0) is refused: DNS never returns one. A dotted v4 tail is rewritten
 * as hex groups first, because ipaddr.js reads "::127.0.0.1" as ::ffff:127.0.0.1 where the kernel dials ::7f00:1.
 */
function parseAddress(ip: string): Address | null {
  const family = isIP(ip);
  if (family === 0 || ip.includes("%")) return null;
  if (family === 4) return ipaddr.IPv4.parse(ip);
  const cut = ip.lastIndexOf(":") + 1;
  if (!ip.includes(".", cut)) return ipaddr.IPv6.parse(ip);
  const [a, b, c, d] = ipaddr.IPv4.parse(ip.slice(cut)).octets as [number, number, number, number];
  return ipaddr.IPv6.parse(`${ip.slice(0, cut)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`);
}

/** Parses "10.0.0.0/8", "fe80::/10" or a bare address (a /32 or /128). Throws RangeError on anything else. */
export function parseCidr(text: string): Cidr {
  const [ip = "", bits, extra] = text.trim().split("/");
  const address = extra === undefined ? parseAddress(ip) : null;
  if (address === null) throw new RangeError(`Cannot parse CIDR: "${text}" has no valid address`);
  const version = address.kind() === "ipv4" ? 4 : 6;
  const width = version === 4 ? 32 : 128;
  const prefix = bits === undefined ? width : /^\d{1,3}$/.test(bits) ? Number(bits) : NaN;
  if (!(prefix >= 0 && prefix <= width)) throw new RangeError(`Cannot parse CIDR: "${text}" has a bad prefix length`);
  const mask = (version === 4 ? ipaddr.IPv4 : ipaddr.IPv6).subnetMaskFromPrefixLength(prefix).toByteArray();
  const network = ipaddr.fromByteArray(address.toByteArray().map((byte, i) => byte & mask[i]!));
  return { version, network, prefix };
}

function contains(cidr: Cidr, address: Address): boolean {
  if (address.kind() === "ipv6" && cidr.version === 4) {
    const v6 = address as ipaddr.IPv6;
    return v6.range() === "ipv4Mapped" && v6.toIPv4Address().match(cidr.network, cidr.prefix);
  }
  return address.kind() === cidr.network.kind() && address.match(cidr.network, cidr.prefix);
}

/** True when `ip` lies in `cidr`. A v4 range also holds the IPv4-mapped form (::ffff:a.b.c.d) of its addresses. */
export function cidrContains(cidr: Cidr, ip: string): boolean {
  const address = parseAddress(ip);
  return address !== null && contains(cidr, address);
}

function v4(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

const GLOBAL_UNICAST_V6: [ipaddr.IPv6, number] = [ipaddr.IPv6.parse("2000::"), 3];
const WELL_KNOWN_NAT64: [ipaddr.IPv6, number] = [ipaddr.IPv6.parse("64:ff9b::"), 96];

/** The v4 addresses a v6 form carries, or null when it carries none. */
function embeddedV4(form: string, address: ipaddr.IPv6): ipaddr.IPv4[] | null {
  const p = address.parts;
  switch (form) {
    case "ipv4Mapped":
      return [address.toIPv4Address()];
    case "6to4":
      return [v4(p[1]!, p[2]!)];
    case "teredo":
      return [v4(p[6]! ^ 0xffff, p[7]! ^ 0xffff), v4(p[2]!, p[3]!)];
    case "rfc6052":
      return address.match(WELL_KNOWN_NAT64) ? [v4(p[6]!, p[7]!)] : null;
    default:
      return null;
  }
}

/**
 * Names the range `ip` belongs to: "unicast" when it is global, otherwise why it is not: an ipaddr.js range name
 * ("private", "loopback", "reserved", …), "ipv4Compatible", "localNat64", a v6 form and the range of the v4 address it
 * carries ("6to4:loopback", "teredo:private"), or "invalid" for anything but a plain address literal (a zone id
 * included).
 */
export function addressRange(ip: string): string {
  const address = parseAddress(ip);
  if (address === null) return "invalid";
  if (address.kind() === "ipv4") return address.range();
  const v6 = address as ipaddr.IPv6;
  const range: string = v6.range();
  if (range === "unicast") {
    if (v6.parts.slice(0, 6).every((part) => part === 0)) return "ipv4Compatible";
    return v6.match(GLOBAL_UNICAST_V6) ? "unicast" : "reserved";
  }
  const carried = embeddedV4(range, v6);
  if (carried === null) return range === "rfc6052" ? "localNat64" : range;
  const refused = carried.map((inner) => inner.range()).find((inner) => inner !== "unicast");
  return refused === undefined ? "unicast" : `${range}:${refused}`;
}

/**
 * True when a probe may connect to `ip`: a global address, or one inside an explicitly allowed range. The caller
 * must dial `ip` itself, not a reformatted copy.
 *
 * @example
 * isProbeTarget("8.8.8.8", []); // true
 * isProbeTarget("2002:7f00:1::", [parseCidr("127.0.0.0/8")]); // false: 6to4 of loopback, not the literal address
 */
export function isProbeTarget(ip: string, allow: readonly Cidr[]): boolean {
  const address = parseAddress(ip);
  if (address === null) return false;
  return allow.some((cidr) => contains(cidr, address)) || addressRange(ip) === "unicast";
}
