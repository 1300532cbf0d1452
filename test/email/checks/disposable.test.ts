// isDisposableDomain() against the list of disposable-email-domains-js (the community blocklist
// disposable-email-domains/disposable-email-domains, republished weekly on npm).
import assert from "node:assert/strict";
import { test } from "node:test";
import { isDisposableDomain } from "../../../src/email/checks/disposable.ts";

const cases: Array<[domain: string, expected: boolean, what: string]> = [
  ["mailinator.com", true, "a listed domain"],
  ["yopmail.com", true, "a listed French throwaway domain"],
  ["yopmail.fr", true, "a listed French throwaway domain"],
  ["jetable.org", true, "a listed French throwaway domain"],
  ["emailondeck.com", true, "a domain the previous package missed"],
  ["guerrillamail.com", true, "a listed domain"],
  ["eu.mailinator.com", true, "a subdomain of a listed domain"],
  ["a.b.yopmail.com", true, "a deeper subdomain of a listed domain"],
  ["gmail.com", false, "a mailbox provider"],
  ["orange.fr", false, "a French ISP"],
  ["laposte.net", false, "a French webmail"],
  ["proton.me", false, "a privacy provider, not a throwaway one"],
  ["mailinator.com.example.fr", false, "a listed name inside another domain"],
  ["com", false, "a bare TLD"],
];
for (const [domain, expected, what] of cases) {
  test(`isDisposableDomain() is ${expected} for ${what} (${domain})`, () => {
    assert.equal(isDisposableDomain(domain), expected);
  });
}
