// Every shared fixture file of ../shared/address/fixtures runs as a table (docs/address_rules.md's unit cases).
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { abbreviateStreet } from "../../src/address/normalize/abbreviate.ts";
import { isStreetType } from "../../src/address/normalize/street_types.ts";
import { cleanQuery } from "../../src/address/parse/clean_query.ts";
import { extractAddress } from "../../src/address/parse/extract_address.ts";
import {
  flagHousenumber,
  foldOrdinal,
  glueOrdinal,
  matchHousenumber,
  removeLeadingZeros,
} from "../../src/address/parse/house_number.ts";

const DIR = path.resolve("../shared/address/fixtures");
const skip = existsSync(DIR) ? false : `shared fixtures absent at ${DIR}`;

type Case = Record<string, unknown>;
const RUNNERS: Record<string, (c: Case) => void> = {
  "addok-france__test_clean_query.jsonl": (c) => assert.equal(cleanQuery(c.input as string), c.expected),
  "addok-france__test_extract_address.jsonl": (c) => assert.equal(extractAddress(c.input as string), c.expected),
  "addok-france__test_flag_housenumber.jsonl": (c) => assert.equal(flagHousenumber(c.inputs as string[]), c.expected),
  "addok-france__test_fold_ordinal.jsonl": (c) => assert.equal(foldOrdinal(c.input as string), c.expected),
  "addok-france__test_glue_ordinal.jsonl": (c) => assert.deepEqual(glueOrdinal(c.inputs as string[]), c.expected),
  "addok-france__test_match_housenumber.jsonl": (c) =>
    assert.equal(matchHousenumber(c.input as string), c.expected === false ? null : c.expected),
  "addok-france__test_remove_leading_zeros.jsonl": (c) =>
    assert.equal(removeLeadingZeros(c.input as string), c.expected),
  "addok-france__test_street_type_patterns.jsonl": (c) =>
    assert.equal(isStreetType(c.street_type as string), c.should_match),
  "normadresse__abrev32_tests.jsonl": (c) => assert.equal(abbreviateStreet(c.input as string), c.expected_upper),
};

describe("shared address fixtures", { skip }, () => {
  const files = skip
    ? []
    : readdirSync(DIR)
        .filter((f) => f.endsWith(".jsonl"))
        .sort();
  test("every fixture file has a runner", () => {
    for (const f of files) assert.ok(RUNNERS[f], `no runner for ${f}`);
  });
  for (const file of files) {
    const run = RUNNERS[file];
    if (!run) continue;
    const cases = readFileSync(path.join(DIR, file), "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l) as Case);
    describe(file, () => {
      for (const [i, c] of cases.entries()) {
        test(`#${i + 1} ${JSON.stringify(c.input ?? c.inputs ?? c.street_type)}`, () => run(c));
      }
    });
  }
});
