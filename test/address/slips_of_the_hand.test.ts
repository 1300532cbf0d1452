// Letters left out, typed twice or swapped: two such slips in a short name ("Rue des Hles" for Rue des Halles) are found
// when one street of the arrondissement is clearly nearest, and stay street_not_found when another is as near
// (match/fuzzy_budget.ts, SLIP_MIN_LENGTH and SLIP_LEAD; street_search.ts, stretchIsClear). The lines are real
// addresses of the Paris file with two letters wrong; the suite skips where ../shared/data is absent.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { AddressMatcher } from "../../src/address/match.ts";
import { slipDistance, stringDistance } from "../../src/text/edit_distance.ts";
import { parisMatcher, PARIS_SKIP } from "./paris_matcher.ts";

const bytes = (text: string) => Uint8Array.from(text, (ch) => ch.charCodeAt(0));
const slips = (a: string, b: string) =>
  slipDistance(bytes(a), bytes(b), { aStart: 0, aEnd: a.length, bStart: 0, bEnd: b.length, max: 4 });

describe("slipDistance()", () => {
  test("counts letters left out, typed twice or swapped as one edit each, as the distance does", () => {
    assert.equal(slips("hles", "halles"), 2);
    assert.equal(slips("rivolli", "rivoli"), 1);
    assert.equal(slips("chervel", "chevreul"), 2);
    assert.equal(slips("magnea", "magenta"), 2);
  });
  test("counts a letter replaced by another as two, where the distance counts one", () => {
    assert.equal(stringDistance("menier", "messier", 3), 2);
    assert.equal(slips("menier", "messier"), 3);
    assert.equal(slips("cara", "cure"), 4);
  });
  test("answers max + 1 past the bound", () => {
    assert.equal(slipDistance(bytes("abc"), bytes("xyz"), { aStart: 0, aEnd: 3, bStart: 0, bEnd: 3, max: 2 }), 3);
  });
});

describe("two slips of the hand in a street's name, over the Paris file", { skip: PARIS_SKIP }, () => {
  let matcher: AddressMatcher;
  let remove: () => void;
  before(async () => ({ matcher, remove } = await parisMatcher()));
  after(() => remove());

  // Each was street_not_found: a name of four letters had no second edit, and one of five to seven needed a lead of
  // two edits of any kind over every other street of the arrondissement.
  const found: [string, string, string][] = [
    ["11 Rue des Hles, 75001 Paris", "Rue des Halles", "two letters left out of a short name"],
    ["3 Rue des Fogs, 75002 Paris", "Rue des Forges", "two letters left out"],
    ["50 Rue d'Arot, 75002 Paris", "Rue d'Argout", "after an elided article"],
    ["81 Boulevard de Cchy, 75009 Paris", "Boulevard de Clichy", "a boulevard"],
    ["5 Rue Henn, 75009 Paris", "Rue Henner", "the end of the name left out"],
    ["5 Rue Thui, 75005 Paris", "Rue Thouin", "two letters left out inside and at the end"],
    ["23 Rue Bzou, 75014 Paris", "Rue Bezout", "a letter and the silent end left out"],
    ["12 Rue de Muet, 75016 Paris", "Rue de Musset", "a double letter left out"],
    ["14 Cité Duot, 75011 Paris", "Cité Dupont", "another type"],
    ["5 Square Mnot, 75016 Paris", "Square Mignot", "a square"],
    ["10 Rue de Magnea, 75019 Paris", "Rue de Magenta", "two letters swapped and one left out"],
    ["9 Rue Chervel, 75011 Paris", "Rue Chevreul", "two swapped and one left out; Rue du Chevet, as near, lacks the 9"],
  ];
  for (const [line, street, why] of found) {
    test(`"${line}" is ${street} (${why})`, () => {
      const r = matcher.match({ line });
      assert.deepEqual(
        { verdict: r.verdict, reasons: r.reasons },
        { verdict: "corrected", reasons: ["street_corrected"] },
      );
      assert.equal(r.normalized?.street, street);
    });
  }

  // Two streets of the arrondissement as near, both with the house number: either answer would be a guess.
  const ambiguous: [string, string][] = [
    ["12 Rue des Boluts, 75011 Paris", "Rue des Bluets and Rue des Boulets"],
    ["3 Rue Garea, 75018 Paris", "Rue Garreau and Rue des Gardes"],
  ];
  for (const [line, streets] of ambiguous) {
    test(`"${line}" names no street (${streets} are as near)`, () => {
      const r = matcher.match({ line });
      assert.deepEqual(
        { verdict: r.verdict, reasons: r.reasons },
        { verdict: "nonexistent", reasons: ["street_not_found"] },
      );
      assert.equal(r.normalized, null);
    });
  }
});
