// Every (commune, postcode) pair of La Poste's own base (../shared/data/laposte, June 2025; skipped when absent) is a
// consistent pair: "1 Rue de la Gare, <postcode> <commune>" must never answer `nonexistent` (issue 14, item 5: the
// whole country's postcodes and communes ship with the service). No street index here, so a pair is `unknown`
// (postcode_not_covered), corrected when the base writes an older name, or Monaco's country_not_covered.
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
 * Pairs the service still calls `postcode_city_mismatch`, each with why: names La Poste writes that neither data
 * package has. A new one in this list is a regression.
 */
const KNOWN_MISSES = new Map([
  ["64181 64370 CASTILLON D ARTHEZ", "the packages name it Castillon (Canton d'Arthez)"],
  ["64182 64350 CASTILLON DE LEMBEYE", "the packages name it Castillon (Canton de Lembeye)"],
  ["74045 74230 LE BOUCHET", "its former name: the packages know Le Bouchet-Mont-Charvin only"],
  ["95218 95610 ERAGNY", "Éragny-sur-Oise in the packages; Éragny alone is the commune of the Eure (27)"],
]);

/** The rows of La Poste's CSV: INSEE code, commune name, postcode (every field quoted or empty, none with a comma). */
function laPosteRows(): { insee: string; name: string; postcode: string }[] {
  return readFileSync(LAPOSTE, "utf8")
    .split("\n")
    .slice(1)
    .filter(Boolean)
    .map((line) => {
      const [insee, name, postcode] = line.split(",").map((field) => field.replace(/^"|"$/g, ""));
      return { insee: insee!, name: name!, postcode: postcode! };
    });
}

describe("La Poste's base", { skip: existsSync(LAPOSTE) ? false : `${LAPOSTE} absent` }, () => {
  test("no (commune, postcode) pair of La Poste is answered nonexistent, but the known misses", () => {
    const matcher = new AddressMatcher({ indexes: [], reference: new Reference(packReference(compileReference())) });
    const rows = laPosteRows();
    assert.ok(rows.length > 39_000, `${rows.length} rows`);
    const misses: string[] = [];
    const verdicts = new Map<string, number>();
    for (const { insee, name, postcode } of rows) {
      const answer = matcher.match({ line: `1 Rue de la Gare, ${postcode} ${name}` });
      verdicts.set(answer.verdict, (verdicts.get(answer.verdict) ?? 0) + 1);
      if (answer.verdict === "nonexistent") misses.push(`${insee} ${postcode} ${name}`);
    }
    assert.deepEqual([...new Set(misses)].sort(), [...KNOWN_MISSES.keys()].sort());
    // The rest is unknown (no street index), Monaco included; a few are corrected (the base's older names).
    assert.ok((verdicts.get("unknown") ?? 0) > rows.length - 50, JSON.stringify(Object.fromEntries(verdicts)));
    const monaco = matcher.match({ line: "1 Rue de la Gare, 98000 MONACO" });
    assert.deepEqual([monaco.verdict, monaco.reasons], ["unknown", ["country_not_covered"]]);
  });
});
