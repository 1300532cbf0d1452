// Address files as customers write them (address_csv.ts), equal rows (address_rows.ts) and the postal lines of the
// answers (postal_lines.ts): tables of inputs and what a user gets from them.
import assert from "node:assert/strict";
import { test } from "node:test";
import { postalLine4, postalLine6 } from "../../src/address/postal_lines.ts";
import { isStorableText } from "../../src/http/schemas.ts";
import { addressColumns, addressResultCells, parseAddressCsv } from "../../src/jobs/address_csv.ts";
import { addressKey, distinctRows, duplicateOf } from "../../src/jobs/address_rows.ts";
import { CsvReadError } from "../../src/jobs/csv_table.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const parse = (text: string) => parseAddressCsv(bytes(text), { isStorable: isStorableText });

test("addressColumns() reads French and international names, in any case and without accents", () => {
  assert.deepEqual(addressColumns(["Client", "Numéro", "VOIE", "Code Postal", "Ville"]), {
    house_number: 1,
    street: 2,
    postcode: 3,
    city: 4,
  });
  assert.deepEqual(addressColumns(["id", "Adresse"]), { line: 1 });
  assert.deepEqual(addressColumns(["address", "city", "country"]), { line: 0, city: 1, country: 2 });
  assert.deepEqual(addressColumns(["house_number", "street", "postcode", "commune", "complement"]), {
    house_number: 0,
    street: 1,
    postcode: 2,
    city: 3,
  });
  assert.throws(() => addressColumns(["name", "phone"]), CsvReadError);
  // A number, a city or a postcode alone does not make a list of addresses.
  assert.throws(() => addressColumns(["numero", "note"]), /no address column/);
  assert.throws(() => addressColumns(["name", "city"]), /no address column/);
  assert.throws(() => addressColumns(["cp", "ville"]), /no address column/);
});

test("parseAddressCsv() gives each row its input, keeps every cell, and skips empty cells", () => {
  const csv = parse('\uFEFFid;adresse;cp;complement\r\n1;"10 rue de Rivoli; bât B";75004;Esc. 2\r\n2;;75001;\r\n');
  assert.deepEqual(csv.columns, ["id", "adresse", "cp", "complement"]);
  assert.deepEqual(csv.inputs, [{ line: "10 rue de Rivoli; bât B", postcode: "75004" }, { postcode: "75001" }]);
  assert.deepEqual(csv.rows[0], ["1", "10 rue de Rivoli; bât B", "75004", "Esc. 2"]);
  assert.equal(csv.format.bom, true);
  assert.equal(csv.format.separator, ";");
});

test("parseAddressCsv() refuses a field longer than the API allows, naming its line", () => {
  const long = "x".repeat(301);
  assert.throws(
    () => parse(`voie,ville\nrue de Rivoli,Paris\n${long},Paris\n`),
    (error: unknown) =>
      error instanceof CsvReadError && error.line === 3 && /voie field is longer than 300/.test(error.message),
  );
});

test("rows equal once trimmed, space-collapsed and lower-cased are one address", () => {
  const inputs = [
    { line: "10 rue de Rivoli 75004 Paris" },
    { line: " 10  Rue de RIVOLI 75004 paris " },
    { line: "10 rue de Rivoli", city: "Paris" },
    { line: "11 rue de Rivoli 75004 Paris" },
    { line: "10 rue de Rivoli", city: "PARIS" },
  ];
  assert.deepEqual(duplicateOf(inputs), [null, 1, null, null, 3]);
  assert.equal(distinctRows(inputs), 3);
  assert.notEqual(addressKey({ line: "10 rue de Rivoli" }), addressKey({ street: "10 rue de Rivoli" }));
});

test("postal lines are upper case without accents, at most 38 characters, shortened by BAN's rules", () => {
  assert.equal(
    postalLine4({ house_number: "150", house_number_suffix: null, street: "Rue de Rivoli" }),
    "150 RUE DE RIVOLI",
  );
  assert.equal(
    postalLine4({ house_number: "12", house_number_suffix: "bis", street: "Rue de l'Église" }),
    "12 BIS RUE DE L EGLISE",
  );
  const long = postalLine4({
    house_number: "10",
    house_number_suffix: null,
    street: "Boulevard du Maréchal Jean-Marie de Lattre de Tassigny",
  });
  assert.ok(long !== null && long.length <= 38, String(long));
  assert.equal(long, "10 BD DU MAL J M DE LATTRE DE TASSIGNY");
  assert.equal(postalLine4({ house_number: null, house_number_suffix: null, street: "" }), null);
  assert.equal(postalLine6({ postcode: "75001", city: "Paris" }), "75001 PARIS");
  assert.equal(postalLine6({ postcode: "97400", city: "Saint-Denis" }), "97400 SAINT DENIS");
});

test("addressResultCells() writes an answer without a normalized address as empty cells", () => {
  assert.deepEqual(
    addressResultCells({ verdict: "nonexistent", reasons: ["street_not_found"], normalized: null, duration_ms: 0 }),
    ["nonexistent", "street_not_found", ...Array(12).fill("")],
  );
});
