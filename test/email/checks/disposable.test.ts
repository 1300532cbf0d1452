import assert from "node:assert/strict";
import { test } from "node:test";
import { isDisposableDomain } from "../../../src/email/checks/disposable.ts";

const cases: Array<[string, boolean, string]> = [
  ["mailinator.com", true, "a listed domain"],
  ["yopmail.com", true, "a listed French throwaway domain"],
  ["eu.mailinator.com", true, "a subdomain of a listed domain"],
  ["33mail.com", true, "a domain of the wildcard list"],
  ["someone.33mail.com", true, "a subdomain of a wildcard domain"],
  ["gmail.com", false, "a mailbox provider"],
  ["orange.fr", false, "a French ISP"],
  ["com", false, "a bare TLD"],
];
for (const [domain, expected, what] of cases) {
  test(`isDisposableDomain() is ${expected} for ${what} (${domain})`, () => {
    assert.equal(isDisposableDomain(domain), expected);
  });
}
