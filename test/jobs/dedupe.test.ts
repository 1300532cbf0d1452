import assert from "node:assert/strict";
import { it } from "node:test";
import { dedupeEmails } from "../../src/jobs/dedupe.ts";

const CASES: [string, string[], string[]][] = [
  ["keeps distinct addresses in submission order", ["b@x.fr", "a@x.fr"], ["b@x.fr", "a@x.fr"]],
  ["drops a later copy that differs only by case", ["Jane@X.fr", "jane@x.FR"], ["Jane@X.fr"]],
  ["trims the kept spelling and matches trimmed copies", ["  a@x.fr ", "a@x.fr"], ["a@x.fr"]],
  ["keeps the first spelling, not the most frequent", ["A@x.fr", "a@x.fr", "a@x.fr"], ["A@x.fr"]],
  ["returns nothing for nothing", [], []],
];

for (const [name, input, expected] of CASES) {
  it(`dedupeEmails() ${name}`, () => {
    assert.deepEqual(dedupeEmails(input), expected);
  });
}
