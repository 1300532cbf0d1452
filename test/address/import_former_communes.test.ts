// Former communes in BAN: a BAN row that carries a former commune's INSEE code (Béon, 01039, a commune déléguée of
// Culoz-Béon, 01138, since 2017) is indexed under its current commune; a code of no commune at all is kept as written
// and the import warns with the count of rows. The file is written here; nothing comes from a real BAN file.
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

const HEADER =
  "id;id_fantoir;numero;rep;nom_voie;code_postal;code_insee;nom_commune;code_insee_ancienne_commune;nom_ancienne_commune;x;y;lon;lat;type_position;alias;nom_ld;libelle_acheminement;nom_afnor;source_position;source_nom_voie;certification_commune;cad_parcelles";

function line(insee: string, numero: number, street: string, commune: string): string {
  return `${insee}_x_${numero};;${numero};;${street};01350;${insee};${commune};;;0;0;5.78;45.84;entrée;;;CULOZ-BEON;;commune;commune;1;`;
}

describe("importBan() and former commune codes", () => {
  const tables = compileReference();
  const codes = communeCodes(tables);
  let dir: string;
  let result: ImportResult;
  const warnings: string[] = [];
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "vrai-former-"));
    const file = path.join(dir, "adresses-01.csv.gz");
    const lines = [
      line("01138", 1, "Rue du Lavoir Neuf", "Culoz-Béon"),
      // Three rows under Béon's former code, as a stale extract would carry them.
      line("01039", 1, "Chemin des Vignes Hautes", "Béon"),
      line("01039", 3, "Chemin des Vignes Hautes", "Béon"),
      line("01039", 5, "Chemin des Vignes Hautes", "Béon"),
      // Two rows under a code of no commune.
      line("01999", 1, "Rue Inconnue", "Nulle Part"),
      line("01999", 2, "Rue Inconnue", "Nulle Part"),
    ];
    writeFileSync(file, gzipSync(`${[HEADER, ...lines].join("\n")}\n`));
    [result] = (await importBan(file, {
      banSource: "/nowhere",
      indexDir: path.join(dir, "idx"),
      communeCodes: codes,
      onWarning: (m) => warnings.push(m),
    })) as [ImportResult];
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("the reference knows Béon as a former commune of Culoz-Béon, and 01999 as nothing", () => {
    assert.equal(codes.formers.get("01039"), "01138");
    assert.ok(codes.current.has("01138"));
    assert.ok(!codes.current.has("01999") && !codes.formers.has("01999"));
  });

  test("rows of a former code are indexed under the current commune, and counted", () => {
    assert.equal(result.rows, 6);
    assert.equal(result.remappedRows, 3);
    const index = new BanIndex(readPackedFile(result.path));
    assert.deepEqual(index.header.communes.map((c) => c.code).sort(), ["01138", "01999"]);
    const culoz = index.header.communes.find((c) => c.code === "01138")!;
    assert.equal(culoz.streetCount, 2);
  });

  test("rows of an unknown code are kept as written, and the import warns with their count", () => {
    assert.deepEqual(result.unknownCommunes, { "01999": 2 });
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /2 rows carry INSEE codes of no current or former commune/);
    assert.match(warnings[0]!, /01999 \(2\)/);
  });

  test("the street of the former commune is found by the current commune and by the former name", () => {
    const matcher = new AddressMatcher({
      indexes: [new BanIndex(readPackedFile(result.path))],
      reference: new Reference(packReference(tables)),
    });
    // La Poste delivers 01138 as BEON: the former name is also the delivery name, so both lines are right as written.
    for (const city of ["Culoz-Béon", "Béon"]) {
      const r = matcher.match({ line: `3 Chemin des Vignes Hautes, 01350 ${city}` });
      assert.deepEqual([r.verdict, r.reasons], ["deliverable", []], city);
      assert.equal(r.normalized?.line, "3 Chemin des Vignes Hautes, 01350 Beon", city);
    }
  });

  test("a file with only current codes warns about nothing", async () => {
    const file = path.join(dir, "adresses-01b.csv.gz");
    writeFileSync(file, gzipSync(`${[HEADER, line("01138", 1, "Rue du Lavoir Neuf", "Culoz-Béon")].join("\n")}\n`));
    const quiet: string[] = [];
    const [r] = await importBan(file, {
      banSource: "/nowhere",
      indexDir: path.join(dir, "idx2"),
      communeCodes: codes,
      onWarning: (m) => quiet.push(m),
    });
    assert.deepEqual([r!.remappedRows, r!.unknownCommunes, quiet], [0, {}, []]);
  });
});
