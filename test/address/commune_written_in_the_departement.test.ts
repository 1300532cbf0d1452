// A postcode beside a real commune of the same département that it does not serve: the commune is written as meant and
// the postcode is the slip ("16 Rue des Champs Fourchins, 90150 Roppe" is Roppe's, 90380), never a slip of the
// postcode's own commune one letter away (Reppe, 90150) whose streets would then be searched for a near name
// (match/place.ts). Over an index written here for Roppe (90087) and Reppe (90084), with invented streets.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { AddressMatcher } from "../../src/address/match.ts";
import { compileReference } from "../../src/address/reference/compile.ts";
import { packReference } from "../../src/address/reference/pack_reference.ts";
import { Reference } from "../../src/address/reference/reference.ts";
import type { AddressReason, AddressVerdict } from "../../src/address/types.ts";
import { streetRows, writtenIndex } from "./written_index.ts";

const roppe = { codeInsee: "90087", codePostal: "90380", acheminement: "ROPPE" };
const reppe = { codeInsee: "90084", codePostal: "90150", acheminement: "REPPE" };
const matcher = new AddressMatcher({
  indexes: [
    writtenIndex("90", [
      ...streetRows("Rue des Champs Fourchins", [10, 12, 14, 16], roppe),
      ...streetRows("Rue des Champs Fourchus", [10, 12, 14, 16], reppe),
      ...streetRows("Rue de la Gare", [1, 2, 3], reppe),
    ]),
  ],
  reference: new Reference(packReference(compileReference())),
});

const rows: [string, AddressVerdict, AddressReason[], string | null, string][] = [
  [
    "16 Rue des Champs Fourchins, 90150 Roppe",
    "corrected",
    ["postcode_corrected"],
    "16 Rue des Champs Fourchins, 90380 Roppe",
    "Roppe is a commune: its street, under its postcode (Roppe was read as a slip of Reppe)",
  ],
  [
    "16 Rue des Champs Fourchin, 90150 Roppe",
    "corrected",
    ["postcode_corrected", "street_corrected"],
    "16 Rue des Champs Fourchins, 90380 Roppe",
    "a slip of the street too: the written commune's street before a near name in the postcode's",
  ],
  [
    "2 Rue de la Gare, 90150 Roppe",
    "corrected",
    ["city_corrected"],
    "2 Rue de la Gare, 90150 Reppe",
    "a street only the postcode's commune has: the city was the slip",
  ],
  [
    "16 Rue des Champs Fourchins, 90380 Roppe",
    "deliverable",
    [],
    "16 Rue des Champs Fourchins, 90380 Roppe",
    "the right pair",
  ],
  [
    "16 Rue des Champs Fourchus, 90150 Rappe",
    "corrected",
    ["city_corrected"],
    "16 Rue des Champs Fourchus, 90150 Reppe",
    "a name that is no commune, one letter from the postcode's: still a slip of it",
  ],
];

describe("a commune of the postcode's département written beside a postcode it does not have", () => {
  for (const [line, verdict, reasons, normalized, why] of rows) {
    test(`"${line}" (${why})`, () => {
      const r = matcher.match({ line });
      assert.deepEqual({ verdict: r.verdict, reasons: [...r.reasons].sort() }, { verdict, reasons });
      assert.equal(r.normalized?.line ?? null, normalized);
    });
  }
});
