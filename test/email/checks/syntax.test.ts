import assert from "node:assert/strict";
import { test } from "node:test";
import { parseEmail } from "../../../src/email/checks/syntax.ts";

const valid: Array<[string, string, string]> = [
  ["plain address", "jane.doe@example.com", "example.com"],
  ["plus tag", "jane+news@example.fr", "example.fr"],
  ["every atext symbol", "a!#$%&'*+-/=?^_`{|}~z@example.org", "example.org"],
  ["quoted local part with a space", '"jane doe"@example.com', "example.com"],
  ["quoted local part with an escaped quote", '"ja\\"ne"@example.com', "example.com"],
  ["UTF-8 local part (RFC 6531)", "josé@example.fr", "example.fr"],
  ["IDN domain converted to ASCII", "jane@exämple.de", "xn--exmple-cua.de"],
  ["upper-case domain lowered", "Jane@EXAMPLE.COM", "example.com"],
  ["multi-label public suffix", "jane@example.co.uk", "example.co.uk"],
  ["local part of exactly 64 octets", `${"a".repeat(64)}@example.com`, "example.com"],
  ["TLD slip kept for the typo check", "jane@example.con", "example.con"],
];
for (const [what, input, domain] of valid) {
  test(`parseEmail() accepts a ${what}`, () => {
    const result = parseEmail(input);
    assert.ok(result.ok, `${input} should parse`);
    assert.equal(result.email.domain, domain);
  });
}

const invalid: Array<[string, string, "invalid_syntax" | "local_part_too_long" | "domain_too_long"]> = [
  ["no at sign", "jane.example.com", "invalid_syntax"],
  ["empty local part", "@example.com", "invalid_syntax"],
  ["empty domain", "jane@", "invalid_syntax"],
  ["leading dot", ".jane@example.com", "invalid_syntax"],
  ["trailing dot", "jane.@example.com", "invalid_syntax"],
  ["two dots in a row", "ja..ne@example.com", "invalid_syntax"],
  ["a comment", "jane(work)@example.com", "invalid_syntax"],
  ["folding whitespace", "jane @example.com", "invalid_syntax"],
  ["an IPv4 address literal", "jane@[192.0.2.1]", "invalid_syntax"],
  ["an IPv6 address literal", "jane@[IPv6:2001:db8::1]", "invalid_syntax"],
  ["an unquoted second at sign", "ja@ne@example.com", "invalid_syntax"],
  ["an unterminated quote", '"jane@example.com', "invalid_syntax"],
  ["a single-label domain", "jane@localhost", "invalid_syntax"],
  ["an unknown TLD", "jane@example.notatld", "invalid_syntax"],
  ["the reserved .test TLD", "jane@example.test", "invalid_syntax"],
  ["a label starting with a hyphen", "jane@-example.com", "invalid_syntax"],
  ["an underscore in the domain", "jane@ex_ample.com", "invalid_syntax"],
  ["a label of 64 characters", `jane@${"a".repeat(64)}.com`, "invalid_syntax"],
  ["a local part of 65 octets", `${"a".repeat(65)}@example.com`, "local_part_too_long"],
  ["a UTF-8 local part over 64 octets", `${"é".repeat(33)}@example.com`, "local_part_too_long"],
  ["a domain over 253 characters", `jane@${Array.from({ length: 5 }, () => "a".repeat(60)).join(".")}.com`, "domain_too_long"],
];
for (const [what, input, reason] of invalid) {
  test(`parseEmail() fails with ${reason} for ${what}`, () => {
    assert.deepEqual(parseEmail(input), { ok: false, reason });
  });
}
