// The index format round-trips, the CSV reader streams, and the importer reads a local file or a URL base.
import assert from "node:assert/strict";
import { createReadStream, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { gzipSync } from "node:zlib";
import { BanIndex } from "../../src/address/index/ban_index.ts";
import { IndexBuilder, type BanRow } from "../../src/address/index/builder.ts";
import { asciiBytes } from "../../src/address/index/format.ts";
import { departementOfFile, importBan, isDepartementCode } from "../../src/address/index/import.ts";
import { readPackedFile } from "../../src/address/packed_file.ts";

const HEADER =
  "id;id_fantoir;numero;rep;nom_voie;code_postal;code_insee;nom_commune;code_insee_ancienne_commune;nom_ancienne_commune;x;y;lon;lat;type_position;alias;nom_ld;libelle_acheminement;nom_afnor;source_position;source_nom_voie;certification_commune;cad_parcelles";
function csvLine(r: Partial<BanRow>): string {
  return `x;;${r.numero};${r.rep ?? ""};${r.nomVoie};${r.codePostal};${r.codeInsee};Commune;;;0;0;${r.lon};${r.lat};entrée;;;${r.acheminement};${r.nomAfnor};commune;commune;1;`;
}
const ROWS: BanRow[] = [
  {
    numero: 3,
    rep: "",
    nomVoie: "Rue des Lilas",
    nomAfnor: "RUE DES LILAS",
    codePostal: "99001",
    codeInsee: "99001",
    acheminement: "TESTVILLE",
    lat: 48.1,
    lon: 2.1,
  },
  {
    numero: 1,
    rep: "",
    nomVoie: "Rue des Lilas",
    nomAfnor: "RUE DES LILAS",
    codePostal: "99001",
    codeInsee: "99001",
    acheminement: "TESTVILLE",
    lat: 48.0,
    lon: 2.0,
  },
  {
    numero: 1,
    rep: "bis",
    nomVoie: "Rue des Lilas",
    nomAfnor: "RUE DES LILAS",
    codePostal: "99001",
    codeInsee: "99001",
    acheminement: "TESTVILLE",
    lat: 48.05,
    lon: 2.05,
  },
  {
    numero: 7,
    rep: "",
    nomVoie: "Rue des Lilas",
    nomAfnor: "RUE DES LILAS",
    codePostal: "99002",
    codeInsee: "99002",
    acheminement: "AUTREVILLE",
    lat: 47,
    lon: 1,
  },
  {
    numero: 2,
    rep: "",
    nomVoie: "Boulevard du Maréchal Jean Marie de Lattre de Tassigny",
    nomAfnor: "BD MAL J M DE LATTRE DE TASSIGNY",
    codePostal: "99001",
    codeInsee: "99001",
    acheminement: "TESTVILLE",
    lat: 48.2,
    lon: 2.2,
  },
];

test("IndexBuilder output reads back through BanIndex", () => {
  const b = new IndexBuilder("99");
  for (const r of ROWS) b.add(r);
  const bytes = b.finish();
  const shared = new SharedArrayBuffer(bytes.length);
  new Uint8Array(shared).set(bytes);
  const index = new BanIndex(shared);
  assert.equal(index.header.streetCount, 3);
  assert.equal(index.header.addressCount, 5);
  const ids: number[] = [];
  index.byKey(asciiBytes("rue lilas"), ids);
  assert.deepEqual(ids.map((s) => index.communeCode(s)).sort(), ["99001", "99002"]);
  const lilas = ids.find((s) => index.communeCode(s) === "99001")!;
  assert.equal(index.streetName(lilas), "Rue des Lilas");
  // Sorted by number then suffix: 1, 1 bis, 3.
  const start = index.st.stAddrStart[lilas]!;
  assert.deepEqual(
    [0, 1, 2].map((k) => [index.ad.adNumber[start + k], index.header.suffixes[index.ad.adSuffix[start + k]!]]),
    [
      [1, ""],
      [1, "bis"],
      [3, ""],
    ],
  );
  assert.deepEqual(index.numberRange(lilas, 1), [start, start + 2]);
  assert.equal(index.ad.adLat[start + 2]! / 1e6, 48.1);
  const afnor: number[] = [];
  index.byAfnor(asciiBytes("boulevard marechal j m lattre tassigny"), afnor);
  assert.equal(afnor.length, 1);
  const named: number[] = [];
  index.byName(asciiBytes("lilas"), named);
  assert.equal(named.length, 2);
});

test("BanIndex refuses a file that is not an index", () => {
  assert.throws(() => new BanIndex(new ArrayBuffer(64)), TypeError);
});

test("isDepartementCode() and departementOfFile() tell codes from paths", () => {
  for (const c of ["75", "2A", "2b", "971"]) assert.ok(isDepartementCode(c), c);
  for (const c of ["7", "975x", "adresses-75.csv.gz"]) assert.ok(!isDepartementCode(c), c);
  assert.equal(departementOfFile("/x/adresses-2a.csv.gz"), "2A");
  assert.equal(departementOfFile("/x/adresses-01.csv"), "01");
  assert.throws(() => departementOfFile("/x/paris.csv.gz"), TypeError);
});

test("importBan() reads a local file and a URL base (with a redirect), streaming", async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), "vrai-ban-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, "adresses-99.csv.gz");
  writeFileSync(file, gzipSync(`${[HEADER, ...ROWS.map(csvLine)].join("\n")}\n`));
  const progress: number[] = [];
  const [local] = await importBan(file, {
    banSource: "/nowhere",
    indexDir: path.join(dir, "a"),
    onProgress: (p) => progress.push(p.rows),
  });
  assert.equal(local!.departement, "99");
  assert.equal(local!.rows, 5);
  assert.ok(progress.length > 0);
  assert.equal(new BanIndex(readPackedFile(local!.path)).header.addressCount, 5);

  const [fromDir] = await importBan("99", { banSource: dir, indexDir: path.join(dir, "b") });
  assert.equal(fromDir!.rows, 5);

  const server = createServer((req, res) => {
    if (req.url === "/latest/adresses-99.csv.gz") {
      res.writeHead(302, { location: "/2024-06-01/adresses-99.csv.gz" }).end();
    } else if (req.url === "/2024-06-01/adresses-99.csv.gz") {
      res.writeHead(200, { "content-type": "application/gzip" });
      createReadStream(file).pipe(res);
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => server.close());
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const [remote] = await importBan("99", { banSource: `${base}/latest`, indexDir: path.join(dir, "c") });
  assert.equal(remote!.rows, 5);
  assert.ok(existsSync(path.join(dir, "c", "ban-99.idx")));
  await assert.rejects(importBan("98", { banSource: `${base}/latest`, indexDir: path.join(dir, "d") }), /answered 404/);
});
