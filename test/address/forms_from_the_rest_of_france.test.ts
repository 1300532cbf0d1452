// Forms written across France that the Paris-tuned reader missed: "Cap." for Capitaine (match/search_order.ts,
// ambiguousAbbreviations: "Cap" is also a headland's word, which the key keeps), and a town after a comma whose name
// begins with a street type's word and a hyphen ("…, Pointe-à-Pitre", "…, Bourg-en-Bresse": parse/parse_address.ts),
// which was read as a street, leaving the line without a city. The lines over the real Paris file skip where
// ../shared/data is absent; Guadeloupe and the Ain are outside its index.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { AddressMatcher } from "../../src/address/match.ts";
import { parseAddress } from "../../src/address/parse/parse_address.ts";
import type { AddressReason, AddressVerdict } from "../../src/address/types.ts";
import { parisMatcher, PARIS_SKIP } from "./paris_matcher.ts";

describe("a town whose name begins with a street type's word, after a comma", () => {
  for (const [line, city] of [
    ["12 rue de la Gare, Pointe-à-Pitre", "Pointe-à-Pitre"],
    ["12 rue de la Gare, Bourg-en-Bresse", "Bourg-en-Bresse"],
    ["3 rue Pasteur, Pont-Audemer", "Pont-Audemer"],
    ["1 quai de la Douane, Port-Vendres", "Port-Vendres"],
  ] as const) {
    test(`"${line}" has the city ${city}`, () => {
      const p = parseAddress({ line });
      assert.equal(p.city, city);
      assert.equal(p.houseNumber, line.split(" ")[0]);
    });
  }
  test('"Pont Neuf" after a comma, no hyphen, stays a street', () => {
    assert.equal(parseAddress({ line: "Paris, Pont Neuf" }).street, "Pont Neuf");
  });
});

describe("forms from the rest of France, over the Paris file", { skip: PARIS_SKIP }, () => {
  let matcher: AddressMatcher;
  let remove: () => void;
  before(async () => ({ matcher, remove } = await parisMatcher()));
  after(() => remove());

  const rows: [string, AddressVerdict, AddressReason[], string | null, string][] = [
    ["10 rue du Cap. Ferber 75020 Paris", "deliverable", [], "Rue du Capitaine Ferber", "was street_not_found"],
    ["10 rue du Cap Ferber 75020 Paris", "deliverable", [], "Rue du Capitaine Ferber", "without the period"],
    ["3 allée du Cap Dronne 75015 Paris", "deliverable", [], "Allée du Capitaine Dronne", "another type"],
    ["10 rue du Cap 75020 Paris", "nonexistent", ["street_not_found"], null, "a title alone names no one"],
    [
      "12 rue de Rivoli, Pointe-à-Pitre",
      "unknown",
      ["missing_postcode", "postcode_not_covered"],
      null,
      "Guadeloupe is not indexed here (it was Paris's Rue de Rivoli, missing_city)",
    ],
  ];
  for (const [line, verdict, reasons, street, why] of rows) {
    test(`"${line}" (${why})`, () => {
      const r = matcher.match({ line });
      assert.deepEqual({ verdict: r.verdict, reasons: [...r.reasons].sort() }, { verdict, reasons });
      assert.equal(r.normalized?.street ?? null, street);
    });
  }
});
