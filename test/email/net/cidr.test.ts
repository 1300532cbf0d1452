import assert from "node:assert/strict";
import { test } from "node:test";
import { addressRange, cidrContains, isProbeTarget, parseCidr } from "../../../src/email/net/cidr.ts";

const contains: Array<[string, string, boolean]> = [
  ["127.0.0.0/8", "127.0.3.10", true],
  ["127.0.0.0/8", "128.0.0.1", false],
  ["10.0.0.0/8", "10.255.255.255", true],
  ["172.16.0.0/12", "172.31.0.1", true],
  ["172.16.0.0/12", "172.32.0.1", false],
  ["192.168.1.0/24", "192.168.1.77", true],
  ["0.0.0.0/0", "8.8.8.8", true],
  ["127.0.0.0/8", "::ffff:127.0.0.1", true],
  ["127.0.0.0/8", "::ffff:7f00:1", true],
  ["::ffff:0:0/96", "::ffff:10.0.0.1", true],
  ["fe80::/10", "fe80::1", true],
  ["fe80::/10", "fec0::1", false],
  ["fe80::/10", "fe80::1%eth0", false],
  ["fc00::/7", "fd12:3456::1", true],
  ["2001:db8::/32", "2001:db8:ffff::1", true],
  ["2001:db8::/32", "2001:db9::1", false],
  ["::1/128", "::1", true],
  ["10.0.0.0/8", "::1", false],
  ["10.0.0.1/8", "10.200.0.1", true],
  ["127.0.0.0/8", "2002:7f00:1::", false],
  ["127.0.0.0/8", "::127.0.0.1", false],
  ["127.0.0.0/8", "64:ff9b::127.0.0.1", false],
  ["127.0.0.0/8", "127.1", false],
];
for (const [cidr, ip, expected] of contains) {
  test(`cidrContains() says ${ip} is ${expected ? "inside" : "outside"} ${cidr}`, () => {
    assert.equal(cidrContains(parseCidr(cidr), ip), expected);
  });
}

const badCidrs: Array<[string, string]> = [
  ["300.0.0.0/8", "octet over 255"],
  ["10.0.0.0/33", "v4 prefix over 32"],
  ["fe80::/129", "v6 prefix over 128"],
  ["10.0.0.0/x", "prefix not a number"],
  ["10.0.0.0/", "empty prefix"],
  ["10.0.0.0/-1", "negative prefix"],
  ["10.0.0.0/8/8", "two prefixes"],
  ["127.1/8", "inet_aton shorthand"],
  ["0177.0.0.0/8", "octal octet"],
  ["fe80::%eth0/10", "zone id"],
  ["", "empty text"],
];
for (const [text, what] of badCidrs) {
  test(`parseCidr() throws RangeError on ${what} (${JSON.stringify(text)})`, () => {
    assert.throws(() => parseCidr(text), RangeError);
  });
}

test("parseCidr() clears the host bits and reads a bare address as one host", () => {
  const range = parseCidr(" 10.1.2.3/8 ");
  assert.deepEqual([range.version, range.network.toString(), range.prefix], [4, "10.0.0.0", 8]);
  const host = parseCidr("2001:db8::1");
  assert.deepEqual([host.version, host.network.toString(), host.prefix], [6, "2001:db8::1", 128]);
});

// [address, the range addressRange() names ("unicast" = global, so a probe target), source]. Sources: the IANA
// IPv4/IPv6 special-purpose address registries (RFC 6890 and the RFCs their rows cite).
const ranges: Array<[string, string, string]> = [
  // Global addresses.
  ["8.8.8.8", "unicast", "public IPv4"],
  ["100.128.0.1", "unicast", "just past 100.64.0.0/10 (RFC 6598)"],
  ["172.32.0.1", "unicast", "just past 172.16.0.0/12 (RFC 1918)"],
  ["2a00:1450:400c:c0b::1a", "unicast", "public IPv6 in 2000::/3 (RFC 4291 §2.4)"],
  ["2001:4860:4860::8888", "unicast", "public IPv6 in 2001::/16 outside the special rows (RFC 6890)"],
  // IPv4 special-purpose registry.
  ["0.0.0.0", "unspecified", "RFC 1122 §3.2.1.3 this host"],
  ["0.1.2.3", "unspecified", "RFC 791 this network 0.0.0.0/8"],
  ["10.1.2.3", "private", "RFC 1918 10/8"],
  ["172.16.0.1", "private", "RFC 1918 172.16/12"],
  ["172.31.255.255", "private", "RFC 1918 172.16/12, last address"],
  ["192.168.0.10", "private", "RFC 1918 192.168/16"],
  ["100.64.0.1", "carrierGradeNat", "RFC 6598 shared address space"],
  ["100.127.255.254", "carrierGradeNat", "RFC 6598, end of 100.64/10"],
  ["127.0.0.1", "loopback", "RFC 1122 §3.2.1.3 loopback"],
  ["127.255.255.254", "loopback", "RFC 1122 loopback, whole /8"],
  ["169.254.169.254", "linkLocal", "RFC 3927 link-local (cloud metadata)"],
  ["192.0.0.8", "reserved", "RFC 6890 IETF protocol assignments 192.0.0.0/24"],
  ["192.0.2.1", "reserved", "RFC 5737 TEST-NET-1"],
  ["198.51.100.1", "reserved", "RFC 5737 TEST-NET-2"],
  ["203.0.113.1", "reserved", "RFC 5737 TEST-NET-3"],
  ["192.88.99.1", "reserved", "RFC 7526 deprecated 6to4 relay anycast"],
  ["198.18.0.1", "reserved", "RFC 2544 benchmarking 198.18/15"],
  ["198.19.255.255", "reserved", "RFC 2544 benchmarking, end of 198.18/15"],
  ["192.175.48.1", "as112", "RFC 7534 AS112 anycast DNS, not a mail server"],
  ["192.52.193.1", "amt", "RFC 7450 AMT relay anycast, not a mail server"],
  ["224.0.0.1", "multicast", "RFC 5771 multicast"],
  ["239.255.255.250", "multicast", "RFC 5771 multicast, end of 224/4"],
  ["240.0.0.1", "reserved", "RFC 1112 §4 reserved 240/4"],
  ["255.255.255.255", "broadcast", "RFC 919 / RFC 8190 limited broadcast"],
  // IPv6 special-purpose registry.
  ["::", "unspecified", "RFC 4291 §2.5.2 unspecified"],
  ["::1", "loopback", "RFC 4291 §2.5.3 loopback"],
  ["fe80::1", "linkLocal", "RFC 4291 §2.5.6 link-local"],
  ["FE80::1", "linkLocal", "RFC 4291 link-local, upper case (RFC 5952 §4.3 readers accept it)"],
  ["fd00::1", "uniqueLocal", "RFC 4193 unique local"],
  ["fc00::1", "uniqueLocal", "RFC 4193 unique local, fc00::/7 low half"],
  ["fec0::1", "deprecatedSiteLocal", "RFC 3879 deprecated site-local"],
  ["ff02::1", "multicast", "RFC 4291 §2.7 multicast, link scope"],
  ["ff0e::1", "multicast", "RFC 4291 §2.7 multicast, global scope (not a unicast peer)"],
  ["100::1", "discard", "RFC 6666 discard-only prefix"],
  ["2001:db8::1", "reserved", "RFC 3849 documentation"],
  ["3fff::1", "reserved", "RFC 9637 documentation"],
  ["2001:2::1", "benchmarking", "RFC 5180 benchmarking"],
  ["2001:20::1", "orchid2", "RFC 7343 ORCHIDv2"],
  ["5f00::1", "segmentRouting", "RFC 9602 SRv6 SIDs"],
  ["4000::1", "reserved", "RFC 4291 §2.4: outside 2000::/3, reserved by the IETF"],
  ["::ffff:0:a00:1", "rfc6145", "RFC 2765 §2.1 IPv4-translated (SIIT)"],
  // IPv4-mapped (RFC 4291 §2.5.5.2): the socket dials the v4 address itself.
  ["::ffff:127.0.0.1", "ipv4Mapped:loopback", "RFC 4291 §2.5.5.2 mapped loopback"],
  ["::ffff:7f00:1", "ipv4Mapped:loopback", "RFC 4291 §2.5.5.2 mapped loopback, hex tail"],
  ["::ffff:10.0.0.1", "ipv4Mapped:private", "RFC 4291 §2.5.5.2 mapped RFC 1918"],
  ["::FFFF:169.254.169.254", "ipv4Mapped:linkLocal", "RFC 4291 §2.5.5.2 mapped metadata address"],
  ["::ffff:8.8.8.8", "unicast", "RFC 4291 §2.5.5.2 mapped public address"],
  // IPv4-compatible (RFC 4291 §2.5.5.1): deprecated, refused whatever it carries.
  ["::127.0.0.1", "ipv4Compatible", "RFC 4291 §2.5.5.1 compatible loopback"],
  ["::7f00:1", "ipv4Compatible", "RFC 4291 §2.5.5.1 compatible loopback, hex tail"],
  ["::10.0.0.1", "ipv4Compatible", "RFC 4291 §2.5.5.1 compatible RFC 1918"],
  ["::8.8.8.8", "ipv4Compatible", "RFC 4291 §2.5.5.1 compatible public address (deprecated form)"],
  // 6to4 (RFC 3056 §2): 2002:V4ADDR::/48.
  ["2002:7f00:1::", "6to4:loopback", "RFC 3056 §2 6to4 of 127.0.0.1"],
  ["2002:0a00:0001::", "6to4:private", "RFC 3056 §2 6to4 of 10.0.0.1"],
  ["2002:c0a8:101::1", "6to4:private", "RFC 3056 §2 6to4 of 192.168.1.1"],
  ["2002:a9fe:a9fe::", "6to4:linkLocal", "RFC 3056 §2 6to4 of 169.254.169.254"],
  ["2002:6440:1::", "6to4:carrierGradeNat", "RFC 3056 §2 6to4 of 100.64.0.1"],
  ["2002:808:808::1", "unicast", "RFC 3056 §2 6to4 of public 8.8.8.8"],
  // Teredo (RFC 4380 §4): 2001:0:server:flags:~port:~client.
  ["2001:0:4136:e378:8000:63bf:80ff:fffe", "teredo:loopback", "RFC 4380 §4 Teredo client 127.0.0.1"],
  ["2001:0:4136:e378:8000:63bf:f5ff:fffe", "teredo:private", "RFC 4380 §4 Teredo client 10.0.0.1"],
  ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "teredo:reserved", "RFC 4380 §4 example: client 192.0.2.45"],
  ["2001:0:a00:1:8000:63bf:f7f7:fbfb", "teredo:private", "RFC 4380 §4 Teredo server 10.0.0.1"],
  ["2001:0:4136:e378:8000:63bf:f7f7:fbfb", "unicast", "RFC 4380 §4 public server and client 8.8.4.4"],
  // NAT64 (RFC 6052 §2.1 well-known prefix; RFC 8215 local-use prefix).
  ["64:ff9b::10.0.0.1", "rfc6052:private", "RFC 6052 §2.1 NAT64 of 10.0.0.1"],
  ["64:ff9b::a00:1", "rfc6052:private", "RFC 6052 §2.1 NAT64 of 10.0.0.1, hex tail"],
  ["64:ff9b::7f00:1", "rfc6052:loopback", "RFC 6052 §2.1 NAT64 of 127.0.0.1"],
  ["64:ff9b::a9fe:a9fe", "rfc6052:linkLocal", "RFC 6052 §2.1 NAT64 of 169.254.169.254"],
  ["64:ff9b::8.8.8.8", "unicast", "RFC 6052 §2.1 NAT64 of a public address (DNS64 synthesis)"],
  ["64:ff9b:1::a00:1", "localNat64", "RFC 8215 local-use NAT64 prefix, not global"],
  ["64:ff9b:1::808:808", "localNat64", "RFC 8215 local-use NAT64 prefix, v4 position unknown"],
  // Not an address net.connect would dial as written.
  ["fe80::1%eth0", "invalid", "RFC 4007 §11 zone id: DNS never returns one"],
  ["fe80::1%1", "invalid", "RFC 4007 §11 numeric zone id"],
  ["0177.0.0.1", "invalid", "inet_aton octal: getaddrinfo would read it as 127.0.0.1"],
  ["127.1", "invalid", "inet_aton shorthand for 127.0.0.1"],
  ["2130706433", "invalid", "inet_aton single number for 127.0.0.1"],
  ["0x7f.0.0.1", "invalid", "inet_aton hex octet"],
  [" 8.8.8.8", "invalid", "leading space"],
  ["not-an-ip", "invalid", "a host name"],
  ["", "invalid", "empty string"],
];
for (const [ip, range, source] of ranges) {
  test(`addressRange() names ${JSON.stringify(ip)} ${range} (${source})`, () => {
    assert.equal(addressRange(ip), range);
  });
  test(`isProbeTarget() is ${range === "unicast"} for ${JSON.stringify(ip)} without allowed ranges (${source})`, () => {
    assert.equal(isProbeTarget(ip, []), range === "unicast");
  });
}

// [PROBE_ALLOW_CIDRS, address, allowed, why]. An allowed range matches the literal address and its IPv4-mapped form,
// never a 6to4, Teredo or NAT64 form that reaches it through a relay.
const allowed: Array<[string[], string, boolean, string]> = [
  [["127.0.0.0/8"], "127.0.3.10", true, "the range itself"],
  [["127.0.0.0/8"], "::ffff:127.0.0.1", true, "the IPv4-mapped form of an allowed address (same socket peer)"],
  [["127.0.0.0/8"], "10.0.0.1", false, "another private range"],
  [["127.0.0.0/8"], "::1", false, "v6 loopback is a separate address"],
  [["127.0.0.0/8"], "2002:7f00:1::", false, "6to4 of an allowed address goes through a relay"],
  [["127.0.0.0/8"], "2001:0:4136:e378:8000:63bf:80ff:fffe", false, "Teredo of an allowed address"],
  [["127.0.0.0/8"], "64:ff9b::7f00:1", false, "NAT64 of an allowed address goes through a translator"],
  [["127.0.0.0/8"], "::127.0.0.1", false, "IPv4-compatible of an allowed address"],
  [["127.0.0.0/8"], "127.0.0.1%lo", false, "a zone id is never a literal address"],
  [["127.0.0.0/8", "2002:7f00::/24"], "2002:7f00:1::", true, "6to4 of loopback when listed explicitly"],
  [["10.0.0.0/8"], "10.20.30.40", true, "the range prober tests allow"],
  [["::1/128"], "::1", true, "v6 loopback when listed"],
  [["fd00::/8"], "fd00::25", true, "a unique-local lab network when listed"],
  [["fd00::/8"], "fe80::1%eth0", false, "link-local with a zone is not in it"],
  [[], "8.8.8.8", true, "a global address needs no allowance"],
];
for (const [cidrs, ip, expected, why] of allowed) {
  test(`isProbeTarget() is ${expected} for ${ip} when ${cidrs.join(",") || "nothing"} is allowed: ${why}`, () => {
    assert.equal(isProbeTarget(ip, cidrs.map(parseCidr)), expected);
  });
}
