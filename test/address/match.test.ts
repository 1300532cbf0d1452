// The matcher over a small synthetic index of real communes outside Paris (no shared file needed): former communes,
// communes with several postcodes, CEDEX, coverage, and the margin rule of fuzzy matches.
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { streetRows, writtenIndex } from "./written_index.ts";
import { AddressMatcher } from "../../src/address/match.ts";
import { compileReference } from "../../src/address/reference/compile.ts";
import { packReference } from "../../src/address/reference/pack_reference.ts";
import { Reference } from "../../src/address/reference/reference.ts";
import type { AddressInput } from "../../src/address/types.ts";

describe("AddressMatcher over real communes", () => {
  let matcher: AddressMatcher;
  let reference: Reference;
  before(() => {
    const chemille = { codeInsee: "49092", codePostal: "49750", acheminement: "CHEMILLE-EN-ANJOU" };
    const bordeaux = { codeInsee: "33063", codePostal: "33000", acheminement: "BORDEAUX" };
    reference = new Reference(packReference(compileReference()));
    matcher = new AddressMatcher({
      reference,
      indexes: [
        writtenIndex("49", [
          ...streetRows("Rue du Lavoir", [1, 3, 5, 9], chemille),
          ...streetRows("Rue du Lavoir Neuf", [2, 4], chemille),
        ]),
        writtenIndex("33", [
          ...streetRows("Cours de l’Intendance", [2, 4, 10, 12], bordeaux),
          ...streetRows("Rue Sainte-Catherine", [1, 2, 3], bordeaux),
          ...streetRows("Rue Martin", [1], bordeaux),
          ...streetRows("Rue Mortin", [1], bordeaux),
        ]),
      ],
    });
  });
  const run = (input: AddressInput) => matcher.match(input);

  test("Reference knows postcodes, names, arrondissements and former communes nationwide", () => {
    assert.deepEqual(reference.communesOfPostcode("33800"), ["33063"]);
    assert.deepEqual(
      reference.citiesNamed("Chanzeaux").map((m) => m.kind),
      ["former"],
    );
    assert.equal(reference.citiesNamed("Paris")[0]!.communes.length, 20);
    assert.deepEqual(reference.citiesNamed("Lyon 3e")[0]!.communes, ["69383"]);
    assert.equal(reference.deliveryName("49750", "49092"), "Chemillé-en-Anjou");
    assert.equal(reference.deliveryName("75116", "75116"), "Paris 16");
    assert.equal(reference.deliveryName("75001", "75101"), "Paris");
    assert.deepEqual(reference.communesOfPostcode("00000"), []);
  });

  test("a former commune's name is corrected to the current commune (city_corrected)", () => {
    const r = run({ line: "3 rue du Lavoir 49750 Chanzeaux" });
    assert.deepEqual([r.verdict, r.reasons], ["corrected", ["city_corrected"]]);
    assert.equal(r.normalized?.city, "Chemillé-en-Anjou");
    assert.equal(r.normalized?.line, "3 Rue du Lavoir, 49750 Chemillé-en-Anjou");
  });

  test("the current commune with one of its postcodes is deliverable", () => {
    const r = run({ line: "3 rue du Lavoir 49750 Chemillé-en-Anjou" });
    assert.deepEqual([r.verdict, r.reasons], ["deliverable", []]);
    assert.equal(run({ line: "3 rue du Lavoir 49750 CHEMILLE EN ANJOU" }).verdict, "deliverable");
  });

  test("a commune with several postcodes accepts any, BAN's postcode of the address wins", () => {
    assert.deepEqual(run({ line: "4 cours de l'intendance 33000 Bordeaux" }).reasons, []);
    const r = run({ line: "4 cours de l'intendance 33800 Bordeaux" });
    assert.deepEqual([r.verdict, r.reasons, r.normalized?.postcode], ["corrected", ["postcode_corrected"], "33000"]);
    assert.equal(run({ line: "4 crs intendance 33000 BORDEAUX" }).verdict, "deliverable");
  });

  test("a CEDEX line finds the real postcode from the city (postcode_corrected)", () => {
    const r = run({ line: "4 cours de l'Intendance CS 40055 33077 Bordeaux Cedex" });
    assert.deepEqual([r.verdict, r.reasons, r.normalized?.postcode], ["corrected", ["postcode_corrected"], "33000"]);
  });

  test("a CEDEX line whose postcode is the street's own is not corrected", () => {
    const r = run({ line: "4 cours de l'Intendance 33000 Bordeaux Cedex" });
    assert.deepEqual([r.verdict, r.reasons, r.normalized?.postcode], ["deliverable", [], "33000"]);
    const fields = run({ street: "4 cours de l'Intendance", postcode: "33000", city: "Bordeaux Cedex 1" });
    assert.deepEqual([fields.verdict, fields.reasons], ["deliverable", []]);
  });

  test("a CEDEX line with no postcode: the house number is no département", () => {
    const r = run({ line: "12 cours de l'Intendance BORDEAUX CEDEX" });
    assert.deepEqual([r.verdict, r.reasons, r.normalized?.postcode], ["incomplete", ["missing_postcode"], "33000"]);
  });

  test("a fuzzy match needs a clear margin: two names one edit apart are not guessed", () => {
    assert.equal(run({ line: "1 rue Sainte-Katherine 33000 Bordeaux" }).verdict, "corrected");
    const r = run({ line: "1 rue Mirtin 33000 Bordeaux" });
    assert.deepEqual([r.verdict, r.reasons], ["nonexistent", ["street_not_found"]]);
    // The house number breaks the tie when only one of them has it.
    assert.equal(run({ line: "9 rue du Lavoire 49750 Chemillé-en-Anjou" }).normalized?.street, "Rue du Lavoir");
  });

  test("a postcode of a commune that is not indexed is unknown; a postcode that does not exist is a mismatch", () => {
    assert.deepEqual(run({ line: "1 rue de la Paix 13001 Marseille" }).reasons, ["postcode_not_covered"]);
    assert.deepEqual(run({ line: "1 rue Martin 33999 Bordeaux" }).reasons, ["postcode_corrected"]);
    assert.deepEqual(run({ line: "1 rue Martin 33000 Chanzeaux" }).reasons, ["city_corrected"]);
    assert.deepEqual(run({ line: "1 rue Inconnue 33000 Chanzeaux" }).reasons.sort(), [
      "postcode_city_mismatch",
      "street_not_found",
    ]);
    assert.deepEqual(run({ postcode: "99999" }).reasons.sort(), [
      "missing_city",
      "missing_street",
      "postcode_city_mismatch",
    ]);
  });

  test("a city whose name ends like a country stays a French city", () => {
    // Bouy-Luxembourg (Aube) and Saint-Martin (several communes) are not Luxembourg or the island of Saint-Martin.
    assert.notEqual(run({ line: "1 rue X 10220 BOUY LUXEMBOURG" }).reasons[0], "country_not_covered");
    assert.notEqual(run({ line: "1 rue X, Saint-Martin" }).reasons[0], "country_not_covered");
    assert.deepEqual(run({ line: "1 rue X 1000 Bruxelles, Belgique" }).reasons, ["country_not_covered"]);
    assert.deepEqual(run({ line: "1 rue X, 10220 Bouy-Luxembourg, Luxembourg" }).reasons, ["country_not_covered"]);
  });

  test("a misspelt city without postcode is found nationwide (city_corrected)", () => {
    const r = run({ line: "4 cours de l'Intendance, Bordaux" });
    assert.deepEqual([r.verdict, r.reasons.sort()], ["incomplete", ["city_corrected", "missing_postcode"]]);
    assert.equal(r.normalized?.postcode, "33000");
  });
});
