// A postcode left out is `incomplete`, not `nonexistent`, when the street takes the house number in one of its
// communes; a postcode of no département names no place whatever the city; a postcode the answer changes is always
// said to be corrected. Over the real Paris file (skipped where ../shared/data is absent); Belfort (90) and New
// Caledonia are outside its index.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { AddressMatcher } from "../../src/address/match.ts";
import type { AddressInput, AddressReason, AddressVerdict } from "../../src/address/types.ts";
import { parisMatcher, PARIS_SKIP } from "./paris_matcher.ts";

interface Row {
  input: AddressInput;
  verdict: AddressVerdict;
  reasons: AddressReason[];
  /** The normalized line, or null when the answer has none. */
  line: string | null;
  why: string;
}

describe("postcodes left out or of nowhere, over the Paris file", { skip: PARIS_SKIP }, () => {
  let matcher: AddressMatcher;
  let remove: () => void;
  before(async () => ({ matcher, remove } = await parisMatcher()));
  after(() => remove());

  const rows: Row[] = [
    {
      input: { house_number: "149", street: "Rue Haxo", city: "Paris" },
      verdict: "incomplete",
      reasons: ["missing_postcode"],
      line: "149 Rue Haxo, 75019 Paris",
      why: "Rue Haxo is in the 19th and the 20th; 149, unlisted, lies within the 19th's numbers (it was nonexistent)",
    },
    {
      input: { line: "149 Rue Haxo, Paris" },
      verdict: "incomplete",
      reasons: ["missing_postcode"],
      line: "149 Rue Haxo, 75019 Paris",
      why: "the same as a line",
    },
    {
      input: { line: "147 Rue Haxo, Paris" },
      verdict: "incomplete",
      reasons: ["missing_postcode"],
      line: "147 Rue Haxo, 75019 Paris",
      why: "a number the 19th lists",
    },
    {
      input: { line: "300 Rue Haxo, Paris" },
      verdict: "nonexistent",
      reasons: ["house_number_out_of_range", "missing_postcode"],
      line: null,
      why: "a number neither part of the street takes",
    },
    {
      input: { line: "12 rue de la Gare, 99999 Belfort" },
      verdict: "nonexistent",
      reasons: ["postcode_city_mismatch"],
      line: null,
      why: "99 is no département: the address names no place (it was unknown, postcode_not_covered)",
    },
    {
      input: { line: "12 rue de la Gare, 00100 Belfort" },
      verdict: "nonexistent",
      reasons: ["postcode_city_mismatch"],
      line: null,
      why: "nor is 00",
    },
    {
      input: { line: "12 rue de la Gare, 98838 Houailou" },
      verdict: "unknown",
      reasons: ["postcode_not_covered"],
      line: null,
      why: "a secondary postcode of New Caledonia, real though no package lists it",
    },
    {
      input: { line: "12 rue de la Gare, 90000 Belfort" },
      verdict: "unknown",
      reasons: ["postcode_not_covered"],
      line: null,
      why: "Belfort's own postcode, outside the index",
    },
    {
      input: { line: "12 rue de Rivoli, 99999 Paris" },
      verdict: "corrected",
      reasons: ["postcode_corrected"],
      line: "12 Rue de Rivoli, 75004 Paris",
      why: "inside the index the street settles the postcode",
    },
    {
      input: { line: "99999 Belfort" },
      verdict: "unknown",
      reasons: ["missing_street", "postcode_corrected", "postcode_not_covered"],
      line: "90000 Belfort",
      why: "no street: the place is Belfort's, under its own postcode, which the answer says it changed",
    },
  ];
  for (const row of rows) {
    test(`${JSON.stringify(row.input)}: ${row.why}`, () => {
      const r = matcher.match(row.input);
      assert.deepEqual(
        { verdict: r.verdict, reasons: [...r.reasons].sort() },
        { verdict: row.verdict, reasons: [...row.reasons].sort() },
      );
      assert.equal(r.normalized?.line ?? null, row.line);
    });
  }

  // Every postcode of Paris and a few of nowhere, under streets of one or several arrondissements, with and without a
  // number and a city: whatever the answer, a postcode it prints that is not the one written is said to be corrected.
  test("a postcode the answer changes always carries postcode_corrected", () => {
    const postcodes = [
      ...Array.from({ length: 20 }, (_, i) => `750${String(i + 1).padStart(2, "0")}`),
      "75116",
      "75000",
      "75100",
      "99999",
      "92100",
    ];
    const streets = [
      "12 rue de Rivoli",
      "149 Rue Haxo",
      "Avenue du Maine",
      "3 allée du Cap Dronne",
      "12 rue de la Paix",
    ];
    const unsaid: string[] = [];
    for (const street of streets) {
      for (const postcode of postcodes) {
        for (const city of [" Paris", ""]) {
          const line = `${street}, ${postcode}${city}`;
          const r = matcher.match({ line });
          const printed = r.normalized?.postcode;
          if (printed && printed !== postcode && !r.reasons.includes("postcode_corrected")) {
            unsaid.push(`${line} → ${r.normalized?.line} [${r.reasons.join(", ")}]`);
          }
        }
      }
    }
    assert.deepEqual(unsaid, []);
  });
});
