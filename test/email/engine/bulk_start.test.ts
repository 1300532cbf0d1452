// verifyMany on a large chunk, with the network faked at its boundary (resolver and dialer): the first addresses reach
// their mail exchanger while the rest of the chunk is still being checked, and the chunk's addresses do not each
// listen on the caller's signal (a claim of 500 addresses held the event loop, and every open SMTP dialogue
// with it, before the first connection opened).
import assert from "node:assert/strict";
import { test } from "node:test";
import { loadConfig } from "../../../src/config.ts";
import { createEmailEngine } from "../../../src/email/engine.ts";
import { DnsError } from "../../../src/email/errors.ts";
import type { MxResolver } from "../../../src/email/net/mx_resolver.ts";
import { createFakeDialer } from "../fake_dialer.ts";

const config = { ...loadConfig({}), probeTimeoutMs: 2000, emailDeadlineMs: 4000 };

test("verifyMany: the first addresses of a large chunk dial their MX before the last ones are looked up", async () => {
  const events: string[] = [];
  const resolver: MxResolver = {
    async resolveMx(domain) {
      events.push("mx");
      return [{ exchange: `mx.${domain}`, priority: 10 }];
    },
    resolveAddresses: async () => ["93.184.216.34"],
  };
  const fake = createFakeDialer({ respond: (line) => (line.startsWith("RCPT") ? "550 5.1.1 unknown" : "250 ok") });
  const dialer = {
    dial: (...args: Parameters<typeof fake.dial>) => {
      events.push("dial");
      return fake.dial(...args);
    },
  };
  const engine = createEmailEngine(config, { resolver, dialer });
  // One domain per address: each needs its own MX lookup, then its own connection.
  const emails = Array.from({ length: 600 }, (_, i) => `someone@d${i}.example.com`);
  const verdicts: string[] = [];
  await engine.verifyMany(emails, { onResult: (r) => void verdicts.push(r.verdict) });
  await engine.close();
  assert.equal(verdicts.length, 600);
  assert.ok(
    verdicts.every((v) => v === "undeliverable"),
    "every address answered as before",
  );
  const firstDial = events.indexOf("dial");
  const lastLookup = events.lastIndexOf("mx");
  assert.ok(
    firstDial >= 0 && firstDial < lastLookup,
    `first dial at event ${firstDial}, last MX lookup at ${lastLookup}`,
  );
});

test("verifyMany: a chunk's addresses do not each add a listener to the caller's signal", async () => {
  let release = () => {};
  const answered = new Promise<void>((resolve) => (release = resolve));
  const resolver: MxResolver = {
    // Every address of the chunk waits on this one lookup (shared per domain), as a claim's first addresses do.
    async resolveMx() {
      await answered;
      throw new DnsError("DNS_NXDOMAIN", "fake");
    },
    resolveAddresses: async () => [],
  };
  const engine = createEmailEngine(config, { resolver, dialer: createFakeDialer({ respond: () => "250 ok" }) });
  const caller = new AbortController();
  let listeners = 0;
  const add = caller.signal.addEventListener.bind(caller.signal);
  caller.signal.addEventListener = ((type: string, ...rest: [never, never]) => {
    if (type === "abort") listeners++;
    return add(type, ...rest);
  }) as typeof caller.signal.addEventListener;
  const emails = Array.from({ length: 400 }, (_, i) => `user${i}@nowhere.example.com`);
  const results: string[] = [];
  const running = engine.verifyMany(emails, {
    signal: caller.signal,
    onResult: (r) => void results.push(r.reasons.join(",")),
  });
  await new Promise((resolve) => setTimeout(resolve, 50));
  release();
  await running;
  await engine.close();
  assert.equal(results.length, 400);
  assert.ok(results.every((r) => r === "domain_does_not_resolve"));
  assert.ok(listeners <= 5, `${listeners} abort listeners added to the caller's signal`);
});

test("verifyMany: the caller's abort still ends every waiting address of the chunk", async () => {
  const resolver: MxResolver = {
    resolveMx: () => new Promise(() => {}), // never answers: only the caller's signal ends the wait
    resolveAddresses: async () => [],
  };
  const engine = createEmailEngine(config, { resolver, dialer: createFakeDialer({ respond: () => "250 ok" }) });
  const caller = new AbortController();
  const emails = Array.from({ length: 300 }, (_, i) => `user${i}@stuck.example.com`);
  const results: string[] = [];
  const running = engine.verifyMany(emails, {
    signal: caller.signal,
    onResult: (r) => void results.push(r.verdict),
  });
  await new Promise((resolve) => setTimeout(resolve, 50));
  caller.abort(new Error("stopping"));
  await assert.rejects(running, /stopping/);
  await engine.close();
  assert.deepEqual(results, [], "no answer is made up for an address whose caller gave up");
});
