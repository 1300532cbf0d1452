// test-scope: once
// (Logic and data that no runtime changes: CI runs this file on its recommended runtime only; test/runner/run.ts.)
// The packed nationwide reference: codes as numbers, lookups read in place from the shared buffer, and the packed
// cache beside the index. match.test.ts checks what the matcher asks of it; engine.test.ts runs it in worker threads.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { before, describe, test } from "node:test";
import { cachedReference, compileReference } from "../../src/address/reference/compile.ts";
import { packReference } from "../../src/address/reference/pack_reference.ts";
import { Reference } from "../../src/address/reference/reference.ts";
import { codeNumber, codeText } from "../../src/address/reference/reference_format.ts";

test("codeNumber() and codeText() round-trip INSEE codes and postcodes, Corsica included", () => {
  for (const code of ["01004", "75056", "97411", "2A004", "2B033", "99999", "00000"])
    assert.equal(codeText(codeNumber(code)), code);
  assert.ok(codeNumber("2A004") > codeNumber("99999"));
  assert.notEqual(codeNumber("2A004"), codeNumber("2B004"));
  for (const bad of ["", "7500", "750011", "2C004", "2a004", "abcde"]) assert.equal(codeNumber(bad), -1, bad);
});

test("Reference refuses a buffer that is not a packed reference", () => {
  assert.throws(() => new Reference(new ArrayBuffer(64)), TypeError);
});

describe("Reference over the packed tables", () => {
  let packed: SharedArrayBuffer;
  let reference: Reference;
  before(() => {
    packed = packReference(compileReference());
    reference = new Reference(packed);
  });

  test("postcodes, communes and arrondissements", () => {
    assert.ok(reference.communesOfPostcode("75016").includes("75116"));
    assert.deepEqual(reference.communesOfPostcode("7501"), []);
    assert.deepEqual(reference.postcodesOf("75116"), ["75016", "75116"]);
    assert.deepEqual(reference.postcodesOf("2A004").sort(), ["20000", "20090", "20129", "20166", "20167"]);
    assert.equal(reference.expand("75056").length, 20);
    assert.deepEqual(reference.expand("2A004"), ["2A004"]);
    assert.deepEqual(reference.expand("not a code"), ["not a code"]);
    assert.deepEqual(reference.siblings("69383"), reference.expand("69123"));
    assert.deepEqual(reference.siblings("33063"), ["33063"]);
  });

  test("the postcodes codes-postaux leaves out come from decoupage-administratif, never for Paris, Lyon, Marseille", () => {
    // Overseas collectivities: Nouméa, Papeete.
    assert.deepEqual(reference.communesOfPostcode("98800"), ["98818"]);
    assert.ok(reference.communesOfPostcode("98714").includes("98735"));
    assert.deepEqual(reference.postcodesOf("98818"), ["98800"]);
    // A commune newer than codes-postaux' last release: Celles (Cantal), restored in 2025.
    assert.ok(reference.communesOfPostcode("15170").includes("15031"));
    assert.equal(
      reference.citiesNamed("Celles").some((m) => m.communes.includes("15031")),
      true,
    );
    // Those three are listed under their arrondissements, the communes BAN uses.
    for (const [postcode, parent] of [
      ["75001", "75056"],
      ["69001", "69123"],
      ["13001", "13055"],
    ])
      assert.ok(!reference.communesOfPostcode(postcode).includes(parent), postcode);
    // Monaco is not a French commune: 98000 stays unknown here (parse/country.ts reads it as Monaco).
    assert.deepEqual(reference.communesOfPostcode("98000"), []);
  });

  test("city names by kind, typos nationwide and among given communes, delivery names", () => {
    assert.deepEqual(reference.citiesNamed("Ajaccio"), [
      { kind: "name", communes: ["2A004"] },
      { kind: "acheminement", communes: ["2A004"] },
    ]);
    assert.deepEqual(reference.citiesNamed("Nowhere-sur-Rien"), []);
    assert.deepEqual(reference.closestCity("Ajacico"), { kind: "name", communes: ["2A004"] });
    assert.deepEqual(reference.closestCity("Ajacico", ["2A004", "33063"]), { kind: "name", communes: ["2A004"] });
    assert.equal(reference.closestCity("Ajacico", ["33063"]), null);
    assert.equal(reference.deliveryName("97400", "97411"), "Saint-Denis");
    assert.equal(reference.deliveryName("20167", "2A004"), "Mezzavia");
  });

  test("cachedReference() writes the packed form beside the index and reads it back", (t) => {
    const dir = mkdtempSync(path.join(tmpdir(), "vrai-reference-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const first = cachedReference(dir);
    const files = readdirSync(dir);
    assert.equal(files.length, 1);
    assert.match(files[0]!, /^reference-.*\.bin$/);
    const second = cachedReference(dir);
    assert.deepEqual(Buffer.from(second), Buffer.from(first));
    assert.deepEqual(Buffer.from(first), Buffer.from(packed));
    // A damaged cache is compiled again and replaced.
    writeFileSync(path.join(dir, files[0]!), "garbage");
    const third = new Reference(cachedReference(dir));
    assert.ok(third.communesOfPostcode("75016").includes("75116"));
    assert.ok(existsSync(path.join(dir, files[0]!)));
  });
});
