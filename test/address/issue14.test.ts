// Issue 14, "Addresses as people type them": one row per example of the issue and per rule implemented, each with its
// source. Paris rows run over the real Paris BAN file (../shared/data/ban, skipped when absent); the rows about
// small words and coverage run over a small index written here with real commune codes.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { BanIndex } from "../../src/address/index/ban_index.ts";
import { type BanRow, IndexBuilder } from "../../src/address/index/builder.ts";
import { importBan } from "../../src/address/index/import.ts";
import { AddressMatcher } from "../../src/address/match.ts";
import { readPackedFile } from "../../src/address/packed_file.ts";
import { compileReference } from "../../src/address/reference/compile.ts";
import { packReference } from "../../src/address/reference/pack_reference.ts";
import { Reference } from "../../src/address/reference/reference.ts";
import type { AddressReason, AddressVerdict } from "../../src/address/types.ts";

const PARIS = path.resolve(import.meta.dirname, "../../../shared/data/ban/adresses-75.csv.gz");

interface Row {
  source: string;
  line: string;
  verdict: AddressVerdict;
  reasons: AddressReason[];
  /** The street and postcode of the answer, when one is expected. */
  street?: string;
  postcode?: string;
}

function expectRow(matcher: AddressMatcher, row: Row): void {
  const r = matcher.match({ line: row.line });
  const got = { verdict: r.verdict, reasons: [...r.reasons].sort() };
  assert.deepEqual(got, { verdict: row.verdict, reasons: [...row.reasons].sort() }, `${row.line} (${row.source})`);
  if (row.street !== undefined) assert.equal(r.normalized?.street, row.street, row.line);
  if (row.postcode !== undefined) assert.equal(r.normalized?.postcode, row.postcode, row.line);
}

const PARIS_ROWS: Row[] = [
  // Item 1: two edits in names of 5+ letters when the winner leads every other name.
  {
    source: "issue 14 §two-letter slips",
    line: "12 Passage Kracahr, 75018 Paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Passage Kracher",
  },
  {
    source: "issue 14 §two-letter slips",
    line: "12 Rue d'Eaghie, 75010 Paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Rue d'Enghien",
  },
  {
    source: "issue 14 §two-letter slips",
    line: "Boulevard du Tempbl, 75003 Paris",
    verdict: "incomplete",
    reasons: ["missing_house_number", "street_corrected"],
    street: "Boulevard du Temple",
  },
  {
    source: "item 1, transposition counts one edit",
    line: "Boulevard du Tmeple, 75003 Paris",
    verdict: "incomplete",
    reasons: ["missing_house_number", "street_corrected"],
    street: "Boulevard du Temple",
  },
  {
    source: "item 1, no stretch in 4 letters",
    line: "1 Rue Xyzq, 75001 Paris",
    verdict: "nonexistent",
    reasons: ["street_not_found"],
  },
  // Item 2: noise.
  {
    source: "issue 14 §messy lines: postcode glued to the city",
    line: "12 Rue de Rivoli 75004Paris",
    verdict: "deliverable",
    reasons: [],
    street: "Rue de Rivoli",
    postcode: "75004",
  },
  {
    source: "item 2: postcode glued to the street",
    line: "12 Rue de Rivoli75004 Paris",
    verdict: "deliverable",
    reasons: [],
    postcode: "75004",
  },
  {
    source: "issue 14 §messy lines: fbg and st inside the name",
    line: "55 r du fbg st honore 75008 paris",
    verdict: "deliverable",
    reasons: [],
    street: "Rue du Faubourg Saint-Honoré",
  },
  {
    source: "issue 14 §messy lines: no locality",
    line: "55 rue du fbg saint honore",
    verdict: "incomplete",
    reasons: ["missing_city", "missing_postcode"],
    street: "Rue du Faubourg Saint-Honoré",
    postcode: "75008",
  },
  {
    source: "item 2: building and floor",
    line: "12 rue de Rivoli, Bât. B, 3e étage, 75004 Paris",
    verdict: "deliverable",
    reasons: [],
  },
  {
    source: "item 2: chez segment",
    line: "Chez M. Dupont, 12 rue de rivoli 75004 paris",
    verdict: "deliverable",
    reasons: [],
  },
  {
    source: "item 2: chez before the number",
    line: "chez M. Dupont 12 rue de rivoli 75004 paris",
    verdict: "deliverable",
    reasons: [],
  },
  { source: "item 2: BP", line: "12 rue de Rivoli, BP 1234, 75004 Paris", verdict: "deliverable", reasons: [] },
  // Item 3: a typo and a wrong arrondissement together.
  {
    source: "issue 14 §messy lines: rivolli 75001",
    line: "12 rue de rivolli 75001 paris",
    verdict: "corrected",
    reasons: ["postcode_corrected", "street_corrected"],
    street: "Rue de Rivoli",
    postcode: "75004",
  },
  // Item 6: word order and separators.
  {
    source: "issue 14 §word order: number after the street",
    line: "Boulevard Saint Martin 20, Paris",
    verdict: "incomplete",
    reasons: ["missing_postcode"],
    street: "Boulevard Saint-Martin",
  },
  {
    source: "item 6: number after the street, with postcode",
    line: "Rue de Rivoli 12, 75004 Paris",
    verdict: "deliverable",
    reasons: [],
  },
  {
    source: "item 6: a date is no house number",
    line: "Rue du Huit Mai 1945, 75010 Paris",
    verdict: "incomplete",
    reasons: ["missing_house_number"],
  },
  {
    source: "issue 14 §word order: 43 rue de lille",
    line: "43 rue de lille",
    verdict: "incomplete",
    reasons: ["missing_city", "missing_postcode"],
    street: "Rue de Lille",
    postcode: "75007",
  },
  {
    source: "issue 14 §word order: faubourg saint antoine",
    line: "58 rue du faubourg saint antoine",
    verdict: "incomplete",
    reasons: ["missing_city", "missing_postcode"],
    street: "Rue du Faubourg Saint-Antoine",
  },
  {
    source: "issue 14 §word order: semicolons",
    line: "12 rue de Rivoli; 75004; Paris",
    verdict: "deliverable",
    reasons: [],
  },
  { source: "issue 14 §word order: Ruee", line: "12 Ruee de Rivoli, 75004 Paris", verdict: "deliverable", reasons: [] },
  { source: "issue 14 §word order: Reu", line: "12 reu de rivoli 75004 paris", verdict: "deliverable", reasons: [] },
  {
    source: "item 6: still a city when the street is not known whole",
    line: "12 rue de Rivoli Paris",
    verdict: "incomplete",
    reasons: ["missing_postcode"],
    postcode: "75004",
  },
  // Item 5: nationwide consistency, with a street given.
  {
    source: "issue 14 §nationwide: 51170 Roffiac",
    line: "1 Rue de la Gare, 51170 Roffiac",
    verdict: "nonexistent",
    reasons: ["postcode_city_mismatch"],
  },
  {
    source: "item 5: a consistent pair outside coverage",
    line: "1 Rue de la Gare, 15100 Roffiac",
    verdict: "unknown",
    reasons: ["postcode_not_covered"],
  },
  {
    source: "issue 14 §nationwide: 75007 Marseille, street of the 7th",
    line: "10 Rue de Grenelle, 75007 Marseille",
    verdict: "corrected",
    reasons: ["city_corrected"],
    postcode: "75007",
  },
  {
    source: "issue 14 §nationwide: 75007 Marseille, street elsewhere",
    line: "12 Rue de Rivoli, 75007 Marseille",
    verdict: "nonexistent",
    reasons: ["postcode_city_mismatch", "street_not_found"],
  },
  {
    source: "issue 14 §nationwide: 13001 Paris",
    line: "12 Rue de Rivoli, 13001 Paris",
    verdict: "corrected",
    reasons: ["postcode_corrected"],
    postcode: "75004",
  },
  {
    source: "item 5: mismatch without street",
    line: "51170 Roffiac",
    verdict: "nonexistent",
    reasons: ["missing_street", "postcode_city_mismatch"],
  },
  // Item 6: coverage decided on the commune found; CEDEX resolves before coverage.
  {
    source: "issue 14 §covered: PARIS LA DEFENSE CEDEX",
    line: "10 rue de la paix 92925 PARIS LA DEFENSE CEDEX",
    verdict: "unknown",
    reasons: ["postcode_not_covered"],
  },
  {
    source: "issue 14 §covered: Nantes CEDEX code",
    line: "46 BIS RUE DES HAUTS PAVES 44021",
    verdict: "unknown",
    reasons: ["missing_city", "postcode_not_covered"],
  },
  {
    source: "issue 14 §covered: Quartier Rohan",
    line: "Quartier Rohan, 44156 ANCENIS",
    verdict: "unknown",
    reasons: ["postcode_not_covered"],
  },
];

describe("issue 14 over the Paris BAN file", { skip: existsSync(PARIS) ? false : "Paris BAN file absent" }, () => {
  let matcher: AddressMatcher;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "vrai-issue14-"));
    const [imported] = await importBan(PARIS, { banSource: path.dirname(PARIS), indexDir: dir });
    matcher = new AddressMatcher({
      indexes: [new BanIndex(readPackedFile(imported!.path))],
      reference: new Reference(packReference(compileReference())),
    });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  for (const row of PARIS_ROWS) test(`${row.line} → ${row.verdict} (${row.source})`, () => expectRow(matcher, row));
});

function build(dept: string, rows: BanRow[]): BanIndex {
  const b = new IndexBuilder(dept);
  for (const r of rows) b.add(r);
  const bytes = b.finish();
  const shared = new SharedArrayBuffer(bytes.length);
  new Uint8Array(shared).set(bytes);
  return new BanIndex(shared);
}

function street(name: string, numbers: number[], at: Pick<BanRow, "codeInsee" | "codePostal" | "acheminement">) {
  return numbers.map((n, i) => ({
    numero: n,
    rep: "",
    nomVoie: name,
    nomAfnor: "",
    lat: 47.7 + i / 1000,
    lon: 6.8,
    ...at,
  }));
}

const SMALL_WORD_ROWS: Row[] = [
  {
    source: "issue 14 §small words: sur is part of the name",
    line: "1 Rue sur la Côte, 90200 Giromagny",
    verdict: "deliverable",
    reasons: [],
    street: "Rue sur la Côte",
  },
  {
    source: "issue 14 §small words: never the other street",
    line: "1 Rue de la Côte, 90200 Giromagny",
    verdict: "deliverable",
    reasons: [],
    street: "Rue de la Côte",
  },
  {
    source: "issue 14 §small words: exact Saint-Pierre wins",
    line: "1 Rue Saint-Pierre, 90200 Giromagny",
    verdict: "deliverable",
    reasons: [],
    street: "Rue Saint-Pierre",
  },
  {
    source: "item 6: sous kept",
    line: "2 Rue Sous Saint-Pierre, 90200 Giromagny",
    verdict: "deliverable",
    reasons: [],
    street: "Rue Sous Saint-Pierre",
  },
  {
    source: "item 6: a street that differs by sur is not found",
    line: "1 Rue sur la Fontaine, 90200 Giromagny",
    verdict: "nonexistent",
    reasons: ["street_not_found"],
  },
  {
    source: "issue 14 §covered: invented street in a covered commune",
    line: "1 Rue des Zorglubs, 90200 Giromagny",
    verdict: "nonexistent",
    reasons: ["street_not_found"],
  },
];

describe("issue 14: small words and coverage over a written index (Giromagny, 90)", () => {
  let matcher: AddressMatcher;
  before(() => {
    const reference = new Reference(packReference(compileReference()));
    const insee = reference.citiesNamed("Giromagny")[0]!.communes[0]!;
    const at = { codeInsee: insee, codePostal: "90200", acheminement: "GIROMAGNY" };
    matcher = new AddressMatcher({
      reference,
      indexes: [
        build("90", [
          ...street("Rue sur la Côte", [1, 3], at),
          ...street("Rue de la Côte", [1, 2], at),
          ...street("Rue Saint-Pierre", [1, 2], at),
          ...street("Rue Sous Saint-Pierre", [1, 2], at),
          ...street("Rue de la Fontaine", [1], at),
        ]),
      ],
    });
  });
  for (const row of SMALL_WORD_ROWS)
    test(`${row.line} → ${row.verdict} (${row.source})`, () => expectRow(matcher, row));
});
