// A street written without a postcode nor a house number, whose parts lie under several postcodes: the answer names
// the street and the city they share, leaves the postcode out (`postcode` empty, the street's postcodes in the
// `postcode_candidates` extension) and says what is missing (docs/decisions.md, "A street of several postcodes"). It
// was no normalized address at all. Over the real Paris file (skipped where ../shared/data is absent), and over an
// index written here for Toulouse (a commune of several postcodes) and two communes of 90140.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { AddressMatcher } from "../../src/address/match.ts";
import { compileReference } from "../../src/address/reference/compile.ts";
import { packReference } from "../../src/address/reference/pack_reference.ts";
import { Reference } from "../../src/address/reference/reference.ts";
import type { AddressInput, AddressReason, AddressVerdict } from "../../src/address/types.ts";
import { parisMatcher, PARIS_SKIP } from "./paris_matcher.ts";
import { streetRows, writtenIndex } from "./written_index.ts";

interface Row {
  input: AddressInput;
  verdict: AddressVerdict;
  reasons: AddressReason[];
  line: string | null;
  postcode?: string;
  candidates?: string[];
  why: string;
}

function expect(matcher: AddressMatcher, row: Row): void {
  const r = matcher.match(row.input);
  assert.deepEqual(
    { verdict: r.verdict, reasons: [...r.reasons].sort() },
    { verdict: row.verdict, reasons: [...row.reasons].sort() },
  );
  assert.equal(r.normalized?.line ?? null, row.line);
  if (row.postcode !== undefined) assert.equal(r.normalized?.postcode, row.postcode);
  assert.deepEqual(r.normalized?.postcode_candidates, row.candidates);
}

describe("a street of several postcodes, no postcode and no number, over the Paris file", { skip: PARIS_SKIP }, () => {
  let matcher: AddressMatcher;
  before(async () => ({ matcher } = await parisMatcher()));
  after(() => {});

  const rows: Row[] = [
    {
      input: { line: "Avenue du Maine Paris" },
      verdict: "incomplete",
      reasons: ["missing_house_number", "missing_postcode"],
      line: "Avenue du Maine, Paris",
      postcode: "",
      candidates: ["75014", "75015"],
      why: "in the 14th and the 15th (it was no address)",
    },
    {
      input: { street: "Rue Haxo", city: "Paris" },
      verdict: "incomplete",
      reasons: ["missing_house_number", "missing_postcode"],
      line: "Rue Haxo, Paris",
      postcode: "",
      candidates: ["75019", "75020"],
      why: "the same as fields",
    },
    {
      input: { line: "Avenue du Maine, 75014 Paris" },
      verdict: "incomplete",
      reasons: ["missing_house_number"],
      line: "Avenue du Maine, 75014 Paris",
      postcode: "75014",
      why: "the postcode written settles it: no candidates",
    },
    {
      input: { line: "12 Avenue du Maine Paris" },
      verdict: "incomplete",
      reasons: ["missing_postcode"],
      line: "12 Avenue du Maine, 75015 Paris",
      postcode: "75015",
      why: "a number the 15th lists tells which",
    },
    {
      input: { line: "300 Rue Haxo, Paris" },
      verdict: "nonexistent",
      reasons: ["house_number_out_of_range", "missing_postcode"],
      line: null,
      why: "a number none of its parts has: the address is none of them",
    },
  ];
  for (const row of rows) test(`${JSON.stringify(row.input)}: ${row.why}`, () => expect(matcher, row));
});

describe("a street of several postcodes, no postcode and no number, over a written index", () => {
  // Toulouse (31555) is delivered under several postcodes; the rows are written, a street straddling two of them.
  // Froidefontaine and Bourogne share 90140.
  const toulouse = { codeInsee: "31555", codePostal: "31000", acheminement: "TOULOUSE" };
  const froidefontaine = { codeInsee: "90051", codePostal: "90140", acheminement: "FROIDEFONTAINE" };
  const bourogne = { codeInsee: "90017", codePostal: "90140", acheminement: "BOUROGNE" };
  const matcher = new AddressMatcher({
    indexes: [
      writtenIndex("31", [
        ...streetRows("Avenue Jean Jaurès", [1, 3, 5], toulouse),
        ...streetRows("Avenue Jean Jaurès", [101, 103], { ...toulouse, codePostal: "31400" }),
        ...streetRows("Rue des Tilleuls", [1, 3], toulouse),
      ]),
      writtenIndex("90", [
        ...streetRows("Rue de la Gare", [1, 2], froidefontaine),
        ...streetRows("Rue de la Gare", [1, 2], bourogne),
      ]),
    ],
    reference: new Reference(packReference(compileReference())),
  });
  const rows: Row[] = [
    {
      input: { line: "Avenue Jean Jaurès, Toulouse" },
      verdict: "incomplete",
      reasons: ["missing_house_number", "missing_postcode"],
      line: "Avenue Jean Jaurès, Toulouse",
      postcode: "",
      candidates: ["31000", "31400"],
      why: "one commune, two postcodes: the street's usual one was a guess",
    },
    {
      input: { line: "Rue des Tilleuls, Toulouse" },
      verdict: "incomplete",
      reasons: ["missing_house_number", "missing_postcode"],
      line: "Rue des Tilleuls, 31000 Toulouse",
      postcode: "31000",
      why: "a street of one postcode keeps it",
    },
    {
      input: { line: "Rue de la Gare, 90140" },
      verdict: "incomplete",
      reasons: ["missing_city", "missing_house_number"],
      line: null,
      why: "two communes of the postcode, delivered under their own names: the city is not known",
    },
  ];
  for (const row of rows) test(`${JSON.stringify(row.input)}: ${row.why}`, () => expect(matcher, row));
});
