// Numbers inside street names, spelled out in the match keys: digits, words and roman
// numerals meet in one form; years and single letters stay as they are.
import assert from "node:assert/strict";
import { test } from "node:test";
import { streetKey } from "../../src/address/normalize/match_key.ts";
import { frenchNumberWords, numberWords, romanValue } from "../../src/address/normalize/number_words.ts";

test("frenchNumberWords() spells 1 to 99 and refuses the rest", () => {
  const cases: [number, string][] = [
    [1, "un"],
    [4, "quatre"],
    [16, "seize"],
    [18, "dix huit"],
    [21, "vingt et un"],
    [25, "vingt cinq"],
    [44, "quarante quatre"],
    [71, "soixante et onze"],
    [77, "soixante dix sept"],
    [80, "quatre vingt"],
    [92, "quatre vingt douze"],
  ];
  for (const [n, words] of cases) assert.equal(frenchNumberWords(n).join(" "), words, String(n));
  assert.throws(() => frenchNumberWords(0), RangeError);
  assert.throws(() => frenchNumberWords(100), RangeError);
});

test("romanValue() reads i, v, x numerals of two letters or more", () => {
  const cases: [string, number | null][] = [
    ["ii", 2],
    ["iv", 4],
    ["vi", 6],
    ["ix", 9],
    ["xiv", 14],
    ["xxiv", 24],
    ["xxix", 29],
    ["x", null],
    ["v", null],
    ["mi", null],
    ["iiii", null],
    ["vx", null],
  ];
  for (const [word, value] of cases) assert.equal(romanValue(word), value, word);
});

test("numberWords() leaves years, ordinals and plain words alone", () => {
  assert.deepEqual(numberWords(["rue", "du", "8", "mai", "1945"]), ["rue", "du", "huit", "mai", "1945"]);
  assert.deepEqual(numberWords(["quatre", "vingts"]), ["quatre", "vingt"]);
  assert.deepEqual(numberWords(["1e", "constructor"]), ["1e", "constructor"]);
  // 1 stays a digit: "un" is an article the key drops.
  assert.deepEqual(numberWords(["allee", "x", "1"]), ["allee", "x", "1"]);
});

test("streetKey() gives one key to digits, words and roman numerals, as BAN and people write numbers inside names", () => {
  const same: [string, string][] = [
    ["Rue du 4 Septembre", "Rue du Quatre Septembre"],
    ["Rue du 8 Mai 1945", "Rue du Huit Mai 1945"],
    ["Rue du 08 Mai 1945", "Rue du Huit Mai 1945"],
    ["Place du 18 Juin 1940", "Place du Dix-Huit Juin 1940"],
    ["Rue du XXIV Novembre", "Rue du 24 Novembre"],
    ["Rue du XXIV Novembre", "rue du vingt-quatre novembre"],
    ["Boulevard Henri IV", "boulevard henri 4"],
    ["Rue du 21 Janvier", "Rue du Vingt et Un Janvier"],
    ["Impasse du Quarante-Neuf Faubourg Saint-Martin", "impasse du 49 faubourg saint martin"],
  ];
  for (const [a, b] of same) assert.equal(streetKey(a).key, streetKey(b).key, `${a} / ${b}`);
  assert.notEqual(streetKey("Rue du 8 Mai 1945").key, streetKey("Rue du 9 Mai 1945").key);
  // A roman numeral alone after a type or an article is a name: "Rue de VII" must not meet Paris's "Voie A/7".
  assert.equal(streetKey("Rue de VII").key, "rue vii");
  assert.notEqual(streetKey("Rue de VII").name, streetKey("Voie A/7").name);
});
