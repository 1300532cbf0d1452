// A word of a street's name left out, with the type and the house number written: "2 Impasse du Moulin" is Impasse
// Sous-le-Moulin, which has the 2, over Rue du Moulin (another type) or Rue des Faines for "Rue des Haies" (two
// letters); match/left_out_words.ts, wordsLeftOutStreets. Over an index written here for Froidefontaine (90051,
// 90140), with streets named as villages of the Territoire de Belfort name theirs.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { AddressMatcher } from "../../src/address/match.ts";
import { compileReference } from "../../src/address/reference/compile.ts";
import { packReference } from "../../src/address/reference/pack_reference.ts";
import { Reference } from "../../src/address/reference/reference.ts";
import type { AddressReason, AddressVerdict } from "../../src/address/types.ts";
import { streetRows, writtenIndex } from "./written_index.ts";

const at = { codeInsee: "90051", codePostal: "90140", acheminement: "FROIDEFONTAINE" };
const matcher = new AddressMatcher({
  indexes: [
    writtenIndex("90", [
      ...streetRows("Rue du Moulin", [1, 2, 3, 4, 5, 7], at),
      ...streetRows("Impasse Sous-le-Moulin", [2, 4], at),
      ...streetRows("Rue sous les Vignes", [3, 5], at),
      ...streetRows("Rue des Faines", [1, 2, 3], at),
      ...streetRows("Rue sous les Haies", [6], at),
      ...streetRows("Rue sur la Côte", [1, 2], at),
      ...streetRows("Chemin du Vieux Pressoir", [8], at),
    ]),
  ],
  reference: new Reference(packReference(compileReference())),
});

const rows: [string, AddressVerdict, AddressReason[], string | null, string][] = [
  [
    "2 Impasse du Moulin, 90140 Froidefontaine",
    "corrected",
    ["street_corrected"],
    "2 Impasse Sous-le-Moulin, 90140 Froidefontaine",
    "the impasse has the 2 (it was Rue du Moulin, another type)",
  ],
  [
    "6 Rue des Haies, 90140 Froidefontaine",
    "corrected",
    ["street_corrected"],
    "6 Rue sous les Haies, 90140 Froidefontaine",
    "over Rue des Faines, two letters away, which lacks the 6",
  ],
  [
    "5 Rue des Vignes, 90140 Froidefontaine",
    "corrected",
    ["street_corrected"],
    "5 Rue sous les Vignes, 90140 Froidefontaine",
    "no Rue des Vignes there",
  ],
  [
    "8 Chemin du Pressoir, 90140 Froidefontaine",
    "corrected",
    ["street_corrected"],
    "8 Chemin du Vieux Pressoir, 90140 Froidefontaine",
    "a word inside the name",
  ],
  [
    "7 Impasse du Moulin, 90140 Froidefontaine",
    "corrected",
    ["street_corrected"],
    "7 Rue du Moulin, 90140 Froidefontaine",
    "the impasse lacks the 7: the type was the slip",
  ],
  [
    "2 Rue de la Côte, 90140 Froidefontaine",
    "nonexistent",
    ["street_not_found"],
    null,
    "'sur' is never left out of what was written the other way: Rue sur la Côte is no Rue de la Côte",
  ],
];

describe("a word of the name left out, with the type and the number written", () => {
  for (const [line, verdict, reasons, normalized, why] of rows) {
    test(`"${line}" (${why})`, () => {
      const r = matcher.match({ line });
      assert.deepEqual({ verdict: r.verdict, reasons: [...r.reasons].sort() }, { verdict, reasons });
      assert.equal(r.normalized?.line ?? null, normalized);
    });
  }
});
