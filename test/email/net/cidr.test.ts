import assert from "node:assert/strict";
import { test } from "node:test";
import { cidrContains, isProbeTarget, parseCidr } from "../../../src/email/net/cidr.ts";

const contains: Array<[string, string, boolean]> = [
  ["127.0.0.0/8", "127.0.3.10", true],
  ["127.0.0.0/8", "128.0.0.1", false],
  ["10.0.0.0/8", "10.255.255.255", true],
  ["172.16.0.0/12", "172.31.0.1", true],
  ["172.16.0.0/12", "172.32.0.1", false],
  ["192.168.1.0/24", "192.168.1.77", true],
  ["0.0.0.0/0", "8.8.8.8", true],
  ["127.0.0.0/8", "::ffff:127.0.0.1", true],
  ["fe80::/10", "fe80::1", true],
  ["fe80::/10", "fec0::1", false],
  ["fc00::/7", "fd12:3456::1", true],
  ["2001:db8::/32", "2001:db8:ffff::1", true],
  ["2001:db8::/32", "2001:db9::1", false],
  ["::1/128", "::1", true],
  ["10.0.0.0/8", "::1", false],
];
for (const [cidr, ip, expected] of contains) {
  test(`cidrContains() says ${ip} is ${expected ? "inside" : "outside"} ${cidr}`, () => {
    assert.equal(cidrContains(parseCidr(cidr), ip), expected);
  });
}

test("parseCidr() refuses a bad address or prefix with RangeError", () => {
  assert.throws(() => parseCidr("300.0.0.0/8"), RangeError);
  assert.throws(() => parseCidr("10.0.0.0/33"), RangeError);
  assert.throws(() => parseCidr("fe80::/129"), RangeError);
  assert.throws(() => parseCidr("10.0.0.0/x"), RangeError);
});

const targets: Array<[string, boolean, string]> = [
  ["8.8.8.8", true, "a public IPv4 address"],
  ["2a00:1450:400c:c0b::1a", true, "a public IPv6 address"],
  ["127.0.0.1", false, "loopback"],
  ["10.1.2.3", false, "private 10/8"],
  ["192.168.0.10", false, "private 192.168/16"],
  ["169.254.169.254", false, "link-local (cloud metadata)"],
  ["0.0.0.0", false, "unspecified IPv4"],
  ["::", false, "unspecified IPv6"],
  ["::1", false, "IPv6 loopback"],
  ["fe80::1%eth0", false, "IPv6 link-local with a zone"],
  ["fd00::1", false, "IPv6 unique local"],
  ["::ffff:10.0.0.1", false, "an IPv4-mapped private address"],
  ["100.64.0.1", false, "carrier-grade NAT"],
  ["not-an-ip", false, "something that is not an IP"],
];
for (const [ip, expected, what] of targets) {
  test(`isProbeTarget() is ${expected} for ${what} without allowed ranges`, () => {
    assert.equal(isProbeTarget(ip, []), expected);
  });
}

test("isProbeTarget() lets an allowed range through", () => {
  assert.equal(isProbeTarget("127.0.3.10", [parseCidr("127.0.0.0/8")]), true);
  assert.equal(isProbeTarget("10.0.0.1", [parseCidr("127.0.0.0/8")]), false);
});
