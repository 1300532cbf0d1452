// slipDistance(): what each kind of keyboard slip costs, on AZERTY and QWERTY alike, and the cap.
import assert from "node:assert/strict";
import { test } from "node:test";
import { keyNeighbours, slipDistance } from "../../../src/email/checks/slip_distance.ts";

test("keyNeighbours() knows the keys beside each other on AZERTY only, QWERTY only, and both", () => {
  assert.ok(keyNeighbours("l", "m"), "AZERTY: m right of l");
  assert.ok(keyNeighbours("q", "s"), "AZERTY: q left of s");
  assert.ok(keyNeighbours("z", "e"), "AZERTY: z left of e");
  assert.ok(keyNeighbours("a", "s"), "QWERTY: s right of a");
  assert.ok(keyNeighbours("z", "x"), "QWERTY: x right of z");
  assert.ok(keyNeighbours("r", "t"), "both: t right of r");
  assert.ok(keyNeighbours("r", "f"), "both: f under r");
  assert.ok(keyNeighbours(",", "."), "the comma beside the full stop");
  assert.ok(!keyNeighbours("g", "p"), "far apart on both");
  assert.ok(!keyNeighbours("m", "r"), "far apart on both");
});

type Case = [typed: string, meant: string, slips: number, kind: string];
const cases: Case[] = [
  ["gmail.com", "gmail.com", 0, "no slip"],
  ["gmaim.com", "gmail.com", 1, "a key beside it on AZERTY"],
  ["gmsil.com", "gmail.com", 1, "a key beside it on QWERTY"],
  ["gmpil.com", "gmail.com", 2, "a key far from it on both: as much as two slips"],
  ["gmial.com", "gmail.com", 1, "two letters swapped"],
  ["gmaill.com", "gmail.com", 1, "a letter doubled"],
  ["gmaiul.com", "gmail.com", 1, "a letter struck with its neighbour"],
  ["gmaizl.com", "gmail.com", 2, "a letter inserted out of nowhere"],
  ["gmai.com", "gmail.com", 1, "a letter dropped"],
  ["gmailcom", "gmail.com", 1, "the dot dropped"],
  ["gmail,com", "gmail.com", 1, "a comma for the dot"],
  ["gmailc.om", "gmail.com", 1, "the dot moved one place"],
  ["gmail..com", "gmail.com", 1, "the dot doubled"],
  ["gamil.om", "gmail.com", 2, "two slips"],
];
for (const [typed, meant, slips, kind] of cases) {
  test(`slipDistance() counts ${typed} ${slips} slip(s) from ${meant} [${kind}]`, () => {
    assert.equal(slipDistance(typed, meant, 4), slips);
  });
}

test("slipDistance() answers cap + 1 past the cap, however far", () => {
  assert.equal(slipDistance("gamil.om", "gmail.com", 1), 2);
  assert.equal(slipDistance("entreprise.fr", "gmail.com", 2), 3);
  assert.equal(slipDistance("a.fr", "numericable.fr", 2), 3);
});

test("slipDistance() gives the same answer whatever was compared before (its rows are reused)", () => {
  const first = slipDistance("hotmial.fr", "hotmail.fr", 2);
  slipDistance("a-much-longer-domain-than-any-target.example", "club-internet.fr", 2);
  slipDistance("hotmial.fr", "gmail.com", 2);
  assert.equal(slipDistance("hotmial.fr", "hotmail.fr", 2), first);
  assert.equal(first, 1);
});
