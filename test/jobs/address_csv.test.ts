// Address files as customers write them (address_csv.ts), equal rows (address_rows.ts) and the postal lines of the
// answers (postal_lines.ts): tables of inputs and what a user gets from them.
import assert from "node:assert/strict";
import { test } from "node:test";
import { postalLine4, postalLine6 } from "../../src/address/postal_lines.ts";
import { isStorableText } from "../../src/http/schemas.ts";
import { storedAnswerText } from "../../src/address/stored_answer.ts";
import type { AddressInput, AddressVerification, NormalizedAddress } from "../../src/address/types.ts";
import {
  addressColumns,
  addressCsvBytes,
  addressInputCells,
  addressResultCells,
  parseAddressCsv,
} from "../../src/jobs/address_csv.ts";
import { addressKey, distinctRows, duplicateOf } from "../../src/jobs/address_rows.ts";
import { CsvReadError, csvLines } from "../../src/jobs/csv_table.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
/** A text's UTF-8 bytes as postgres.js hands a raw column over: a Buffer. */
const utf8 = (text: string) => Buffer.from(text, "utf8");
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

/** The rows of a chunk as the CSV download wrote them before addressCsvBytes(): cell arrays through csvLines(). */
function chunkThroughCsvLines(chunk: {
  inputs: AddressInput[];
  fields: string[][] | null;
  results: AddressVerification[];
}): string {
  const rows = chunk.results.map((result, k) => [
    ...(chunk.fields?.[k] ?? addressInputCells(chunk.inputs[k]!)),
    ...addressResultCells(result),
  ]);
  return csvLines(rows);
}

const answer = (normalized: Partial<NormalizedAddress> | null): AddressVerification => ({
  verdict: normalized === null ? "nonexistent" : "corrected",
  reasons: normalized === null ? ["street_not_found", "postcode_city_mismatch"] : ["street_corrected"],
  normalized:
    normalized === null
      ? null
      : {
          house_number: "10",
          house_number_suffix: null,
          street: "Avenue des Champs-Élysées",
          postcode: "75008",
          city: "Paris",
          country: "FR",
          line: "10 Avenue des Champs-Élysées, 75008 Paris",
          latitude: 48.871234,
          longitude: 2.3,
          insee_code: "75108",
          ban_id: "75108_1733_00010",
          postal_line_4: "10 AVENUE DES CHAMPS ELYSEES",
          postal_line_6: "75008 PARIS",
          ...normalized,
        },
  duration_ms: 0.12,
});

/** A chunk's answers as a job stores them (stored_answer.ts: arrays of values), and as objects (test keys' rows). */
function storedForms(results: AddressVerification[]): string[] {
  const arrays = `[${results.map(storedAnswerText).join(",")}]`;
  assert.ok(arrays.startsWith("[["), "the answers are stored as arrays");
  return [arrays, JSON.stringify(results)];
}

const awkward = [
  "10 rue de Rivoli, 75004 Paris",
  'le "Bon Marché"',
  "deux\nlignes",
  "cr\rseul",
  "Œuvre à l'école – ½ 🏠",
  "\u0001\u001f contrôle",
  "",
];

test("addressCsvBytes() writes a CSV submission's chunk as the cell arrays through csvLines() did", () => {
  const fields = awkward.map((cell, i) => [String(i + 1), cell, i % 2 === 0 ? "Esc. B, 2e" : ""]);
  const results = awkward.map((cell, i) =>
    i % 3 === 2
      ? answer(null)
      : answer({ street: cell, line: `${cell}, 75001 Paris`, house_number_suffix: i === 1 ? "bis" : null }),
  );
  const inputs = fields.map((row) => ({ line: row[1]! }));
  for (const stored of storedForms(results)) {
    const bytes = addressCsvBytes({ inputs: null, fields: utf8(JSON.stringify(fields)), results: utf8(stored) });
    assert.equal(Buffer.from(bytes).toString("utf8"), chunkThroughCsvLines({ inputs, fields, results }));
  }
});

test("addressCsvBytes() writes a JSON submission's chunk from its inputs", () => {
  const inputs: AddressInput[] = [
    { line: awkward[0] },
    { street: awkward[1], city: "Paris", country: "FR" },
    { house_number: "3", street: awkward[4], postcode: "75001" },
    {},
  ];
  const results = inputs.map((_, i) => answer(i === 3 ? null : { latitude: null, longitude: null }));
  for (const stored of storedForms(results)) {
    const bytes = addressCsvBytes({ inputs: utf8(JSON.stringify(inputs)), fields: null, results: utf8(stored) });
    assert.equal(Buffer.from(bytes).toString("utf8"), chunkThroughCsvLines({ inputs, fields: null, results }));
  }
});

test("addressCsvBytes() decodes JSON escapes beyond ASCII as UTF-8 decoding would", () => {
  // JSON.stringify writes neither, but a text written otherwise may hold them: é escaped, and a lone surrogate
  // (written as U+FFFD, as encoding the decoded text would).
  // A backslash before u00e9 in a cell is no escape, and takes the UTF-8 way too.
  const fields = `[["1","caf\\u00e9 \\u00c9"],["2","\\ud800 seul"],["3","\\u0041\\u0007"],${JSON.stringify(["4", "a\\u00e9"])}]`;
  const results = JSON.stringify([answer(null), answer(null), answer(null), answer({})]);
  const expected = chunkThroughCsvLines({ inputs: [], fields: JSON.parse(fields), results: JSON.parse(results) });
  const bytes = addressCsvBytes({ inputs: null, fields: utf8(fields), results: utf8(results) });
  assert.deepEqual(Buffer.from(bytes), Buffer.from(new TextEncoder().encode(expected)));
  assert.ok(Buffer.from(bytes).toString("utf8").includes("café É"));
});
