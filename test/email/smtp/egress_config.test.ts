// The parsing half of the egress configuration: SMTP_PROXY URLs, SMTP_PROXY_RULES files and SMTP_LOCAL_ADDRESS.
import assert from "node:assert/strict";
import { test } from "node:test";
import { loadConfig } from "../../../src/config.ts";
import { parseProxyRules } from "../../../src/email/smtp/routing_dialer.ts";
import { parseProxyUrl, redactProxyUrl } from "../../../src/email/smtp/socks_dialer.ts";

test("parseProxyUrl() reads socks5 URLs and labels them without the password", () => {
  const p = parseProxyUrl("socks5://probe:s%40cret@10.0.0.2:1081");
  assert.deepEqual(p, {
    host: "10.0.0.2",
    port: 1081,
    userId: "probe",
    password: "s@cret",
    label: "socks5://probe@10.0.0.2:1081",
  });
  assert.equal(parseProxyUrl("socks5://proxy.example").port, 1080);
  assert.equal(parseProxyUrl("socks5://[2001:db8::2]:1080").label, "socks5://[2001:db8::2]:1080");
  assert.equal(parseProxyUrl("socks5://[2001:db8::2]:1080").host, "2001:db8::2");
  for (const bad of [
    "socks5h://p:1080",
    "socks4://p:1080",
    "http://p:3128",
    "socks5://",
    "socks5://p:1080/x",
    "nope",
  ]) {
    assert.throws(() => parseProxyUrl(bad), RangeError, bad);
  }
  assert.throws(
    () => parseProxyUrl("socks5://u:hunter2@"),
    (e: Error) => !e.message.includes("hunter2"),
  );
  assert.equal(redactProxyUrl("socks5://u:hunter2@h:1"), "socks5://u:***@h:1");
});

test("parseProxyRules() reads rules in order and refuses what it does not understand", () => {
  assert.deepEqual(
    parseProxyRules({
      _comment: "big providers through the proxy",
      rules: [
        { mx_suffix: ".Google.com.", via: "proxy" },
        { domain: "Example.org", via: "direct", _why: "our own" },
        { mx_suffix: "outlook.com", via: "socks5://u:p@10.0.0.3:1080" },
      ],
      default: "direct",
    }),
    {
      rules: [
        { mxSuffix: "google.com", via: "proxy" },
        { domain: "example.org", via: "direct" },
        { mxSuffix: "outlook.com", via: "socks5://u:p@10.0.0.3:1080" },
      ],
      fallback: "direct",
    },
  );
  assert.deepEqual(parseProxyRules({}), { rules: [] });
  const bad: Array<[unknown, RegExp]> = [
    [[], /JSON object/],
    [{ rules: {} }, /rules must be an array/],
    [{ rule: [] }, /unknown member rule/],
    [{ rules: [{ via: "direct" }] }, /exactly one of mx_suffix, domain/],
    [{ rules: [{ mx_suffix: "a", domain: "b", via: "direct" }] }, /exactly one/],
    [{ rules: [{ mx_suffix: ".", via: "direct" }] }, /empty name/],
    [{ rules: [{ mx_suffix: "a.example", via: "http://p" }] }, /via must be/],
    [{ rules: [{ mx_suffix: "a.example", via: "direct", port: 1 }] }, /unknown member port/],
    [{ default: "sometimes" }, /default\.via must be/],
  ];
  for (const [json, message] of bad) assert.throws(() => parseProxyRules(json), message, JSON.stringify(json));
});

test("loadConfig() reads the egress variables and refuses bad ones", () => {
  const c = loadConfig({
    SMTP_PROXY: "socks5://u:p@127.0.0.1:1080",
    SMTP_PROXY_RULES: "/etc/vrai/egress.json",
    SMTP_LOCAL_ADDRESS: "203.0.113.5, 2001:db8::5",
    SMTP_SELFTEST_HOST: "mx.example.net",
  });
  assert.deepEqual(
    [c.smtpProxy, c.smtpProxyRules, c.smtpLocalAddresses, c.smtpSelftestHost],
    ["socks5://u:p@127.0.0.1:1080", "/etc/vrai/egress.json", ["203.0.113.5", "2001:db8::5"], "mx.example.net"],
  );
  const defaults = loadConfig({});
  assert.deepEqual(
    [defaults.smtpProxy, defaults.smtpProxyRules, defaults.smtpLocalAddresses, defaults.smtpSelftestHost],
    [undefined, undefined, [], undefined],
  );
  assert.throws(() => loadConfig({ SMTP_LOCAL_ADDRESS: "eth0" }), /SMTP_LOCAL_ADDRESS/);
  assert.throws(() => loadConfig({ SMTP_LOCAL_ADDRESS: "10.0.0.1,10.0.0.2" }), /SMTP_LOCAL_ADDRESS/);
  assert.throws(() => loadConfig({ SMTP_PROXY: "http://proxy:3128" }), /SMTP_PROXY/);
});
