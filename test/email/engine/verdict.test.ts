import assert from "node:assert/strict";
import { test } from "node:test";
import type { EmailReason, Verdict } from "../../../src/email/types.ts";
import { verdict } from "../../../src/email/verdict.ts";
import { REASON_VERDICT } from "../../../src/email/vocabulary.ts";

const cases: Array<[EmailReason[], Verdict]> = [
  [[], "deliverable"],
  [["catch_all_domain"], "unknown"],
  [["greylisted"], "unknown"],
  [["role_address"], "risky"],
  [["role_address", "catch_all_domain"], "risky"],
  [["role_address", "mailbox_not_found"], "undeliverable"],
  [["mailbox_full", "probe_timeout"], "risky"],
  [["probe_unavailable", "disposable_domain", "invalid_syntax"], "undeliverable"],
];

for (const [reasons, expected] of cases) {
  test(`verdict() is ${expected} for [${reasons.join(", ")}]`, () => {
    assert.equal(verdict(reasons), expected);
  });
}

test("verdict() maps every reason of docs/contract.md §4 to its verdict", () => {
  const expected: Record<Verdict, EmailReason[]> = {
    undeliverable: [
      "invalid_syntax",
      "local_part_too_long",
      "domain_too_long",
      "provider_rule_violation",
      "domain_typo",
      "no_mx_record",
      "domain_does_not_resolve",
      "mailbox_not_found",
    ],
    risky: ["disposable_domain", "role_address", "mailbox_full"],
    unknown: ["catch_all_domain", "greylisted", "probe_timeout", "probe_unavailable"],
    deliverable: [],
  };
  for (const [v, reasons] of Object.entries(expected)) for (const r of reasons) assert.equal(REASON_VERDICT[r], v, r);
  assert.equal(Object.keys(REASON_VERDICT).length, 15);
});
