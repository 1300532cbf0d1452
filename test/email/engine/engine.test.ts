// The engine with the network faked at its boundary (resolver and dialer): pipeline order, settling, flags.
import assert from "node:assert/strict";
import { test } from "node:test";
import { loadConfig } from "../../../src/config.ts";
import { createEmailEngine } from "../../../src/email/engine.ts";
import { DnsError } from "../../../src/email/errors.ts";
import type { MxResolver } from "../../../src/email/net/mx_resolver.ts";
import { createLogger } from "../../../src/log.ts";
import { createFakeDialer, type Responder } from "../fake_dialer.ts";

const config = { ...loadConfig({}), probeTimeoutMs: 500, emailDeadlineMs: 2000 };

const resolver: MxResolver = {
  async resolveMx(domain) {
    if (domain === "example.com" || domain === "catchall.fr") return [{ exchange: `mx.${domain}`, priority: 10 }];
    throw new DnsError("DNS_NXDOMAIN", "fake");
  },
  resolveAddresses: async () => ["93.184.216.34"],
};

const mailboxes: Responder = (line) => {
  if (!line.startsWith("RCPT")) return "250 ok";
  return /<(jane|info)@example\.com>|@catchall\.fr/.test(line) ? "250 2.1.5 ok" : "550 5.1.1 User unknown";
};

function setup(respond: Responder = mailboxes) {
  const dialer = createFakeDialer({ respond });
  return { dialer, engine: createEmailEngine(config, { resolver, dialer }) };
}

test("verify() answers deliverable with every check pass and every flag false", async () => {
  const r = await setup().engine.verify("jane@example.com");
  assert.equal(r.verdict, "deliverable");
  assert.deepEqual(r.reasons, []);
  assert.deepEqual(r.flags, { disposable: false, role: false, catch_all: false });
  assert.deepEqual(Object.keys(r.checks), [
    "syntax",
    "provider_rules",
    "typo",
    "disposable",
    "role",
    "mx",
    "smtp",
    "catch_all",
  ]);
});

test("verify() probes the catch-all on the same connection after RSET", async () => {
  const { engine, dialer } = setup();
  await engine.verify("jane@example.com");
  assert.equal(dialer.connections.length, 1);
  const commands = dialer.connections[0]!.commands;
  assert.equal(commands.filter((c) => c.startsWith("RCPT")).length, 2);
  assert.ok(commands.indexOf("RSET") > commands.indexOf("RCPT TO:<jane@example.com>"));
});

test("verify() reuses the cached catch-all answer for the next address of the domain", async () => {
  const { engine, dialer } = setup();
  await engine.verify("jane@example.com");
  await engine.verify("jane@example.com");
  assert.equal(dialer.connections[1]!.commands.filter((c) => c.startsWith("RCPT")).length, 1);
});

test("verify() keeps going after a role address and answers risky role_address", async () => {
  const r = await setup().engine.verify("info@example.com");
  assert.equal(r.verdict, "risky");
  assert.deepEqual(r.reasons, ["role_address"]);
  assert.equal(r.checks.smtp, "pass");
  assert.equal(r.flags.role, true);
});

test("verify() answers a typo with a suggestion and skips every later check", async () => {
  const { engine, dialer } = setup();
  const r = await engine.verify("jane@hotmial.fr");
  assert.equal(r.verdict, "undeliverable");
  assert.deepEqual(r.reasons, ["domain_typo"]);
  assert.equal(r.suggestion, "jane@hotmail.fr");
  assert.equal(r.checks.typo, "fail");
  for (const name of ["disposable", "role", "mx", "smtp", "catch_all"] as const)
    assert.equal(r.checks[name], "skipped");
  assert.equal(dialer.connections.length, 0);
});

test("verify() answers an address broken only by a slip of its domain invalid_syntax, with the address meant", async () => {
  const { engine, dialer } = setup();
  for (const [typed, meant] of [
    ["jane@gmailcom", "jane@gmail.com"],
    ["jane@gmail,com", "jane@gmail.com"],
    ["jane@orange,fr", "jane@orange.fr"],
  ]) {
    const r = await engine.verify(typed!);
    assert.equal(r.verdict, "undeliverable", typed);
    assert.deepEqual(r.reasons, ["invalid_syntax"], typed);
    assert.equal(r.suggestion, meant, typed);
    // The trace of any syntax error: syntax fails and settles, nothing after it runs.
    assert.equal(r.checks.syntax, "fail");
    for (const name of ["provider_rules", "typo", "disposable", "role", "mx", "smtp", "catch_all"] as const)
      assert.equal(r.checks[name], "skipped", `${typed} ${name}`);
    assert.deepEqual(r.flags, { disposable: null, role: null, catch_all: null });
  }
  assert.equal(dialer.connections.length, 0);
});

test("verify() suggests nothing for an address malformed beyond a slip of its domain", async () => {
  const { engine } = setup();
  for (const typed of ["ja ne@gmail,com", "jane@@gmailcom", "jane@gmail com", "jane@"]) {
    const r = await engine.verify(typed);
    assert.deepEqual(r.reasons, ["invalid_syntax"], typed);
    assert.equal(r.suggestion, null, typed);
  }
});

test("verify() settles a disposable domain as risky with no network", async () => {
  const { engine, dialer } = setup();
  const r = await engine.verify("jane@yopmail.com");
  assert.equal(r.verdict, "risky");
  assert.deepEqual(r.flags, { disposable: true, role: null, catch_all: null });
  assert.equal(dialer.connections.length, 0);
});

test("verify() reports a fault of its own as probe_unavailable and logs no full address", async () => {
  const lines: string[] = [];
  const broken: MxResolver = {
    resolveMx: async () => {
      throw new TypeError("boom");
    },
    resolveAddresses: async () => [],
  };
  const throwing = {
    ...broken,
    resolveMx: () => {
      throw new TypeError("boom");
    },
  } as unknown as MxResolver;
  for (const r of [broken, throwing]) {
    const engine = createEmailEngine(config, {
      resolver: r,
      log: createLogger({ level: "debug", write: (l) => lines.push(l) }),
    });
    const result = await engine.verify("jane@example.com");
    assert.equal(result.verdict, "unknown");
    assert.ok(result.reasons.includes("probe_unavailable"), JSON.stringify(result));
  }
  assert.ok(!lines.some((l) => l.includes("jane@")));
});

test("verifyMany() calls onResult once per address, in any order, with every address", async () => {
  const { engine } = setup();
  const emails = ["jane@example.com", "bob@example.com", "not-an-email", "x@catchall.fr", "y@catchall.fr"];
  const seen: string[] = [];
  await engine.verifyMany(emails, {
    onResult: (r) => {
      seen.push(r.email);
    },
  });
  assert.deepEqual([...seen].sort(), [...emails].sort());
});

test("verifyMany() rejects with the caller's reason once every worker has stopped", async () => {
  const { engine } = setup((line) => (line.startsWith("RCPT") ? "250 ok" : "250 ok"));
  const controller = new AbortController();
  const calls: string[] = [];
  let settled = false;
  const pending = engine.verifyMany(
    Array.from({ length: 50 }, (_, i) => `jane${i}@example.com`),
    {
      signal: controller.signal,
      onResult: (r) => {
        assert.equal(settled, false, "onResult after verifyMany settled");
        calls.push(r.email);
        if (calls.length === 3) controller.abort(new Error("stopping"));
      },
    },
  );
  await assert.rejects(pending, /stopping/);
  settled = true;
  await new Promise((r) => setTimeout(r, 20));
  assert.ok(calls.length < 50);
});
