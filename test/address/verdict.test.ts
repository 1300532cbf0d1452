import assert from "node:assert/strict";
import { test } from "node:test";
import { addressVerdict, sortReasons } from "../../src/address/verdict.ts";
import { ADDRESS_REASONS } from "../../src/address/vocabulary.ts";
import type { AddressReason, AddressVerdict } from "../../src/address/types.ts";

/**
 * Each reason alone, written out from docs/contract.md §4 (not read from the code's table, so that the two can
 * disagree): country_not_covered and postcode_not_covered → unknown; street_not_found, house_number_out_of_range and
 * postcode_city_mismatch → nonexistent; missing_house_number and the other missing_* → incomplete; postcode_corrected,
 * city_corrected and street_corrected → corrected.
 */
const CONTRACT: Array<[AddressReason, AddressVerdict]> = [
  ["country_not_covered", "unknown"],
  ["postcode_not_covered", "unknown"],
  ["street_not_found", "nonexistent"],
  ["house_number_out_of_range", "nonexistent"],
  ["postcode_city_mismatch", "nonexistent"],
  ["missing_house_number", "incomplete"],
  ["missing_street", "incomplete"],
  ["missing_postcode", "incomplete"],
  ["missing_city", "incomplete"],
  ["postcode_corrected", "corrected"],
  ["city_corrected", "corrected"],
  ["street_corrected", "corrected"],
];

/**
 * Combinations, for the precedence unknown > nonexistent > incomplete > corrected > deliverable: each pair of levels
 * in both orders, then several levels at once and a repeated reason.
 */
const PRECEDENCE: Array<[AddressReason[], AddressVerdict]> = [
  [["postcode_not_covered", "street_not_found"], "unknown"],
  [["house_number_out_of_range", "country_not_covered"], "unknown"],
  [["country_not_covered", "missing_city"], "unknown"],
  [["missing_house_number", "postcode_not_covered"], "unknown"],
  [["postcode_not_covered", "city_corrected"], "unknown"],
  [["street_corrected", "country_not_covered"], "unknown"],
  [["postcode_city_mismatch", "missing_street"], "nonexistent"],
  [["missing_house_number", "house_number_out_of_range"], "nonexistent"],
  [["street_not_found", "postcode_corrected"], "nonexistent"],
  [["street_corrected", "postcode_city_mismatch"], "nonexistent"],
  [["missing_postcode", "city_corrected"], "incomplete"],
  [["street_corrected", "missing_house_number"], "incomplete"],
  [["street_corrected", "missing_postcode", "street_not_found", "country_not_covered"], "unknown"],
  [["street_corrected", "missing_postcode", "street_not_found"], "nonexistent"],
  [["postcode_corrected", "city_corrected", "street_corrected"], "corrected"],
  [["street_corrected", "street_corrected"], "corrected"],
];

test("addressVerdict() is deliverable without reasons", () => assert.equal(addressVerdict([]), "deliverable"));

test("the contract table names every reason of the vocabulary once", () =>
  assert.deepEqual(CONTRACT.map(([reason]) => reason).sort(), [...ADDRESS_REASONS].sort()));

for (const [reason, verdict] of CONTRACT) {
  test(`addressVerdict() maps ${reason} alone to ${verdict}`, () => assert.equal(addressVerdict([reason]), verdict));
}

for (const [reasons, verdict] of PRECEDENCE) {
  test(`addressVerdict() gives ${verdict} for ${reasons.join(" + ")}`, () =>
    assert.equal(addressVerdict(reasons), verdict));
}

test("addressVerdict() follows unknown > nonexistent > incomplete > corrected > deliverable", () => {
  assert.equal(addressVerdict(["street_corrected", "missing_house_number"]), "incomplete");
  assert.equal(addressVerdict(["missing_city", "street_not_found"]), "nonexistent");
  assert.equal(addressVerdict(["street_not_found", "postcode_not_covered"]), "unknown");
  assert.equal(addressVerdict(["postcode_corrected", "city_corrected"]), "corrected");
});

test("sortReasons() removes duplicates and puts the worst first", () => {
  assert.deepEqual(sortReasons(["street_corrected", "missing_city", "street_corrected", "street_not_found"]), [
    "street_not_found",
    "missing_city",
    "street_corrected",
  ]);
});
