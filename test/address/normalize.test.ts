import assert from "node:assert/strict";
import { test } from "node:test";
import { cityKey, streetKey } from "../../src/address/normalize/match_key.ts";
import { foldAccents } from "../../src/address/normalize/fold_accents.ts";
import { foldOrdinalWord } from "../../src/address/normalize/ordinal.ts";
import { phoneticKey } from "../../src/address/normalize/phonetic.ts";
import { guessStreetType } from "../../src/address/normalize/street_types.ts";
import { tokenize } from "../../src/address/normalize/tokenize.ts";
import { boundedDistance, stringDistance } from "../../src/text/edit_distance.ts";
import { maxEdits } from "../../src/address/match/fuzzy_budget.ts";

test("foldAccents() folds accents and ligatures", () => {
  assert.equal(foldAccents("Rue de l’Église Œuvre Ærø Straße"), "Rue de l’Eglise OEuvre AEro Strasse");
  assert.equal(foldAccents("plain"), "plain");
});

test("tokenize() splits on apostrophes and hyphens", () => {
  assert.deepEqual(tokenize("Rue de l'Église Saint-Martin"), ["rue", "de", "l", "eglise", "saint", "martin"]);
  assert.deepEqual(tokenize("presqu'île"), ["presqu", "ile"]);
});

const STREETS: Array<[string, string, string | null]> = [
  // input, key, type
  ["Rue de Rivoli", "rue rivoli", "rue"],
  ["r. de rivoli", "rue rivoli", "rue"],
  ["R DE RIVOLI", "rue rivoli", "rue"],
  ["Avenue du Général Lemonnier", "avenue general lemonnier", "avenue"],
  ["av du gal lemonnier", "avenue general lemonnier", "avenue"],
  ["bd st germain", "boulevard saint germain", "boulevard"],
  ["Boulevard Saint-Germain", "boulevard saint germain", "boulevard"],
  ["Rue du Faubourg Saint-Honoré", "rue faubourg saint honore", "rue"],
  ["Fbg St Honoré", "faubourg saint honore", "faubourg"],
  // Numbers inside names are spelled out, years stay digits (normalize/number_words.ts).
  ["Place du 18 Juin 1940", "place dix huit juin 1940", "place"],
  ["Rue du Premier Mai", "rue 1e mai", "rue"],
  ["Rue du 1er Mai", "rue 1e mai", "rue"],
  ["Rond-Point des Champs-Élysées", "rondpoint champs elysees", "rondpoint"],
  ["rd pt des champs elysees", "rondpoint champs elysees", "rondpoint"],
  ["Rue d'Elbeuf", "rue elbeuf", "rue"],
  ["Rue de l'Abbé Grégoire", "rue abbe gregoire", "rue"],
  ["Square Notre Dame", "square notre dame", "square"],
  ["Sq N D", "square n", "square"],
  ["sq nd", "square notre dame", "square"],
  ["Rue du 08 Mai 1945", "rue huit mai 1945", "rue"],
  ["Grande Rue", "grande rue", null],
  ["St Germain", "saint germain", null],
];

for (const [input, key, type] of STREETS) {
  test(`streetKey() reads ${JSON.stringify(input)} as ${JSON.stringify(key)}`, () => {
    const k = streetKey(input);
    assert.equal(k.key, key);
    assert.equal(k.type, type);
  });
}

const CITIES: Array<[string, string]> = [
  ["Paris", "paris"],
  ["PARIS", "paris"],
  ["Paris 1er Arrondissement", "paris 1"],
  ["Paris 01", "paris 1"],
  ["PARIS 16", "paris 16"],
  ["Paris 16e", "paris 16"],
  // A roman numeral without its "e", and an ordinal's ending typed apart, after a city with arrondissements.
  ["Paris IV", "paris 4"],
  ["paris xvi", "paris 16"],
  ["Marseille VIII", "marseille 8"],
  ["Paris 2 eme", "paris 2"],
  ["Lyon 1 er", "lyon 1"],
  ["Paris 4 e arrondissement", "paris 4"],
  // Elsewhere a lone letter is a word of the name.
  ["Vitry-le-François V", "vitry francois v"],
  ["Saint-Didier-sous-Écouves", "saint didier ecouves"],
  ["St Didier s Ecouves", "saint didier s ecouves"],
  ["Villeneuve-d'Ascq", "villeneuve ascq"],
  ["VILLENEUVE D ASCQ", "villeneuve ascq"],
];
for (const [input, key] of CITIES) {
  test(`cityKey() reads ${JSON.stringify(input)} as ${JSON.stringify(key)}`, () => assert.equal(cityKey(input), key));
}

test("foldOrdinalWord() gives one form to numeric, word and roman ordinals", () => {
  for (const w of ["1er", "1ere", "1re", "premier", "premiere", "ier"]) assert.equal(foldOrdinalWord(w), "1e");
  for (const w of ["2e", "2eme", "2ieme", "deuxieme", "iie"]) assert.equal(foldOrdinalWord(w), "2e");
  assert.equal(foldOrdinalWord("rivoli"), "rivoli");
  assert.equal(foldOrdinalWord("setpieme"), "7e");
  assert.equal(foldOrdinalWord("extreme"), "extreme");
});

test("phoneticKey() gives sound-alike spellings one key", () => {
  const same: Array<[string, string]> = [
    ["haussmann", "osman"],
    ["lecourbe", "lekourbe"],
    ["cergy", "sergi"],
    ["philippe", "filipe"],
    ["vaux", "vau"],
  ];
  for (const [a, b] of same) assert.equal(phoneticKey([a]), phoneticKey([b]), `${a} / ${b}`);
  assert.notEqual(phoneticKey(["rivoli"]), phoneticKey(["lecourbe"]));
});

test("guessStreetType() recognises a type word with one slip", () => {
  assert.equal(guessStreetType("aveue"), "avenue");
  assert.equal(guessStreetType("bouelvard"), "boulevard");
  assert.equal(guessStreetType("impase"), "impasse");
  assert.equal(guessStreetType("rivoli"), null);
  assert.equal(guessStreetType("rue"), null);
});

test("boundedDistance() counts edits and transpositions, and gives up past the bound", () => {
  assert.equal(stringDistance("rivoli", "rivoli", 2), 0);
  assert.equal(stringDistance("rivoli", "rivloi", 2), 1);
  assert.equal(stringDistance("rivoli", "rivol", 2), 1);
  assert.equal(stringDistance("rivoli", "rivolli", 2), 1);
  assert.equal(stringDistance("rivoli", "lecourbe", 2), 3);
  const a = Buffer.from("xx rivoli"),
    b = Buffer.from("rivoli");
  assert.equal(boundedDistance(a, b, { aStart: 3, aEnd: 9, bStart: 0, bEnd: 6, max: 1 }), 0);
});

test("stringDistance() reads latin1 words of any length, a long one before a short one", () => {
  // Its buffers are reused and grow on a long word: what a longer word left behind must not count.
  const long = "faubourg saint honore ".repeat(5);
  assert.equal(stringDistance(long, `${long}x`, 2), 1);
  assert.equal(stringDistance(long, long.replace("honore", "honroe"), 2), 1);
  assert.equal(stringDistance("sain", "saint", 1), 1);
  assert.equal(stringDistance("des", "de", 1), 1);
  assert.equal(stringDistance("côte", "cote", 1), 1);
  assert.equal(stringDistance("côte", "côte", 1), 0);
});

test("maxEdits() allows a handful of edits, fewer on short names", () => {
  assert.deepEqual([3, 4, 7, 8, 12, 13, 18, 19, 40].map(maxEdits), [0, 1, 1, 2, 2, 3, 3, 4, 4]);
});

test("streetKey() treats words named like Object members as plain words", () => {
  assert.equal(streetKey("Rue Constructor").key, "rue constructor");
  assert.equal(streetKey("Rue du Constructor Premier").key, "rue constructor 1e");
});
