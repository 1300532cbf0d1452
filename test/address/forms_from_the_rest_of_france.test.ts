// Forms written across France that the Paris-tuned reader missed: "Cap." for Capitaine (match/search_order.ts,
// ambiguousAbbreviations: "Cap" is also a headland's word, which the key keeps), and a town after a comma whose name
// begins with a street type's word and a hyphen ("…, Pointe-à-Pitre", "…, Bourg-en-Bresse": parse/parse_address.ts),
// which was read as a street, leaving the line without a city. Titles cut short with or without their period ("Cdt",
// "Lt", "Mal", "Gal"), "ch" for chemin, house numbers of five figures (roads numbered by the metre), a lieu-dit written
// after the street or instead of it, and the city of an answer, which is the commune's name (La Poste's "POINTE A
// PITRE PRINCIPAL" or "GRENADE SUR GARONNE" are line 6's, not the city's). The lines over the real Paris file skip
// where ../shared/data is absent; Guadeloupe and the Ain are outside its index; the others run over an index written
// here in real communes (Roppe, Froidefontaine, Pointe-à-Pitre), with invented streets.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { AddressMatcher } from "../../src/address/match.ts";
import { parseAddress } from "../../src/address/parse/parse_address.ts";
import { compileReference } from "../../src/address/reference/compile.ts";
import { packReference } from "../../src/address/reference/pack_reference.ts";
import { Reference } from "../../src/address/reference/reference.ts";
import type { AddressInput, AddressReason, AddressVerdict } from "../../src/address/types.ts";
import { parisMatcher, PARIS_SKIP } from "./paris_matcher.ts";
import { streetRows, writtenIndex } from "./written_index.ts";

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

describe("house numbers of five figures", () => {
  for (const [line, houseNumber, street] of [
    ["10001 Route de Belfort, 90140 Froidefontaine", "10001", "Route de Belfort"],
    ["12040 rte de Belfort 90140 Froidefontaine", "12040", "rte de Belfort"],
  ] as const) {
    test(`"${line}" has the number ${houseNumber}`, () => {
      const p = parseAddress({ line });
      assert.deepEqual([p.houseNumber, p.street, p.postcode], [houseNumber, street, "90140"]);
    });
  }
  test("five figures before a street with no other postcode stay the postcode", () => {
    const p = parseAddress({ line: "75004 rue de Rivoli" });
    assert.deepEqual([p.houseNumber, p.postcode], [null, "75004"]);
  });
  test("the house-number field takes five figures", () => {
    assert.equal(parseAddress({ house_number: "10001", street: "Route de Belfort" }).houseNumber, "10001");
  });
});

describe("forms from the rest of France, over a written index", () => {
  const roppe = { codeInsee: "90087", codePostal: "90380", acheminement: "ROPPE" };
  const froidefontaine = { codeInsee: "90051", codePostal: "90140", acheminement: "FROIDEFONTAINE" };
  const pointeAPitre = { codeInsee: "97120", codePostal: "97110", acheminement: "POINTE A PITRE" };
  const matcher = new AddressMatcher({
    indexes: [
      writtenIndex("90", [
        ...streetRows("Rue du Commandant Larchier", [1, 2], roppe),
        ...streetRows("Rue du Lieutenant Peugeot", [1, 2], roppe),
        ...streetRows("Rue du Maréchal Foch", [1, 2], roppe),
        ...streetRows("Rue du Général de Gaulle", [1, 2], roppe),
        ...streetRows("Les Jardins", [4, 5], roppe),
        ...streetRows("Route d'Eguenigue", [12, 14], roppe).map((r) => ({ ...r, altNames: ["Les Vergers"] })),
        ...streetRows("Chemin Saint-Jean", [1, 2, 3], froidefontaine),
        ...streetRows("Route de Belfort", [10001, 10003, 12040], froidefontaine),
      ]),
      writtenIndex("971", streetRows("Rue Frébault", [1, 2, 3], pointeAPitre)),
    ],
    reference: new Reference(packReference(compileReference())),
  });
  const rows: [AddressInput | string, AddressVerdict, AddressReason[], string | null, string][] = [
    ["1 rue du Cdt Larchier 90380 Roppe", "deliverable", [], "1 Rue du Commandant Larchier, 90380 Roppe", "Cdt"],
    ["1 rue du Cdt. Larchier 90380 Roppe", "deliverable", [], "1 Rue du Commandant Larchier, 90380 Roppe", "Cdt."],
    ["1 rue du Lt Peugeot 90380 Roppe", "deliverable", [], "1 Rue du Lieutenant Peugeot, 90380 Roppe", "Lt"],
    ["1 rue du Lt. Peugeot 90380 Roppe", "deliverable", [], "1 Rue du Lieutenant Peugeot, 90380 Roppe", "Lt."],
    ["1 rue du Mal Foch 90380 Roppe", "deliverable", [], "1 Rue du Maréchal Foch, 90380 Roppe", "Mal"],
    ["1 rue du Mal. Foch 90380 Roppe", "deliverable", [], "1 Rue du Maréchal Foch, 90380 Roppe", "Mal."],
    ["1 rue du Gal de Gaulle 90380 Roppe", "deliverable", [], "1 Rue du Général de Gaulle, 90380 Roppe", "Gal"],
    ["1 rue du Gal. de Gaulle 90380 Roppe", "deliverable", [], "1 Rue du Général de Gaulle, 90380 Roppe", "Gal."],
    ["3 ch Saint-Jean, 90140 Froidefontaine", "deliverable", [], "3 Chemin Saint-Jean, 90140 Froidefontaine", "ch"],
    ["3 Ch. St Jean 90140 Froidefontaine", "deliverable", [], "3 Chemin Saint-Jean, 90140 Froidefontaine", "Ch."],
    [
      "10001 Route de Belfort, 90140 Froidefontaine",
      "deliverable",
      [],
      "10001 Route de Belfort, 90140 Froidefontaine",
      "five figures (was street_not_found: '10001 Route de Belfort' read as the street)",
    ],
    [
      "11000 rte de Belfort 90140 Froidefontaine",
      "deliverable",
      [],
      "11000 Route de Belfort, 90140 Froidefontaine",
      "five figures within the listed ones",
    ],
    [
      { house_number: "10003", street: "Route de Belfort", postcode: "90140", city: "Froidefontaine" },
      "deliverable",
      [],
      "10003 Route de Belfort, 90140 Froidefontaine",
      "five figures in the house-number field",
    ],
    ["4 lieu-dit Les Jardins, 90380 Roppe", "deliverable", [], "4 Les Jardins, 90380 Roppe", "lieu-dit named by BAN"],
    ["4 ld Les Jardins 90380 Roppe", "deliverable", [], "4 Les Jardins, 90380 Roppe", "ld"],
    [
      "12 lieu-dit Les Vergers, 90380 Roppe",
      "deliverable",
      [],
      "12 Route d'Eguenigue, 90380 Roppe",
      "the lieu-dit of an address on a road (BAN's nom_ld)",
    ],
    [
      "12 Route d'Eguenigue lieu-dit Les Vergers 90380 Roppe",
      "deliverable",
      [],
      "12 Route d'Eguenigue, 90380 Roppe",
      "the lieu-dit after the street, no comma (was street_not_found)",
    ],
    [
      "2 rue Frébault, 97110 Pointe-à-Pitre",
      "deliverable",
      [],
      "2 Rue Frébault, 97110 Pointe-à-Pitre",
      "the commune's name (was 'Pointe-à-Pitre PRINCIPAL')",
    ],
    [
      "2 rue Frébault, Pointe-à-Pitre",
      "incomplete",
      ["missing_postcode"],
      "2 Rue Frébault, 97110 Pointe-à-Pitre",
      "a town after a comma with no postcode",
    ],
  ];
  for (const [input, verdict, reasons, line, why] of rows) {
    test(`${JSON.stringify(input)} (${why})`, () => {
      const r = matcher.match(typeof input === "string" ? { line: input } : input);
      assert.deepEqual({ verdict: r.verdict, reasons: [...r.reasons].sort() }, { verdict, reasons });
      assert.equal(r.normalized?.line ?? null, line);
    });
  }
  test("line 6 keeps La Poste's delivery name, without the PRINCIPAL its base no longer writes", () => {
    const r = matcher.match({ line: "2 rue Frébault, 97110 Pointe-à-Pitre" });
    assert.deepEqual([r.normalized?.city, r.normalized?.postal_line_6], ["Pointe-à-Pitre", "97110 POINTE A PITRE"]);
  });
});

describe("the city of an answer is the commune's name", () => {
  const reference = new Reference(packReference(compileReference()));
  for (const [postcode, insee, city, line6] of [
    ["97110", "97120", "Pointe-à-Pitre", "POINTE A PITRE"],
    ["31330", "31232", "Grenade", "GRENADE SUR GARONNE"],
    ["22270", "22084", "Jugon-les-Lacs", "JUGON LES LACS COMMUNE NOUVELL"],
    ["75116", "75116", "Paris 16", "PARIS 16"],
    ["75001", "75101", "Paris", "PARIS"],
  ] as const) {
    test(`${postcode} ${insee}: ${city}, line 6 ${line6}`, () => {
      assert.equal(reference.deliveryName(postcode, insee), city);
      assert.equal(reference.acheminement(postcode, insee), line6);
    });
  }
});
