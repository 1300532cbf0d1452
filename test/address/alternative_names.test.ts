// Rural data: BAN's `alias` column and the lieu-dit of an address (`nom_ld` in the address export,
// `lieudit_complement_nom` in BAL files) are indexed as other names of the street: "1 Rue de la Station" finds BAN's
// "Rue de la Gare" when the file says so, and prints BAN's name. The files are written here, in a real commune
// (Vézelois, 90400); nothing comes from a real BAN file.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { gzipSync } from "node:zlib";
import { BanIndex } from "../../src/address/index/ban_index.ts";
import { communeCodes } from "../../src/address/index/commune_codes.ts";
import { importBan } from "../../src/address/index/import.ts";
import { AddressMatcher } from "../../src/address/match.ts";
import { readPackedFile } from "../../src/address/packed_file.ts";
import { compileReference } from "../../src/address/reference/compile.ts";
import { packReference } from "../../src/address/reference/pack_reference.ts";
import { Reference } from "../../src/address/reference/reference.ts";
import type { AddressReason, AddressVerdict } from "../../src/address/types.ts";

const EXPORT_HEADER =
  "id;id_fantoir;numero;rep;nom_voie;code_postal;code_insee;nom_commune;code_insee_ancienne_commune;nom_ancienne_commune;x;y;lon;lat;type_position;alias;nom_ld;libelle_acheminement;nom_afnor;source_position;source_nom_voie;certification_commune;cad_parcelles";
const BAL_HEADER =
  "numero;rep;nom_voie;code_postal;code_insee;lon;lat;libelle_acheminement;nom_afnor;alias;lieudit_complement_nom";

function exportLine(numero: number, street: string, alias: string, ld: string): string {
  return `90104_x_${numero};;${numero};;${street};90400;90104;Vézelois;;;0;0;6.9;47.6;entrée;${alias};${ld};VEZELOIS;;commune;commune;1;`;
}

interface Row {
  source: string;
  line: string;
  verdict: AddressVerdict;
  reasons: AddressReason[];
  street?: string;
  /** Matched over the BAL-shaped file rather than the address export. */
  bal?: true;
}

const ROWS: Row[] = [
  {
    source: "the alias names the street",
    line: "1 Rue de la Station, 90400 Vézelois",
    verdict: "deliverable",
    reasons: [],
    street: "Rue de la Gare",
  },
  {
    source: "the own name still wins",
    line: "1 Rue de la Gare, 90400 Vézelois",
    verdict: "deliverable",
    reasons: [],
    street: "Rue de la Gare",
  },
  {
    source: "the lieu-dit of the addresses (nom_ld)",
    line: "3 Les Prés Hauts, 90400 Vézelois",
    verdict: "deliverable",
    reasons: [],
    street: "Rue de la Gare",
  },
  {
    source: "the lieu-dit written with its word",
    line: "3 lieu-dit Les Prés Hauts, 90400 Vézelois",
    verdict: "deliverable",
    reasons: [],
    street: "Rue de la Gare",
  },
  {
    source: "several aliases in one field",
    line: "2 Chemin de Meroux, 90400 Vézelois",
    verdict: "deliverable",
    reasons: [],
    street: "Route de Meroux",
  },
  {
    source: "lieudit_complement_nom of a BAL file",
    line: "5 Le Champ du Moulin, 90400 Vézelois",
    verdict: "deliverable",
    reasons: [],
    street: "Rue du Moulin",
    bal: true,
  },
  {
    source: "a name nobody gave is still not found",
    line: "1 Rue de la Poste, 90400 Vézelois",
    verdict: "nonexistent",
    reasons: ["street_not_found"],
  },
];

describe("alternative names: alias and lieu-dit columns", () => {
  const tables = compileReference();
  let dir: string;
  let matcher: AddressMatcher;
  let balMatcher: AddressMatcher;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "vrai-alt-"));
    const exportFile = path.join(dir, "adresses-90.csv.gz");
    const exportLines = [
      exportLine(1, "Rue de la Gare", "Rue de la Station", ""),
      exportLine(3, "Rue de la Gare", "", "Les Prés Hauts"),
      exportLine(2, "Route de Meroux", "Chemin de Meroux|Ancienne Route", ""),
    ];
    writeFileSync(exportFile, gzipSync(`${[EXPORT_HEADER, ...exportLines].join("\n")}\n`));
    const codes = communeCodes(tables);
    const [fromExport] = await importBan(exportFile, {
      banSource: "/nowhere",
      indexDir: path.join(dir, "a"),
      communeCodes: codes,
    });
    const balFile = path.join(dir, "bal.csv.gz");
    const balLines = ["5;;Rue du Moulin;90400;90104;6.9;47.6;VEZELOIS;;;Le Champ du Moulin"];
    writeFileSync(balFile, gzipSync(`${[BAL_HEADER, ...balLines].join("\n")}\n`));
    const [fromBal] = await importBan(balFile, {
      banSource: "/nowhere",
      indexDir: path.join(dir, "b"),
      communeCodes: codes,
    });
    const exportIndex = new BanIndex(readPackedFile(fromExport!.path));
    // One row per distinct other name: "Rue de la Station", "Les Prés Hauts", "Chemin de Meroux", "Ancienne Route".
    assert.equal(exportIndex.alt.altStreet.length, 4);
    const reference = new Reference(packReference(tables));
    matcher = new AddressMatcher({ indexes: [exportIndex], reference });
    balMatcher = new AddressMatcher({ indexes: [new BanIndex(readPackedFile(fromBal!.path))], reference });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const row of ROWS) {
    test(`${row.line} → ${row.verdict} (${row.source})`, () => {
      const r = (row.bal ? balMatcher : matcher).match({ line: row.line });
      assert.deepEqual([r.verdict, [...r.reasons].sort()], [row.verdict, [...row.reasons].sort()], row.line);
      if (row.street !== undefined) assert.equal(r.normalized?.street, row.street, row.line);
    });
  }
});
