import assert from "node:assert/strict";
import { test } from "node:test";
import { addressVerdict, REASON_VERDICT, sortReasons } from "../../src/address/verdict.ts";
import type { AddressReason } from "../../src/address/types.ts";

test("addressVerdict() is deliverable without reasons", () => assert.equal(addressVerdict([]), "deliverable"));

for (const [reason, verdict] of Object.entries(REASON_VERDICT)) {
  test(`addressVerdict() maps ${reason} alone to ${verdict}`, () => assert.equal(addressVerdict([reason as AddressReason]), verdict));
}

test("addressVerdict() follows unknown > nonexistent > incomplete > corrected > deliverable", () => {
  assert.equal(addressVerdict(["street_corrected", "missing_house_number"]), "incomplete");
  assert.equal(addressVerdict(["missing_city", "street_not_found"]), "nonexistent");
  assert.equal(addressVerdict(["street_not_found", "postcode_not_covered"]), "unknown");
  assert.equal(addressVerdict(["postcode_corrected", "city_corrected"]), "corrected");
});

test("sortReasons() removes duplicates and puts the worst first", () => {
  assert.deepEqual(sortReasons(["street_corrected", "missing_city", "street_corrected", "street_not_found"]), ["street_not_found", "missing_city", "street_corrected"]);
});
