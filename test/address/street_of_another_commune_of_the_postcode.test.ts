// A street written with the right postcode and a commune that lacks it, where another commune of that postcode has
// it by its exact name: that commune's street (`city_corrected`), never a slip of it inside the commune written with
// a number that street does not list (match/place.ts, the postcode's other communes as the plan's last tier). Over an
// index written here for two communes of 90140 (Froidefontaine 90051, Bourogne 90017).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { AddressMatcher } from "../../src/address/match.ts";
import { compileReference } from "../../src/address/reference/compile.ts";
import { packReference } from "../../src/address/reference/pack_reference.ts";
import { Reference } from "../../src/address/reference/reference.ts";
import type { AddressReason, AddressVerdict } from "../../src/address/types.ts";
import { streetRows, writtenIndex } from "./written_index.ts";

const froidefontaine = { codeInsee: "90051", codePostal: "90140", acheminement: "FROIDEFONTAINE" };
const bourogne = { codeInsee: "90017", codePostal: "90140", acheminement: "BOUROGNE" };
const matcher = new AddressMatcher({
  indexes: [
    writtenIndex("90", [
      ...streetRows("Rue de l'Égalité", [1, 2, 3], froidefontaine),
      ...streetRows("Rue de l'Abeille", [1, 2, 3], froidefontaine),
      ...streetRows("Rue de l'Église", [1, 2, 3, 4, 5], bourogne),
      ...streetRows("Rue de la Treille", [30, 32], bourogne),
    ]),
  ],
  reference: new Reference(packReference(compileReference())),
});

const rows: [string, AddressVerdict, AddressReason[], string | null, string][] = [
  [
    "5 Rue de l'Église, 90140 Froidefontaine",
    "corrected",
    ["city_corrected"],
    "5 Rue de l'Église, 90140 Bourogne",
    "was Rue de l'Égalité in Froidefontaine, which has no 5",
  ],
  [
    "2 Rue de l'Église, 90140 Froidefontaine",
    "corrected",
    ["city_corrected"],
    "2 Rue de l'Église, 90140 Bourogne",
    "an exact name elsewhere in the postcode before two slips here",
  ],
  [
    "32 Rue de la Treille, 90140 Froidefontaine",
    "corrected",
    ["city_corrected"],
    "32 Rue de la Treille, 90140 Bourogne",
    "was Rue de l'Abeille, which has no 32",
  ],
  [
    "2 Rue de l'Égalité, 90140 Froidefontaine",
    "deliverable",
    [],
    "2 Rue de l'Égalité, 90140 Froidefontaine",
    "the commune written still comes first",
  ],
];

describe("a street of another commune of the postcode written", () => {
  for (const [line, verdict, reasons, normalized, why] of rows) {
    test(`"${line}" (${why})`, () => {
      const r = matcher.match({ line });
      assert.deepEqual({ verdict: r.verdict, reasons: [...r.reasons].sort() }, { verdict, reasons });
      assert.equal(r.normalized?.line ?? null, normalized);
    });
  }
});
