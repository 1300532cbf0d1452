// Which callback URLs are accepted as written, and which addresses a callback may reach.
import { test } from "node:test";
import assert from "node:assert/strict";
import { callbackPolicy, callbackUrlProblem, refusedAddress } from "../../src/callbacks/callback_target.ts";

const strict = callbackPolicy({ allowCidrs: [], allowHttpHosts: [] });
const operator = callbackPolicy({
  allowCidrs: ["10.20.0.0/16", "127.0.0.1"],
  allowHttpHosts: ["hooks.lan", "10.20.0.5"],
});

test("callbackUrlProblem() accepts public https URLs as written", () => {
  for (const url of ["https://hooks.example.com/vrai?token=x", "https://8.8.8.8/hook", "https://[2001:4860::8888]/"]) {
    assert.equal(callbackUrlProblem(url, strict), undefined, url);
  }
});

test("callbackUrlProblem() refuses private, loopback and link-local targets in every written form", () => {
  const cases: Array<[string, RegExp]> = [
    ["https://127.0.0.1/", /loopback/],
    ["https://127.1/", /loopback/],
    ["https://0x7f000001/", /loopback/],
    ["https://2130706433/", /loopback/],
    ["https://10.0.0.1/", /private/],
    ["https://192.168.0.10:8443/", /private/],
    ["https://169.254.169.254/", /linkLocal/],
    ["https://0.0.0.0/", /unspecified/],
    ["https://[::1]/", /loopback/],
    ["https://[fe80::1]/", /linkLocal/],
    ["https://[fd00::1]/", /uniqueLocal/],
    ["https://[::ffff:10.0.0.1]/", /private/],
    ["https://[2002:7f00:1::]/", /6to4:loopback/],
    ["https://localhost/", /this machine/],
    ["https://LOCALHOST./", /this machine/],
    ["https://a.b.localhost/", /this machine/],
  ];
  for (const [url, why] of cases) {
    const problem = callbackUrlProblem(url, strict);
    assert.ok(problem !== undefined, `${url} is refused`);
    assert.match(problem, why, url);
  }
});

test("callbackUrlProblem() wants https, no credentials, an absolute URL of at most 2048 characters", () => {
  assert.match(callbackUrlProblem("http://hooks.example.com/", strict) ?? "", /https/);
  assert.match(callbackUrlProblem("ws://hooks.example.com/", strict) ?? "", /https/);
  assert.match(callbackUrlProblem("https://u:p@hooks.example.com/", strict) ?? "", /user name or password/);
  assert.match(callbackUrlProblem("https://u@hooks.example.com/", strict) ?? "", /user name or password/);
  assert.match(callbackUrlProblem("hooks.example.com/x", strict) ?? "", /absolute/);
  assert.match(callbackUrlProblem(`https://hooks.example.com/${"a".repeat(2048)}`, strict) ?? "", /2048/);
});

test("an operator allows plain http to listed hosts and private ranges it names, and nothing more", () => {
  assert.equal(callbackUrlProblem("http://hooks.lan:8080/x", operator), undefined);
  assert.equal(callbackUrlProblem("http://HOOKS.LAN/x", operator), undefined, "host names in any case");
  assert.equal(callbackUrlProblem("http://10.20.0.5/x", operator), undefined);
  assert.equal(callbackUrlProblem("https://10.20.99.1/x", operator), undefined);
  assert.equal(callbackUrlProblem("https://localhost/x", operator), undefined, "127.0.0.1 is allowed");
  assert.match(callbackUrlProblem("http://10.20.0.6/x", operator) ?? "", /https/, "http only to listed hosts");
  assert.match(callbackUrlProblem("https://10.21.0.1/x", operator) ?? "", /private/);
  assert.match(callbackUrlProblem("https://127.0.0.2/x", operator) ?? "", /loopback/);
  assert.equal(refusedAddress("10.20.1.1", operator), undefined);
  assert.equal(refusedAddress("10.30.1.1", operator), "10.30.1.1 is a private address");
  assert.equal(refusedAddress("93.184.215.14", strict), undefined);
  assert.throws(() => callbackPolicy({ allowCidrs: ["10.0.0.0/33"], allowHttpHosts: [] }), /CALLBACK_ALLOW_CIDRS/);
  assert.throws(() => callbackPolicy({ allowCidrs: [], allowHttpHosts: ["a b"] }), /CALLBACK_ALLOW_HTTP_HOSTS/);
});
