// test-scope: once
// (Logic and data that no runtime changes: CI runs this file on its recommended runtime only; test/runner/run.ts.)
// Streets named after people, and after two people or two things, as people write them: a title or given names left
// out or added ("rue Mouchotte", "avenue du Maréchal Foch"; match/left_out_words.ts), one half of a name joined by "et"
// ("place du Trocadéro"; index/compound_names.ts). Each rule over a written index (Belfort, 90000), then the lines
// that showed the defect over the real Paris file (skipped when ../shared/data is absent).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { compoundNameParts } from "../../src/address/index/compound_names.ts";
import { AddressMatcher } from "../../src/address/match.ts";
import { addsTitles, leavesOut } from "../../src/address/match/left_out_words.ts";
import { compileReference } from "../../src/address/reference/compile.ts";
import { packReference } from "../../src/address/reference/pack_reference.ts";
import { Reference } from "../../src/address/reference/reference.ts";
import type { AddressReason, AddressVerdict } from "../../src/address/types.ts";
import { parisMatcher, PARIS_SKIP } from "./paris_matcher.ts";
import { streetRows, writtenIndex } from "./written_index.ts";

interface Row {
  line: string;
  verdict: AddressVerdict;
  reasons: AddressReason[];
  /** The street of the answer; absent when none is expected. */
  street?: string;
  postcode?: string;
}

function expectRow(matcher: AddressMatcher, row: Row): void {
  const r = matcher.match({ line: row.line });
  assert.deepEqual(
    { verdict: r.verdict, reasons: [...r.reasons].sort() },
    { verdict: row.verdict, reasons: [...row.reasons].sort() },
    row.line,
  );
  assert.equal(r.normalized?.street, row.street, row.line);
  if (row.postcode !== undefined) assert.equal(r.normalized?.postcode, row.postcode, row.line);
}

describe("leavesOut() and addsTitles()", () => {
  const rows: [string, string, "leaves out" | "adds titles" | "neither", string][] = [
    ["mouchotte", "commandant rene mouchotte", "leaves out", "title and given name left out"],
    ["rene mouchotte", "commandant rene mouchotte", "leaves out", "title left out"],
    ["commandant mouchotte", "commandant rene mouchotte", "leaves out", "given name left out"],
    ["general valin", "general martial valin", "leaves out", "an unlisted given name after a title"],
    ["curie", "pierre marie curie", "leaves out", "two given names left out"],
    ["marechal foch", "foch", "adds titles", "a title added"],
    ["general leandri", "commandant leandri", "neither", "a title for another"],
    ["marechal doumer", "paul doumer", "neither", "a title for a given name"],
    ["jean losserand", "raymond losserand", "neither", "a given name for another"],
    ["maurice letellier", "letellier", "neither", "a given name added is someone else"],
    ["jean", "jean pierre", "neither", "given names alone name no one"],
    ["moulin vert", "moulin", "neither", "a word that is no title is no slip"],
  ];
  for (const [query, name, reading, why] of rows) {
    test(`"${query}" ${reading} "${name}" (${why})`, () => {
      const [q, n] = [query.split(" "), name.split(" ")];
      assert.deepEqual(
        { leavesOut: leavesOut(q, n), addsTitles: addsTitles(q, n) },
        { leavesOut: reading === "leaves out", addsTitles: reading === "adds titles" },
      );
    });
  }
});

describe("compoundNameParts()", () => {
  const rows: [string, string[]][] = [
    ["Place du Trocadéro et du Onze Novembre", ["Place du Trocadéro", "place du Onze Novembre"]],
    ["Quai Panhard et Levassor", ["Quai Panhard"]],
    ["Rue Alice Domon et Léonie Duquet", ["Rue Alice Domon", "rue Léonie Duquet"]],
    ["Place Mireille et Jacques Renouvin", ["place Jacques Renouvin"]],
    ["Rue Charles et Robert", []],
    ["Rond-point Pierre et Marie Dupont", ["rondpoint Marie Dupont"]],
    ["Rue de la Paix", []],
    ["Place de Fontenoy - Unesco", ["Place de Fontenoy"]],
    [
      "Place de l' Hotel de Ville - Esplanade de la Libération",
      ["Place de l' Hotel de Ville", "Esplanade de la Libération"],
    ],
    ["Quai de la Corse - Pasquale Paoli", ["Quai de la Corse", "quai Pasquale Paoli"]],
    ["Rue Jean-Pierre Timbaud", []],
  ];
  for (const [name, parts] of rows)
    test(`${name} → ${JSON.stringify(parts)}`, () => assert.deepEqual(compoundNameParts(name), parts));
});

const BELFORT_ROWS: Row[] = [
  // One half of a name joined by "et" is an alternative name of the street: exact, so before any street of another
  // type ("1 place du Trocadéro" was Square du Trocadéro, corrected).
  {
    line: "1 place du Trocadéro, 90000 Belfort",
    verdict: "deliverable",
    reasons: [],
    street: "Place du Trocadéro et du Onze Novembre",
  },
  { line: "1 square du Trocadéro, 90000 Belfort", verdict: "deliverable", reasons: [], street: "Square du Trocadéro" },
  {
    line: "2 place du 11 Novembre, 90000 Belfort",
    verdict: "deliverable",
    reasons: [],
    street: "Place du Trocadéro et du Onze Novembre",
  },
  { line: "2 quai Panhard, 90000 Belfort", verdict: "deliverable", reasons: [], street: "Quai Panhard et Levassor" },
  {
    line: "3 rue Léonie Duquet, 90000 Belfort",
    verdict: "deliverable",
    reasons: [],
    street: "Rue Alice Domon et Léonie Duquet",
  },
  { line: "1 rue Charles, 90000 Belfort", verdict: "nonexistent", reasons: ["street_not_found"] },
  // A title or given names left out, or a title added: street_corrected.
  {
    line: "20 rue Mouchotte, 90000 Belfort",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Rue du Commandant René Mouchotte",
  },
  {
    line: "20 rue René Mouchotte, 90000 Belfort",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Rue du Commandant René Mouchotte",
  },
  {
    line: "20 rue du Cdt Mouchotte, 90000 Belfort",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Rue du Commandant René Mouchotte",
  },
  {
    line: "10 avenue du Général Valin, 90000 Belfort",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Avenue du Général Martial Valin",
  },
  {
    line: "1 avenue du Maréchal Foch, 90000 Belfort",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Avenue Foch",
  },
  {
    line: "3 bd Lenoir, 90000 Belfort",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Boulevard Richard Lenoir",
  },
  // Rather than two slips of the name: Curie is not Cuvier.
  {
    line: "5 rue Curie, 90000 Belfort",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Rue Pierre et Marie Curie",
  },
  { line: "5 rue Cuvier, 90000 Belfort", verdict: "deliverable", reasons: [], street: "Rue Cuvier" },
  // Every word written is the street's before one slip of a name, or the same name under another type…
  {
    line: "1 rue Mazet, 90000 Belfort",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Rue André Mazet",
  },
  {
    line: "16 rue Dumas, 90000 Belfort",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Rue Alexandre Dumas",
  },
  // …but a title added does not outweigh another type: every word of the avenue's name is written.
  {
    line: "1 rue du Général Leclerc, 90000 Belfort",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Avenue du Général Leclerc",
  },
  // Another title or given name is another person; the type written still counts.
  { line: "37 avenue du Maréchal Doumer, 90000 Belfort", verdict: "nonexistent", reasons: ["street_not_found"] },
  { line: "9 rue du Général Léandri, 90000 Belfort", verdict: "nonexistent", reasons: ["street_not_found"] },
  { line: "13 rue Jean Losserand, 90000 Belfort", verdict: "nonexistent", reasons: ["street_not_found"] },
  { line: "8 rue Maurice Letellier, 90000 Belfort", verdict: "nonexistent", reasons: ["street_not_found"] },
  { line: "10 rue Hugo, 90000 Belfort", verdict: "nonexistent", reasons: ["street_not_found"] },
];

describe("people's names as written (written index, Belfort 90000)", () => {
  let matcher: AddressMatcher;
  before(() => {
    const reference = new Reference(packReference(compileReference()));
    const insee = reference.citiesNamed("Belfort")[0]!.communes[0]!;
    const at = { codeInsee: insee, codePostal: "90000", acheminement: "BELFORT" };
    const streets: [string, number[]][] = [
      ["Place du Trocadéro et du Onze Novembre", [1, 2]],
      ["Square du Trocadéro", [1, 2]],
      ["Quai Panhard et Levassor", [2]],
      ["Rue Alice Domon et Léonie Duquet", [2, 3]],
      ["Rue Charles et Robert", [1]],
      ["Rue du Commandant René Mouchotte", [20]],
      ["Avenue du Général Martial Valin", [10]],
      ["Avenue Foch", [1]],
      ["Boulevard Richard Lenoir", [3]],
      ["Rue Richard Lenoir", [3]],
      ["Rue Pierre et Marie Curie", [5]],
      ["Rue Cuvier", [5]],
      ["Avenue Paul Doumer", [37]],
      ["Rue du Commandant Léandri", [9]],
      ["Rue Raymond Losserand", [13]],
      ["Rue Letellier", [8]],
      ["Avenue Victor Hugo", [10]],
      ["Rue André Mazet", [1]],
      ["Rue Mayet", [1]],
      ["Rue Alexandre Dumas", [16]],
      ["Passage Dumas", [16]],
      ["Avenue du Général Leclerc", [1]],
      ["Rue Leclerc", [1]],
    ];
    // A street of the half's name in another commune of the département does not hide the half.
    const giromagny = {
      codeInsee: reference.citiesNamed("Giromagny")[0]!.communes[0]!,
      codePostal: "90200",
      acheminement: "GIROMAGNY",
    };
    const rows = streets.flatMap(([name, numbers]) => streetRows(name, numbers, at));
    matcher = new AddressMatcher({
      reference,
      indexes: [writtenIndex("90", [...rows, ...streetRows("Quai Panhard", [2], giromagny)])],
    });
  });
  for (const row of BELFORT_ROWS) test(`${row.line} → ${row.verdict}`, () => expectRow(matcher, row));
});

// Lines that gave the wrong street or none before these rules.
const PARIS_ROWS: Row[] = [
  {
    line: "1 place du Trocadéro 75016 Paris",
    verdict: "deliverable",
    reasons: [],
    street: "Place du Trocadéro et du Onze Novembre",
  },
  {
    line: "2 rue Alice Domon 75013 Paris",
    verdict: "deliverable",
    reasons: [],
    street: "Rue Alice Domon et Léonie Duquet",
  },
  {
    line: "12 rue Lemoine 75005 Paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Rue du Cardinal Lemoine",
    postcode: "75005",
  },
  {
    line: "20 rue Mouchotte 75014 Paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Rue du Commandant René Mouchotte",
  },
  {
    line: "10 avenue Wilson 75016 Paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Avenue du Président Wilson",
  },
  {
    line: "15 av Jaurès 75019 Paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Avenue Jean Jaurès",
  },
  {
    line: "10 av Bizot 75012 Paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Avenue du Général Michel Bizot",
  },
  {
    line: "5 rue Curie 75005 Paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Rue Pierre et Marie Curie",
  },
  {
    line: "2 place Victor Basch 75014 Paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Place Victor et Hélène Basch",
  },
  {
    line: "1 avenue du Maréchal Foch 75016 Paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Avenue Foch",
  },
];

describe("people's names as written, over the Paris BAN file", { skip: PARIS_SKIP }, () => {
  let paris: Awaited<ReturnType<typeof parisMatcher>>;
  before(async () => {
    paris = await parisMatcher();
  });
  after(() => paris.remove());
  for (const row of PARIS_ROWS) test(`${row.line} → ${row.verdict}`, () => expectRow(paris.matcher, row));
});
