// Communes merged into one (communes nouvelles): the same street name in two former communes stays two streets, told
// apart by BAN's `code_insee_ancienne_commune` and by their postcodes, so that "2 Place de la République, 08330 Vrigne
// aux Bois" is the former Vrigne-aux-Bois's (08330), not Bosseval-et-Briancourt's (08350); a former commune's name
// written as the city is `city_corrected` when La Poste does not deliver under it; INSEE codes the data packages list
// only as a current commune's former codes (Eyguians, 05069, now Garde-Colombe, 05053) or that changed with the
// collectivity (Saint-Martin, 97127 in Guadeloupe, now 97801) are indexed under the current commune, reachable by its
// postcode (97150). The files are written here with invented streets in real communes; nothing comes from a BAN file.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { gzipSync } from "node:zlib";
import { BanIndex } from "../../src/address/index/ban_index.ts";
import { communeCodes } from "../../src/address/index/commune_codes.ts";
import { importBan, type ImportResult } from "../../src/address/index/import.ts";
import { AddressMatcher } from "../../src/address/match.ts";
import { readPackedFile } from "../../src/address/packed_file.ts";
import { compileReference } from "../../src/address/reference/compile.ts";
import { packReference } from "../../src/address/reference/pack_reference.ts";
import { Reference } from "../../src/address/reference/reference.ts";
import type { AddressReason, AddressVerdict } from "../../src/address/types.ts";
import { BAN_HEADER } from "./ban_rows.ts";

interface Place {
  insee: string;
  commune: string;
  former: string;
  formerName: string;
  postcode: string;
  acheminement: string;
  lat: number;
}

const VRIGNE: Place = {
  insee: "08491",
  commune: "Vrigne aux Bois",
  former: "08491",
  formerName: "Vrigne-aux-Bois",
  postcode: "08330",
  acheminement: "VRIGNE AUX BOIS",
  lat: 49.73,
};
const BOSSEVAL: Place = {
  insee: "08491",
  commune: "Vrigne aux Bois",
  former: "08072",
  formerName: "Bosseval-et-Briancourt",
  postcode: "08350",
  acheminement: "VRIGNE AUX BOIS",
  lat: 49.75,
};

function row(place: Place, numero: number, street: string): string {
  const lat = (place.lat + numero / 1e4).toFixed(6);
  return (
    `${place.insee}_x_${numero};;${numero};;${street};${place.postcode};${place.insee};${place.commune};` +
    `${place.former};${place.formerName};0;0;4.85;${lat};entrée;;;${place.acheminement};;commune;commune;1;`
  );
}

/** A row as an older extract writes it: a code of its time, no former commune. */
function oldRow(insee: string, postcode: string, commune: string, numero: number, street: string): string {
  return `${insee}_x_${numero};;${numero};;${street};${postcode};${insee};${commune};;;0;0;6.0;45.0;entrée;;;${commune.toUpperCase()};;commune;commune;1;`;
}

const tables = compileReference();
const reference = new Reference(packReference(tables));

async function imported(dir: string, name: string, lines: string[]): Promise<ImportResult[]> {
  const file = path.join(dir, name);
  writeFileSync(file, gzipSync(`${[BAN_HEADER, ...lines].join("\n")}\n`));
  return importBan(file, {
    banSource: "/nowhere",
    indexDir: path.join(dir, `idx-${name}`),
    communeCodes: communeCodes(tables),
    onWarning: () => {},
  });
}

const rows: [string, AddressVerdict, AddressReason[], string | null, string][] = [
  [
    "2 Place de la République, 08330 Vrigne aux Bois",
    "deliverable",
    [],
    "2 Place de la République, 08330 Vrigne aux Bois",
    "the former Vrigne-aux-Bois's square (it was moved to 08350, Bosseval's)",
  ],
  [
    "2 Place de la République, 08350 Vrigne aux Bois",
    "deliverable",
    [],
    "2 Place de la République, 08350 Vrigne aux Bois",
    "Bosseval-et-Briancourt's square, under its own postcode",
  ],
  [
    "5 Place de la République, 08350 Vrigne aux Bois",
    "corrected",
    ["postcode_corrected"],
    "5 Place de la République, 08330 Vrigne aux Bois",
    "a number only the other former commune's square has",
  ],
  [
    "2 Place de la République, 08350 Bosseval-et-Briancourt",
    "corrected",
    ["city_corrected"],
    "2 Place de la République, 08350 Vrigne aux Bois",
    "a former commune's name, under which La Poste no longer delivers",
  ],
  [
    "2 Place de la République, Vrigne aux Bois",
    "incomplete",
    ["missing_postcode"],
    "2 Place de la République, Vrigne aux Bois",
    "no postcode, and both squares have a 2: named without one (it was 08330's or 08350's, whichever came first)",
  ],
  [
    "5 Place de la République, Vrigne aux Bois",
    "incomplete",
    ["missing_postcode"],
    "5 Place de la République, 08330 Vrigne aux Bois",
    "a number one square has tells which",
  ],
  [
    "Place de la République, Vrigne aux Bois",
    "incomplete",
    ["missing_house_number", "missing_postcode"],
    "Place de la République, Vrigne aux Bois",
    "no number nor postcode",
  ],
  [
    "3 Rue des Lilas, 05300 Garde-Colombe",
    "deliverable",
    [],
    "3 Rue des Lilas, 05300 Garde-Colombe",
    "rows under Eyguians's code (05069), listed only among Garde-Colombe's former codes",
  ],
];

describe("merged communes", () => {
  let dir: string;
  let matcher: AddressMatcher;
  let ardennes: ImportResult;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "vrai-merged-"));
    // Bosseval's rows first, as their street ids sort: merged into one street, its number 2 came first.
    const [a] = await imported(dir, "adresses-08.csv.gz", [
      ...[1, 2, 3].map((n) => row(BOSSEVAL, n, "Place de la République")),
      ...[1, 2, 4, 5].map((n) => row(VRIGNE, n, "Place de la République")),
    ]);
    const [alps] = await imported(dir, "adresses-05.csv.gz", [
      ...[1, 3, 5].map((n) => oldRow("05069", "05300", "Eyguians", n, "Rue des Lilas")),
    ]);
    ardennes = a!;
    matcher = new AddressMatcher({
      indexes: [ardennes, alps!].map((r) => new BanIndex(readPackedFile(r.path))),
      reference,
    });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("the two former communes' squares are two streets of the one commune", () => {
    const index = new BanIndex(readPackedFile(ardennes.path));
    assert.deepEqual(
      index.header.communes.map((c) => [c.code, c.streetCount]),
      [["08491", 2]],
    );
  });

  for (const [line, verdict, reasons, normalized, why] of rows) {
    test(`"${line}" (${why})`, () => {
      const r = matcher.match({ line });
      assert.deepEqual({ verdict: r.verdict, reasons: [...r.reasons].sort() }, { verdict, reasons });
      assert.equal(r.normalized?.line ?? null, normalized);
    });
  }

  test("a number both squares list, without a postcode, lists both postcodes", () => {
    const r = matcher.match({ line: "2 Place de la République, Vrigne aux Bois" }).normalized;
    assert.deepEqual([r?.house_number, r?.postcode, r?.postcode_candidates], ["2", "", ["08330", "08350"]]);
  });

  test("each square keeps its own place", () => {
    const vrigne = matcher.match({ line: "2 Place de la République, 08330 Vrigne aux Bois" }).normalized;
    const bosseval = matcher.match({ line: "2 Place de la République, 08350 Vrigne aux Bois" }).normalized;
    assert.deepEqual([vrigne?.latitude, bosseval?.latitude], [49.7302, 49.7502]);
  });
});

describe("Saint-Martin and Saint-Barthélemy under Guadeloupe's old codes", () => {
  let dir: string;
  let results: ImportResult[];
  let matcher: AddressMatcher;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "vrai-saint-martin-"));
    // A Guadeloupe extract of before 2007: Pointe-à-Pitre (97120), then Saint-Martin (97127) among its communes.
    results = await imported(dir, "adresses-971.csv.gz", [
      ...[1, 2, 3].map((n) => oldRow("97120", "97110", "Pointe-à-Pitre", n, "Rue des Lilas")),
      ...[1, 2].map((n) => oldRow("97123", "97133", "Saint-Barthélemy", n, "Rue de la France")),
      ...[1, 2, 3].map((n) => oldRow("97127", "97150", "Saint-Martin", n, "Rue de la République")),
      ...[1, 2].map((n) => oldRow("97129", "97115", "Sainte-Rose", n, "Rue des Saules")),
    ]);
    matcher = new AddressMatcher({
      indexes: results.map((r) => new BanIndex(readPackedFile(r.path))),
      reference,
    });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("their rows go to their own indexes (977, 978), counted as mapped, none unknown", () => {
    assert.deepEqual(
      results.map((r) => [r.departement, r.rows, r.remappedRows, r.unknownCommunes]),
      [
        ["971", 5, 0, {}],
        ["977", 2, 2, {}],
        ["978", 3, 3, {}],
      ],
    );
  });

  for (const [line, verdict, reasons, normalized] of [
    ["2 Rue de la République, 97150 Saint-Martin", "deliverable", [], "2 Rue de la République, 97150 Saint-Martin"],
    ["2 Rue de la France, 97133 Saint-Barthélemy", "deliverable", [], "2 Rue de la France, 97133 Saint-Barthélemy"],
    ["2 Rue des Lilas, 97110 Pointe-à-Pitre", "deliverable", [], "2 Rue des Lilas, 97110 Pointe-à-Pitre"],
  ] as const) {
    test(`"${line}" is ${verdict}`, () => {
      const r = matcher.match({ line });
      assert.deepEqual({ verdict: r.verdict, reasons: [...r.reasons] }, { verdict, reasons: [...reasons] });
      assert.equal(r.normalized?.line ?? null, normalized);
    });
  }
});
