// parseEmail(), one row per case with its source: the RFC section, or the public corpus the case comes from
// (isemail's tests.xml diagnoses, validator.js isEmail tests, mailcheck's spec).
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseEmail, tldKind, type TldKind } from "../../../src/email/checks/syntax.ts";

const a = (n: number) => "a".repeat(n);
/** A domain of exactly n octets: labels of 63, the last one shorter, ending in ".com". */
function domainOf(n: number): string {
  const labels: string[] = [];
  let left = n - 4; // ".com"
  while (left > 0) {
    const size = Math.min(63, left - (left > 63 ? 1 : 0));
    labels.push(a(size));
    left -= size + 1;
  }
  return `${labels.join(".")}.com`;
}

type Valid = [what: string, input: string, domain: string, source: string];
const valid: Valid[] = [
  ["plain address", "jane.doe@example.com", "example.com", "RFC 5321 §4.1.2 dot-string"],
  ["plus tag", "jane+news@example.fr", "example.fr", "RFC 5233 sub-addressing"],
  ["every atext symbol", "a!#$%&'*+-/=?^_`{|}~z@example.org", "example.org", "RFC 5322 §3.2.3 atext"],
  [
    "quoted local part with a space",
    '"jane doe"@example.com',
    "example.com",
    "RFC 5321 §4.1.2 Quoted-string; isemail RFC5321_QUOTEDSTRING",
  ],
  [
    "quoted local part with an escaped quote",
    '"ja\\"ne"@example.com',
    "example.com",
    "RFC 5321 §4.1.2 quoted-pairSMTP",
  ],
  ["UTF-8 local part (RFC 6531)", "josé@example.fr", "example.fr", "RFC 6531 §3.3 UTF8-non-ascii"],
  ["IDN domain converted to ASCII", "jane@exämple.de", "xn--exmple-cua.de", "RFC 5890 A-labels"],
  ["upper-case domain lowered", "Jane@EXAMPLE.COM", "example.com", "RFC 4343 DNS names are case-insensitive"],
  ["multi-label public suffix", "jane@example.co.uk", "example.co.uk", "Public Suffix List co.uk"],
  [
    "local part of exactly 64 octets",
    `${a(64)}@example.com`,
    "example.com",
    "RFC 5321 §4.5.3.1.1; isemail (64-character local part is valid)",
  ],
  [
    "TLD slip kept for the typo check",
    "jane@example.con",
    "example.con",
    "an unknown TLD is not a syntax error: the typo check and DNS answer it",
  ],
  ["the .test TLD, resolved like any name", "x@vrai.test", "vrai.test", "RFC 6761 §6.2"],
  ["the .example TLD, resolved like any name", "jane@acme.example", "acme.example", "RFC 6761 §6.5"],
  ["an undelegated TLD (wanadoo.ff)", "jean@wanadoo.ff", "wanadoo.ff", "an undelegated TLD is for DNS to answer"],
  ["an undelegated TLD (comcast.nry)", "test@comcast.nry", "comcast.nry", "mailcheck spec: test@comcast.nry"],
  [
    "a stray '#' before the domain, kept for the typo check",
    "test@#gmail.com",
    "#gmail.com",
    "mailcheck spec: test@#gmail.com",
  ],
  [
    "an address of exactly 254 octets",
    `${a(64)}@${domainOf(189)}`,
    domainOf(189),
    "RFC 5321 §4.5.3.1.3 (path 256 with '<' '>')",
  ],
  [
    "the longest domain a mailbox can hold (252 octets)",
    `j@${domainOf(252)}`,
    domainOf(252),
    "RFC 5321 §4.5.3.1.3: 1 + 1 + 252 = 254",
  ],
  [
    "a well-formed astral character (surrogate pair)",
    "\u{1F600}@example.com",
    "example.com",
    "RFC 6531 §3.3 (U+1F600 is one code point)",
  ],
];
for (const [what, input, domain, source] of valid) {
  test(`parseEmail() accepts ${what} [${source}]`, () => {
    const result = parseEmail(input);
    assert.ok(result.ok, `${input} should parse`);
    assert.equal(result.email.domain, domain);
  });
}

type Reason = "invalid_syntax" | "local_part_too_long" | "domain_too_long";
type Invalid = [what: string, input: string, reasons: Reason[], source: string];
const invalid: Invalid[] = [
  ["no at sign", "jane.example.com", ["invalid_syntax"], "isemail ERR_NODOMAIN"],
  ["empty local part", "@example.com", ["invalid_syntax"], "isemail ERR_NOLOCALPART"],
  ["empty domain", "jane@", ["invalid_syntax"], "isemail ERR_NODOMAIN"],
  ["leading dot", ".jane@example.com", ["invalid_syntax"], "isemail ERR_DOT_START"],
  ["trailing dot", "jane.@example.com", ["invalid_syntax"], "isemail ERR_DOT_END"],
  ["two dots in a row", "ja..ne@example.com", ["invalid_syntax"], "isemail ERR_CONSECUTIVEDOTS"],
  ["a comment", "jane(work)@example.com", ["invalid_syntax"], "RFC 5321 §4.1.2 has no CFWS (isemail DEPREC_COMMENT)"],
  ["folding whitespace", "jane @example.com", ["invalid_syntax"], "RFC 5321 §4.1.2 has no FWS (isemail CFWS_FWS)"],
  [
    "an IPv4 address literal",
    "jane@[192.0.2.1]",
    ["invalid_syntax"],
    "isemail RFC5321_ADDRESSLITERAL (refused by policy)",
  ],
  [
    "an IPv6 address literal",
    "jane@[IPv6:2001:db8::1]",
    ["invalid_syntax"],
    "isemail RFC5321_ADDRESSLITERAL (refused by policy)",
  ],
  [
    "an unquoted second at sign",
    "ja@ne@example.com",
    ["invalid_syntax"],
    "isemail ERR_ATEXT_AFTER_QS / validator.js invalid list",
  ],
  ["an unterminated quote", '"jane@example.com', ["invalid_syntax"], "isemail ERR_UNCLOSEDQUOTEDSTR"],
  ["a single-label domain", "jane@localhost", ["invalid_syntax"], "RFC 5321 §2.3.5 (fully-qualified names only)"],
  [
    "an all-numeric TLD (dotted quad without brackets)",
    "test@123.123.123.123",
    ["invalid_syntax"],
    "RFC 3696 §2; isemail RFC5321_TLDNUMERIC; validator.js allow_numeric_tld false",
  ],
  ["a leading dot in the domain", "test@.iana.org", ["invalid_syntax"], "isemail ERR_DOT_START"],
  [
    "a label starting with a hyphen",
    "jane@-example.com",
    ["invalid_syntax"],
    "RFC 1035 §2.3.1; isemail ERR_DOMAINHYPHENSTART",
  ],
  ["an underscore in the domain", "jane@ex_ample.com", ["invalid_syntax"], "RFC 1035 §2.3.1 LDH rule"],
  [
    "a label of 64 characters",
    `jane@${a(64)}.com`,
    ["invalid_syntax"],
    "RFC 1035 §2.3.4; isemail RFC5322_LABEL_TOOLONG",
  ],
  [
    "two stray characters before the domain",
    "test@#$gmail.com",
    ["invalid_syntax"],
    "typos: one stray character only is read as a slip",
  ],
  [
    "a local part of 65 octets",
    `${a(65)}@example.com`,
    ["local_part_too_long"],
    "RFC 5321 §4.5.3.1.1; isemail RFC5322_LOCAL_TOOLONG",
  ],
  [
    "a UTF-8 local part over 64 octets",
    `${"é".repeat(33)}@example.com`,
    ["local_part_too_long"],
    "RFC 6531 §3.3 (limits count octets)",
  ],
  [
    "a domain over 253 characters",
    `jane@${Array.from({ length: 5 }, () => a(60)).join(".")}.com`,
    ["domain_too_long"],
    "RFC 5321 §4.5.3.1.2; isemail RFC5322_DOMAIN_TOOLONG",
  ],
  [
    "both parts too long: both reasons",
    `${a(65)}@${domainOf(254)}`,
    ["local_part_too_long", "domain_too_long"],
    "syntax limits: every limit exceeded is named",
  ],
  [
    "an address of 255 octets whose parts each fit",
    `${a(64)}@${domainOf(190)}`,
    ["invalid_syntax"],
    "RFC 5321 §4.5.3.1.3; isemail RFC5322_TOOLONG; validator.js isEmail length tests",
  ],
  [
    "a domain of 253 octets, which leaves no room for a local part",
    `j@${domainOf(253)}`,
    ["invalid_syntax"],
    "RFC 5321 §4.5.3.1.2 allows it, §4.5.3.1.3 does not",
  ],
  [
    "a lone high surrogate in the local part",
    "ja\uD800ne@example.com",
    ["invalid_syntax"],
    "RFC 6531 §3.3: UTF-8 has no lone surrogate (RFC 3629 §3)",
  ],
  ["a lone low surrogate in the domain", "jane@exa\uDC00mple.com", ["invalid_syntax"], "RFC 3629 §3"],
  ["a lone surrogate inside quotes", '"ja\uDBFFne"@example.com', ["invalid_syntax"], "RFC 3629 §3"],
  ["a lone surrogate at the very end", "jane@example.com\uD83D", ["invalid_syntax"], "RFC 3629 §3"],
];
for (const [what, input, reasons, source] of invalid) {
  test(`parseEmail() fails with ${reasons.join(" and ")} for ${what} [${source}]`, () => {
    assert.deepEqual(parseEmail(input), { ok: false, reasons });
  });
}

test("domainOf() builds domains of the asked length", () => {
  for (const n of [189, 190, 252, 253, 254]) assert.equal(domainOf(n).length, n);
});

// Which domains can resolve at all: unresolvable ones never cost a DNS query (the mx check fails at once).
type Resolvable = [input: string, unresolvable: boolean, source: string];
const resolvable: Resolvable[] = [
  ["x@vrai.test", false, "RFC 6761 §6.2: .test goes to DNS like any name"],
  ["x@acme.example", false, "RFC 6761 §6.5: .example goes to DNS like any name"],
  ["x@example.com", false, "delegated .com (IANA root zone)"],
  ["x@a.localhost", true, "RFC 6761 §6.3: negative answer for every non-address query, no DNS query"],
  ["x@a.invalid", true, "RFC 6761 §6.4: always a negative response"],
  ["x@duckduckgogg42xjoc72x3sjasowoarfbgcmvfimaftt6twagswzczad.onion", true, "RFC 7686 §2: no DNS lookup"],
  ["x@printer.local", true, "RFC 6762 §3: multicast DNS only"],
  ["x@name.alt", true, "RFC 9476 §2: never in the DNS root"],
  ["jean@wanadoo.ff", true, "an undelegated TLD: not in the root zone"],
  ["test@acme.ifno", true, "mailcheck spec: ifno is not a TLD"],
  ["test@#gmail.com", true, "mailcheck spec: test@#gmail.com"],
];
for (const [input, unresolvable, source] of resolvable) {
  test(`parseEmail() marks ${input} as ${unresolvable ? "unresolvable" : "resolvable"} [${source}]`, () => {
    const result = parseEmail(input);
    assert.ok(result.ok, `${input} should parse`);
    assert.equal(result.email.unresolvable === true, unresolvable);
  });
}

const kinds: Array<[tld: string, kind: TldKind, source: string]> = [
  ["com", "delegated", "IANA root zone"],
  ["xn--p1ai", "delegated", "IANA root zone (.рф)"],
  ["test", "special_resolved", "RFC 6761 §6.2"],
  ["example", "special_resolved", "RFC 6761 §6.5"],
  ["localhost", "never_resolves", "RFC 6761 §6.3"],
  ["invalid", "never_resolves", "RFC 6761 §6.4"],
  ["onion", "never_resolves", "RFC 7686 §2"],
  ["ff", "undelegated", "IANA root zone has no .ff"],
];
for (const [tld, kind, source] of kinds) {
  test(`tldKind() says ${kind} for .${tld} [${source}]`, () => assert.equal(tldKind(tld), kind));
}

// Quotes that are not needed are semantically invisible: later checks see the plain mailbox.
const unquoted: Array<[input: string, local: string, quoted: boolean, source: string]> = [
  ['"jean.dupont"@gmail.com', "jean.dupont", false, "RFC 5322 §3.2.4: the same mailbox as unquoted"],
  ['"jean\\.dupont"@gmail.com', "jean.dupont", false, "RFC 5321 §4.1.2 quoted-pairSMTP"],
  ['"info"@example.com', "info", false, "RFC 5322 §3.2.4"],
  ['"jean dupont"@gmail.com', '"jean dupont"', true, "a space needs the quotes (RFC 5321 §4.1.2)"],
  ['"jean..dupont"@gmail.com', '"jean..dupont"', true, "two dots need the quotes (RFC 5321 §4.1.2 dot-string)"],
  ['""@example.com', '""', true, "an empty local part needs the quotes (isemail RFC5321_QUOTEDSTRING)"],
];
for (const [input, local, quoted, source] of unquoted) {
  test(`parseEmail() reads ${input} as local part ${local} [${source}]`, () => {
    const result = parseEmail(input);
    assert.ok(result.ok, `${input} should parse`);
    assert.equal(result.email.local, local);
    assert.equal(result.email.quoted, quoted);
  });
}
