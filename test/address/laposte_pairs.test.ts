// test-scope: once
// (Logic and data that no runtime changes: CI runs this file on its recommended runtime only; test/runner/run.ts.)
// Every (commune, postcode) pair of La Poste's own base (../shared/data/laposte, June 2025; skipped when absent) is a
// consistent pair, with the commune's name or La Poste's delivery name: "1 Rue de la Gare, <postcode> <name>" must not
// answer `nonexistent` (the whole country's postcodes and communes ship with the service). No street
// index here, so a pair is `unknown` (postcode_not_covered), corrected when the base writes an older name, or Monaco's
// country_not_covered.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { AddressMatcher } from "../../src/address/match.ts";
import { compileReference } from "../../src/address/reference/compile.ts";
import { packReference } from "../../src/address/reference/pack_reference.ts";
import { Reference } from "../../src/address/reference/reference.ts";

const LAPOSTE = path.resolve(
  import.meta.dirname,
  "../../../shared/data/laposte/base-officielle-codes-postaux-2025-06.csv",
);

/**
 * How many pairs may still be called `postcode_city_mismatch` (no excerpt of the base is kept here): with the commune's
 * name, one former name that neither data package has; with La Poste's delivery names, a few that the packages name
 * otherwise (2025 names cut or lengthened past what communeByNameEnd reads) and secondary postcodes of New Caledonia
 * that neither package lists. Before the reference took decoupage-administratif's postcodes: 60 and 300.
 */
const MOST_MISSES = { name: 1, deliveryName: 20 };

/** The rows of La Poste's CSV: INSEE code, commune, postcode, delivery name (fields quoted or empty, none with a comma). */
function laPosteRows(): { insee: string; name: string; postcode: string; deliveryName: string }[] {
  return readFileSync(LAPOSTE, "utf8")
    .split("\n")
    .slice(1)
    .filter(Boolean)
    .map((line) => {
      const [insee, name, postcode, deliveryName] = line.split(",").map((field) => field.replace(/^"|"$/g, ""));
      return { insee: insee!, name: name!, postcode: postcode!, deliveryName: deliveryName! };
    });
}

describe("La Poste's base", { skip: existsSync(LAPOSTE) ? false : `${LAPOSTE} absent` }, () => {
  test("no (commune or delivery name, postcode) pair of La Poste is answered nonexistent, but a known few", () => {
    const matcher = new AddressMatcher({ indexes: [], reference: new Reference(packReference(compileReference())) });
    const rows = laPosteRows();
    assert.ok(rows.length > 39_000, `${rows.length} rows`);
    for (const side of ["name", "deliveryName"] as const) {
      const misses = new Set<string>();
      let unknown = 0;
      for (const row of rows) {
        const answer = matcher.match({ line: `1 Rue de la Gare, ${row.postcode} ${row[side]}` });
        if (answer.verdict === "nonexistent") misses.add(`${row.insee} ${row.postcode} ${row[side]}`);
        if (answer.verdict === "unknown") unknown++;
      }
      assert.ok(misses.size <= MOST_MISSES[side], `${side}: ${misses.size} nonexistent: ${[...misses].join("; ")}`);
      // The rest is unknown (no street index), Monaco included; a few are corrected.
      assert.ok(unknown > rows.length - 50, `${side}: ${unknown} unknown of ${rows.length}`);
    }
    const monaco = matcher.match({ line: "1 Rue de la Gare, 98000 MONACO" });
    assert.deepEqual([monaco.verdict, monaco.reasons], ["unknown", ["country_not_covered"]]);
  });
});
