import assert from "node:assert/strict";
import { test } from "node:test";
import { isRoleAddress } from "../../../src/email/checks/role.ts";

const email = (local: string, quoted = false) => ({ local, domain: "example.com", utf8Local: false, quoted });

const cases: Array<[string, boolean]> = [
  ["info", true],
  ["INFO", true],
  ["sales", true],
  ["postmaster", true],
  ["support+fr", true],
  ["jane.doe", false],
  ["informatique.jane", false],
];
for (const [local, expected] of cases) {
  test(`isRoleAddress() is ${expected} for ${local}@`, () => {
    assert.equal(isRoleAddress(email(local)), expected);
  });
}

test("isRoleAddress() ignores quoted local parts", () => {
  assert.equal(isRoleAddress(email('"info"', true)), false);
});
