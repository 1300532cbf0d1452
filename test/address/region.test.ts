// The regions people add after the city (parse/region.ts): told apart from the words before them.
import assert from "node:assert/strict";
import { test } from "node:test";
import { beforeRegion, isRegionName } from "../../src/address/parse/region.ts";

test("a region's name, its accents, hyphens and short form aside, is a region", () => {
  for (const name of ["Île-de-France", "ile de france", "IDF", "Provence-Alpes-Côte d'Azur", "Grand Est"]) {
    assert.equal(isRegionName(name), true, name);
  }
  for (const name of ["Paris", "Île", "France", "Est", "Centre"]) assert.equal(isRegionName(name), false, name);
});

test("the words before a region that ends the text, the longest region first", () => {
  assert.equal(beforeRegion("rue de Rivoli Paris Île-de-France"), "rue de Rivoli Paris");
  assert.equal(beforeRegion("rue de Rivoli Paris ile de france"), "rue de Rivoli Paris");
  assert.equal(beforeRegion("Marseille Provence-Alpes-Côte d'Azur"), "Marseille");
  assert.equal(beforeRegion("Lyon ARA"), "Lyon");
});

test("no region at the end, or nothing before it: null", () => {
  assert.equal(beforeRegion("rue de Rivoli Paris"), null);
  assert.equal(beforeRegion("Quai Anatole France"), null);
  assert.equal(beforeRegion("Île-de-France"), null);
});
