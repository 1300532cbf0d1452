import assert from "node:assert/strict";
import { test } from "node:test";
import type { CheckContext } from "../../../src/email/checks/context.ts";
import { mx, mxOutcome } from "../../../src/email/checks/mx.ts";
import { parseEmail } from "../../../src/email/checks/syntax.ts";
import { DnsError, type DnsErrorCode } from "../../../src/email/errors.ts";
import { createMxLookup, lookupMx } from "../../../src/email/mx_lookup.ts";
import type { MxRecord, MxResolver } from "../../../src/email/net/mx_resolver.ts";

type Answer = MxRecord[] | string[] | DnsErrorCode;

/** A resolver answering from a fixed table: name → records or an error code. */
function fakeResolver(
  mx: Record<string, Answer>,
  hosts: Record<string, Answer>,
  options: { counter?: { calls: number } } = {},
): MxResolver {
  const { counter = { calls: 0 } } = options;
  const answer = <T>(table: Record<string, Answer>, name: string): T => {
    counter.calls++;
    const a = table[name] ?? "DNS_NXDOMAIN";
    if (typeof a === "string") throw new DnsError(a, `fake: ${name}`);
    return a as T;
  };
  return {
    resolveMx: async (domain) => answer<MxRecord[]>(mx, domain),
    resolveAddresses: async (host) => answer<string[]>(hosts, host),
  };
}

const signal = new AbortController().signal;

const cases: Array<[string, Record<string, Answer>, Record<string, Answer>, string]> = [
  [
    "passes when an MX host has an address",
    { "d.fr": [{ exchange: "mx.d.fr", priority: 10 }] },
    { "mx.d.fr": ["192.0.2.1"] },
    "pass",
  ],
  [
    "fails with no_mx_record when the domain has a null MX",
    { "d.fr": [{ exchange: "", priority: 0 }] },
    {},
    "no_mx_record",
  ],
  [
    "fails with no_mx_record when the domain has only an A record",
    { "d.fr": "DNS_NODATA" },
    { "d.fr": ["192.0.2.1"] },
    "no_mx_record",
  ],
  [
    "fails with no_mx_record when no MX host resolves",
    { "d.fr": [{ exchange: "gone.d.fr", priority: 10 }] },
    { "gone.d.fr": "DNS_NXDOMAIN" },
    "no_mx_record",
  ],
  ["fails with domain_does_not_resolve on NXDOMAIN", { "d.fr": "DNS_NXDOMAIN" }, {}, "domain_does_not_resolve"],
  [
    "fails with domain_does_not_resolve when the name has no record at all",
    { "d.fr": "DNS_NODATA" },
    { "d.fr": "DNS_NODATA" },
    "domain_does_not_resolve",
  ],
  ["is inconclusive with probe_timeout on a DNS timeout", { "d.fr": "DNS_TIMEOUT" }, {}, "probe_timeout"],
  ["is inconclusive with probe_unavailable on SERVFAIL", { "d.fr": "DNS_SERVFAIL" }, {}, "probe_unavailable"],
  [
    "is inconclusive with probe_unavailable when the DNS server refuses",
    { "d.fr": "DNS_REFUSED" },
    {},
    "probe_unavailable",
  ],
  [
    "is inconclusive with probe_timeout when the MX host lookup times out",
    { "d.fr": [{ exchange: "mx.d.fr", priority: 10 }] },
    { "mx.d.fr": "DNS_TIMEOUT" },
    "probe_timeout",
  ],
];

for (const [what, mx, hosts, expected] of cases) {
  test(`mx() ${what}`, async () => {
    const outcome = mxOutcome(await lookupMx(fakeResolver(mx, hosts), "d.fr", { signal }));
    if (expected === "pass") return assert.deepEqual(outcome, { status: "pass" });
    const definite = expected === "no_mx_record" || expected === "domain_does_not_resolve";
    assert.deepEqual(outcome, { status: definite ? "fail" : "inconclusive", reasons: [expected], settles: true });
  });
}

test("lookupMx() orders MX hosts by preference and drops hosts without an address", async () => {
  const answer = await lookupMx(
    fakeResolver(
      {
        "d.fr": [
          { exchange: "b.d.fr", priority: 20 },
          { exchange: "A.d.fr.", priority: 10 },
          { exchange: "c.d.fr", priority: 30 },
        ],
      },
      { "a.d.fr": ["192.0.2.1"], "b.d.fr": ["192.0.2.2", "2001:db8::2"], "c.d.fr": "DNS_NXDOMAIN" },
    ),
    "d.fr",
    { signal },
  );
  assert.deepEqual(answer, {
    ok: true,
    hosts: [
      { exchange: "a.d.fr", priority: 10, addresses: ["192.0.2.1"] },
      { exchange: "b.d.fr", priority: 20, addresses: ["192.0.2.2", "2001:db8::2"] },
    ],
  });
});

test("createMxLookup() answers a domain once for concurrent and later callers, but does not cache a timeout", async () => {
  const counter = { calls: 0 };
  const lookup = createMxLookup(
    fakeResolver(
      { "d.fr": [{ exchange: "mx.d.fr", priority: 10 }], "t.fr": "DNS_TIMEOUT" },
      { "mx.d.fr": ["192.0.2.1"] },
      { counter },
    ),
  );
  await Promise.all([lookup.lookup("d.fr", { signal }), lookup.lookup("d.fr", { signal })]);
  await lookup.lookup("d.fr", { signal });
  assert.equal(counter.calls, 2); // one MX query, one address query
  await lookup.lookup("t.fr", { signal });
  await lookup.lookup("t.fr", { signal });
  assert.equal(counter.calls, 4);
});

// Special-use and undelegated top-level domains: a domain no DNS query can answer fails at once, and no query is sent.
const unresolvable: Array<[input: string, source: string]> = [
  ["jean@wanadoo.ff", "an undelegated TLD: not in the root zone"],
  ["test@acme.zzzz", "IANA root zone has no .zzzz"],
  ["x@a.invalid", "RFC 6761 §6.4: always a negative response"],
  ["x@a.localhost", "RFC 6761 §6.3: negative answer to every non-address query, never sent to DNS"],
  ["x@abc.onion", "RFC 7686 §2: no DNS lookup"],
];
for (const [input, source] of unresolvable) {
  test(`mx() fails with domain_does_not_resolve without a DNS query for ${input} [${source}]`, async () => {
    const parsed = parseEmail(input);
    assert.ok(parsed.ok, `${input} should parse`);
    let lookups = 0;
    const ctx = {
      input,
      state: { parsed: parsed.email, mx: null, accepted: null, retryAfterMs: null },
      deps: {
        mxLookup: {
          lookup: async () => {
            lookups++;
            return { ok: false, reason: "probe_unavailable" } as const;
          },
        },
      },
      signal,
      reuseConnections: false,
    } as unknown as CheckContext;
    assert.deepEqual(await mx(ctx), { status: "fail", reasons: ["domain_does_not_resolve"], settles: true });
    assert.equal(lookups, 0);
  });
}

const resolved: Array<[input: string, source: string]> = [
  ["x@vrai.test", "RFC 6761 §6.2: .test is resolved through DNS like any name"],
  ["x@acme.example", "RFC 6761 §6.5: .example is resolved through DNS like any name"],
  ["x@example.fr", "delegated .fr"],
];
for (const [input, source] of resolved) {
  test(`mx() asks DNS about ${input} and answers what it says [${source}]`, async () => {
    const parsed = parseEmail(input);
    assert.ok(parsed.ok, `${input} should parse`);
    const asked: string[] = [];
    const hosts = [{ exchange: "mx.peer", priority: 10, addresses: ["127.0.0.1"] }];
    const state = { parsed: parsed.email, mx: null, accepted: null, retryAfterMs: null };
    const ctx = {
      input,
      state,
      deps: {
        mxLookup: {
          lookup: async (domain: string) => {
            asked.push(domain);
            return { ok: true, hosts } as const;
          },
        },
      },
      signal,
      reuseConnections: false,
    } as unknown as CheckContext;
    assert.deepEqual(await mx(ctx), { status: "pass" });
    assert.deepEqual(asked, [parsed.email.domain]);
    assert.deepEqual(state.mx, hosts);
  });
}
