// Issue 14, "Addresses as people type them": one row per example of the issue and per rule implemented, each with its
// source. Paris rows run over the real Paris BAN file (../shared/data/ban, skipped when absent); the rows about
// small words and coverage run over a small index written here with real commune codes.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { parisMatcher, PARIS_SKIP } from "./paris_matcher.ts";
import { streetRows, writtenIndex } from "./written_index.ts";
import { AddressMatcher } from "../../src/address/match.ts";
import { compileReference } from "../../src/address/reference/compile.ts";
import { packReference } from "../../src/address/reference/pack_reference.ts";
import { Reference } from "../../src/address/reference/reference.ts";
import type { AddressInput, AddressReason, AddressVerdict } from "../../src/address/types.ts";

interface Row {
  source: string;
  line: string;
  /** Fields sent instead of the line (the line then only names the row). */
  fields?: AddressInput;
  verdict: AddressVerdict;
  reasons: AddressReason[];
  /** The street and postcode of the answer, when one is expected. */
  street?: string;
  postcode?: string;
  /** The house-number suffix printed (null: none). */
  suffix?: string | null;
  /** The normalized line a user sees (null: no normalized address). */
  output?: string | null;
}

function expectRow(matcher: AddressMatcher, row: Row): void {
  const r = matcher.match(row.fields ?? { line: row.line });
  const got = { verdict: r.verdict, reasons: [...r.reasons].sort() };
  assert.deepEqual(got, { verdict: row.verdict, reasons: [...row.reasons].sort() }, `${row.line} (${row.source})`);
  if (row.street !== undefined) assert.equal(r.normalized?.street, row.street, row.line);
  if (row.postcode !== undefined) assert.equal(r.normalized?.postcode, row.postcode, row.line);
  if (row.suffix !== undefined) assert.equal(r.normalized?.house_number_suffix, row.suffix, row.line);
  if (row.output !== undefined) assert.equal(r.normalized?.line ?? null, row.output, row.line);
}

const PARIS_ROWS: Row[] = [
  // Item 1: two edits in names of 5+ letters when the winner leads every other name.
  {
    source: "issue 14 §two-letter slips",
    line: "12 Passage Kracahr, 75018 Paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Passage Kracher",
  },
  {
    source: "issue 14 §two-letter slips",
    line: "12 Rue d'Eaghie, 75010 Paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Rue d'Enghien",
  },
  {
    source: "issue 14 §two-letter slips",
    line: "Boulevard du Tempbl, 75003 Paris",
    verdict: "incomplete",
    reasons: ["missing_house_number", "street_corrected"],
    street: "Boulevard du Temple",
  },
  {
    source: "item 1, transposition counts one edit",
    line: "Boulevard du Tmeple, 75003 Paris",
    verdict: "incomplete",
    reasons: ["missing_house_number", "street_corrected"],
    street: "Boulevard du Temple",
  },
  {
    source: "item 1, no stretch in 4 letters",
    line: "1 Rue Xyzq, 75001 Paris",
    verdict: "nonexistent",
    reasons: ["street_not_found"],
  },
  // Item 2: noise.
  {
    source: "issue 14 §messy lines: postcode glued to the city",
    line: "12 Rue de Rivoli 75004Paris",
    verdict: "deliverable",
    reasons: [],
    street: "Rue de Rivoli",
    postcode: "75004",
  },
  {
    source: "item 2: postcode glued to the street",
    line: "12 Rue de Rivoli75004 Paris",
    verdict: "deliverable",
    reasons: [],
    postcode: "75004",
  },
  {
    source: "issue 14 §messy lines: fbg and st inside the name",
    line: "55 r du fbg st honore 75008 paris",
    verdict: "deliverable",
    reasons: [],
    street: "Rue du Faubourg Saint-Honoré",
  },
  {
    source: "issue 14 §messy lines: no locality",
    line: "55 rue du fbg saint honore",
    verdict: "incomplete",
    reasons: ["missing_city", "missing_postcode"],
    street: "Rue du Faubourg Saint-Honoré",
    postcode: "75008",
  },
  {
    source: "item 2: building and floor",
    line: "12 rue de Rivoli, Bât. B, 3e étage, 75004 Paris",
    verdict: "deliverable",
    reasons: [],
  },
  {
    source: "item 2: chez segment",
    line: "Chez M. Dupont, 12 rue de rivoli 75004 paris",
    verdict: "deliverable",
    reasons: [],
  },
  {
    source: "item 2: chez before the number",
    line: "chez M. Dupont 12 rue de rivoli 75004 paris",
    verdict: "deliverable",
    reasons: [],
  },
  { source: "item 2: BP", line: "12 rue de Rivoli, BP 1234, 75004 Paris", verdict: "deliverable", reasons: [] },
  // Postcodes written amiss where the postcode stands: they were read into the street's name (street_not_found).
  {
    source: "item 2: postcode spaced",
    line: "12 rue de rivoli 75 004 paris",
    verdict: "deliverable",
    reasons: [],
    output: "12 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "item 2: postcode spaced after a comma",
    line: "12 rue de Rivoli, 75 004 Paris",
    verdict: "deliverable",
    reasons: [],
    postcode: "75004",
  },
  {
    source: "item 2: postcode a digit short, corrected as a wrong postcode is",
    line: "10 rue de rivoli 7504 paris",
    verdict: "corrected",
    reasons: ["postcode_corrected"],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "item 2: postcode a digit long",
    line: "10 rue de Rivoli, 750044 Paris",
    verdict: "corrected",
    reasons: ["postcode_corrected"],
    postcode: "75004",
  },
  {
    source: "item 2: the département's number instead of a postcode",
    line: "10 rue de rivoli 75 paris",
    verdict: "incomplete",
    reasons: ["missing_postcode"],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "item 2: a year that ends a street's name is no postcode",
    line: "15 rue du 8 mai 1945 paris",
    verdict: "incomplete",
    reasons: ["missing_postcode"],
    street: "Rue du Huit Mai 1945",
  },
  // Lines as forms and people join them: the city before the postcode, the locality first, units and brackets.
  {
    source: "item 6: the city before the postcode, no comma",
    line: "10 rue de rivoli Paris 75004",
    verdict: "deliverable",
    reasons: [],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "item 6: the city before the postcode, then the country",
    line: "10 rue de Rivoli Paris 75004 France",
    verdict: "deliverable",
    reasons: [],
  },
  {
    source: "item 6: the city before the postcode, comma after it",
    line: "10 rue de Rivoli Paris, 75004",
    verdict: "deliverable",
    reasons: [],
  },
  {
    source: "item 6: a street ending in a commune's name, with a postcode that commune has not, is the street",
    line: "43 rue de Lille 75007",
    verdict: "incomplete",
    reasons: ["missing_city"],
    street: "Rue de Lille",
  },
  {
    source: "item 6: the locality first, as fields joined in the wrong order",
    line: "Paris 75004 10 rue de rivoli",
    verdict: "deliverable",
    reasons: [],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "item 2: given names as initials (J.-J. for Jean-Jacques)",
    line: "10 rue j.j. rousseau 75001 paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Rue Jean-Jacques Rousseau",
  },
  {
    source: "item 2: N.-D. for Notre-Dame",
    line: "10 rue n.d. des champs 75006 paris",
    verdict: "deliverable",
    reasons: [],
    street: "Rue Notre-Dame des Champs",
  },
  {
    source: "item 2: a given name cut short (Ch. for Charles)",
    line: "2 pl ch de gaulle 75008 paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Place Charles de Gaulle",
  },
  {
    source: "item 2: fg for faubourg inside the name",
    line: "8 rue du fg poissonniere 75010 paris",
    verdict: "deliverable",
    reasons: [],
    street: "Rue du Faubourg Poissonnière",
  },
  {
    source: "item 2: r for rue before a faubourg, no suffix",
    line: "8 r fbg poissonniere 75010 paris",
    verdict: "deliverable",
    reasons: [],
    street: "Rue du Faubourg Poissonnière",
  },
  {
    source: "item 2: r for rue before a type that begins a name (Pont Neuf)",
    line: "1 r pont neuf 75001 paris",
    verdict: "deliverable",
    reasons: [],
    street: "Rue du Pont Neuf",
  },
  {
    source: "item 2: the département's number after the city",
    line: "10 rue de rivoli paris 75",
    verdict: "incomplete",
    reasons: ["missing_postcode"],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "item 3: an arrondissement named wrong, as a wrong postcode is corrected",
    line: "10 rue de Rivoli, Paris 13e",
    verdict: "incomplete",
    reasons: ["city_corrected", "missing_postcode"],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "item 2: a postcode written twice",
    line: "10 rue de rivoli 75004 paris 75004",
    verdict: "deliverable",
    reasons: [],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "item 2: a type typed twice",
    line: "10 rue rue de rivoli 75004 paris",
    verdict: "deliverable",
    reasons: [],
  },
  {
    source: "item 2: the type and article in brackets after the name, as old registers write them",
    line: "10 RIVOLI (RUE DE) 75004 PARIS",
    verdict: "deliverable",
    reasons: [],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "item 6: the number in its own segment after the street",
    line: "rue de rivoli, 10, 75004 paris",
    verdict: "deliverable",
    reasons: [],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "item 2: n° glued to the number",
    line: "n°10 rue de rivoli 75004 paris",
    verdict: "deliverable",
    reasons: [],
  },
  {
    source: "item 2: number glued to the type",
    line: "10rue de Rivoli 75004 Paris",
    verdict: "deliverable",
    reasons: [],
  },
  {
    source: "item 2: postcode glued on both sides",
    line: "10 rue de Rivoli75004Paris",
    verdict: "deliverable",
    reasons: [],
  },
  {
    source: "item 2: a floor and its side",
    line: "10 rue de rivoli 3ème étage gauche 75004 paris",
    verdict: "deliverable",
    reasons: [],
  },
  {
    source: "item 2: a door number",
    line: "10 rue de rivoli porte 3 75004 paris",
    verdict: "deliverable",
    reasons: [],
  },
  {
    source: "item 2: Porte in a street's name is no door",
    line: "Avenue de la Porte Didot, 75014 Paris",
    verdict: "incomplete",
    reasons: ["missing_house_number"],
    street: "Avenue de la Porte Didot",
  },
  {
    source: "item 2: the département in brackets",
    line: "10 rue de rivoli paris (75)",
    verdict: "incomplete",
    reasons: ["missing_postcode"],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  { source: "item 2: FR after the city", line: "10 rue de Rivoli 75004 Paris FR", verdict: "deliverable", reasons: [] },
  {
    source: "item 6: number after the street, city without comma",
    line: "Boulevard Saint Martin 20 Paris",
    verdict: "incomplete",
    reasons: ["missing_postcode"],
    output: "20 Boulevard Saint-Martin, 75010 Paris",
  },
  // Item 3: a typo and a wrong arrondissement together.
  {
    source: "issue 14 §messy lines: rivolli 75001",
    line: "12 rue de rivolli 75001 paris",
    verdict: "corrected",
    reasons: ["postcode_corrected", "street_corrected"],
    street: "Rue de Rivoli",
    postcode: "75004",
  },
  // Item 6: word order and separators.
  {
    source: "issue 14 §word order: number after the street",
    line: "Boulevard Saint Martin 20, Paris",
    verdict: "incomplete",
    reasons: ["missing_postcode"],
    street: "Boulevard Saint-Martin",
  },
  {
    source: "item 6: number after the street, with postcode",
    line: "Rue de Rivoli 12, 75004 Paris",
    verdict: "deliverable",
    reasons: [],
  },
  {
    source: "item 6: a date is no house number",
    line: "Rue du Huit Mai 1945, 75010 Paris",
    verdict: "incomplete",
    reasons: ["missing_house_number"],
  },
  {
    source: "issue 14 §word order: 43 rue de lille",
    line: "43 rue de lille",
    verdict: "incomplete",
    reasons: ["missing_city", "missing_postcode"],
    street: "Rue de Lille",
    postcode: "75007",
  },
  {
    source: "issue 14 §word order: faubourg saint antoine",
    line: "58 rue du faubourg saint antoine",
    verdict: "incomplete",
    reasons: ["missing_city", "missing_postcode"],
    street: "Rue du Faubourg Saint-Antoine",
  },
  {
    source: "issue 14 §word order: semicolons",
    line: "12 rue de Rivoli; 75004; Paris",
    verdict: "deliverable",
    reasons: [],
  },
  { source: "issue 14 §word order: Ruee", line: "12 Ruee de Rivoli, 75004 Paris", verdict: "deliverable", reasons: [] },
  { source: "issue 14 §word order: Reu", line: "12 reu de rivoli 75004 paris", verdict: "deliverable", reasons: [] },
  {
    source: "item 6: still a city when the street is not known whole",
    line: "12 rue de Rivoli Paris",
    verdict: "incomplete",
    reasons: ["missing_postcode"],
    postcode: "75004",
  },
  // Item 5: nationwide consistency, with a street given.
  {
    source: "issue 14 §nationwide: 51170 Roffiac",
    line: "1 Rue de la Gare, 51170 Roffiac",
    verdict: "nonexistent",
    reasons: ["postcode_city_mismatch"],
  },
  {
    source: "item 5: a consistent pair outside coverage",
    line: "1 Rue de la Gare, 15100 Roffiac",
    verdict: "unknown",
    reasons: ["postcode_not_covered"],
  },
  {
    source: "issue 14 §nationwide: 75007 Marseille, street of the 7th",
    line: "10 Rue de Grenelle, 75007 Marseille",
    verdict: "corrected",
    reasons: ["city_corrected"],
    postcode: "75007",
  },
  {
    source: "issue 14 §nationwide: 75007 Marseille, street elsewhere",
    line: "12 Rue de Rivoli, 75007 Marseille",
    verdict: "nonexistent",
    reasons: ["postcode_city_mismatch", "street_not_found"],
  },
  {
    source: "issue 14 §nationwide: 13001 Paris",
    line: "12 Rue de Rivoli, 13001 Paris",
    verdict: "corrected",
    reasons: ["postcode_corrected"],
    postcode: "75004",
  },
  {
    source: "item 5: mismatch without street",
    line: "51170 Roffiac",
    verdict: "nonexistent",
    reasons: ["missing_street", "postcode_city_mismatch"],
  },
  // Item 6: coverage decided on the commune found; CEDEX resolves before coverage.
  {
    source: "issue 14 §covered: PARIS LA DEFENSE CEDEX",
    line: "10 rue de la paix 92925 PARIS LA DEFENSE CEDEX",
    verdict: "unknown",
    reasons: ["postcode_not_covered"],
  },
  {
    source: "issue 14 §covered: Nantes CEDEX code",
    line: "46 BIS RUE DES HAUTS PAVES 44021",
    verdict: "unknown",
    reasons: ["missing_city", "postcode_not_covered"],
  },
  {
    source: "issue 14 §covered: Quartier Rohan",
    line: "Quartier Rohan, 44156 ANCENIS",
    verdict: "unknown",
    reasons: ["postcode_not_covered"],
  },
  // Suffix letters: a letter stays a letter; b, t, q read as bis, ter, quater only when the number has no other kind
  // of suffix (BAN rewriteSuffixes); glued or spaced, upper or lower case, the same suffix.
  {
    source: "issue 14 §suffix letters: 1C is C, never quinquies",
    line: "185C rue Saint-Denis 75002 Paris",
    verdict: "deliverable",
    reasons: [],
    suffix: "C",
    output: "185 C Rue Saint-Denis, 75002 Paris",
  },
  {
    source: "issue 14 §suffix letters: spaced lower-case c",
    line: "185 c rue saint denis 75002 paris",
    verdict: "deliverable",
    reasons: [],
    suffix: "C",
    output: "185 C Rue Saint-Denis, 75002 Paris",
  },
  {
    source: "issue 14 §suffix letters: s is a letter too",
    line: "49S square de Montsouris 75014 Paris",
    verdict: "deliverable",
    reasons: [],
    suffix: "S",
    output: "49 S Square de Montsouris, 75014 Paris",
  },
  {
    source: "issue 14 §suffix letters: 12bis glued",
    line: "39bis rue de Rivoli 75004 Paris",
    verdict: "deliverable",
    reasons: [],
    suffix: "bis",
    output: "39 bis Rue de Rivoli, 75004 Paris",
  },
  {
    source: "issue 14 §suffix letters: 12 b spaced",
    line: "39 b rue de Rivoli 75004 Paris",
    verdict: "deliverable",
    reasons: [],
    suffix: "bis",
    output: "39 bis Rue de Rivoli, 75004 Paris",
  },
  {
    source: "issue 14 §suffix letters: 12B glued capital",
    line: "39B rue de Rivoli 75004 Paris",
    verdict: "deliverable",
    reasons: [],
    suffix: "bis",
    output: "39 bis Rue de Rivoli, 75004 Paris",
  },
  {
    source: "issue 14 §suffix letters: 12 ter spaced",
    line: "48 ter rue de Lisbonne 75008 Paris",
    verdict: "deliverable",
    reasons: [],
    suffix: "ter",
    output: "48 ter Rue de Lisbonne, 75008 Paris",
  },
  {
    source: "issue 14 §suffix letters: 12ter glued",
    line: "48ter rue de Lisbonne 75008 Paris",
    verdict: "deliverable",
    reasons: [],
    suffix: "ter",
    output: "48 ter Rue de Lisbonne, 75008 Paris",
  },
  {
    source: "issue 14 §suffix letters: T glued capital",
    line: "48T rue de Lisbonne 75008 Paris",
    verdict: "deliverable",
    reasons: [],
    suffix: "ter",
  },
  // Numbers inside names: BAN Paris writes them in words.
  {
    source: "issue 14 §numbers in names: 4 septembre",
    line: "4 rue du 4 septembre 75002 paris",
    verdict: "deliverable",
    reasons: [],
    street: "Rue du Quatre Septembre",
    output: "4 Rue du Quatre Septembre, 75002 Paris",
  },
  {
    source: "issue 14 §numbers in names: a slip in the spelled number",
    line: "4 rue du quatee septembre 75002 paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Rue du Quatre Septembre",
  },
  {
    source: "issue 14 §numbers in names: 8 mai 1945",
    line: "10 rue du 8 mai 1945 75010 paris",
    verdict: "deliverable",
    reasons: [],
    street: "Rue du Huit Mai 1945",
    output: "10 Rue du Huit Mai 1945, 75010 Paris",
  },
  {
    source: "issue 14 §numbers in names: 18 juin 1940, two words",
    line: "1 place du 18 juin 1940 75006 paris",
    verdict: "deliverable",
    reasons: [],
    street: "Place du Dix-Huit Juin 1940",
  },
  {
    source: "issue 14 §numbers in names: 25 août 1944",
    line: "1 place du 25 aout 1944 75014 paris",
    verdict: "deliverable",
    reasons: [],
    street: "Place du Vingt-Cinq Août 1944",
  },
  {
    source: "issue 14 §numbers in names: roman XXIX for Vingt-Neuf",
    line: "1 rue du XXIX juillet 75001 paris",
    verdict: "deliverable",
    reasons: [],
    street: "Rue du Vingt-Neuf Juillet",
  },
  {
    source: "issue 14 §numbers in names: Henri 4 for Henri IV",
    line: "1 boulevard henri 4 75004 paris",
    verdict: "deliverable",
    reasons: [],
    street: "Boulevard Henri IV",
    output: "1 Boulevard Henri IV, 75004 Paris",
  },
  {
    source: "issue 14 §numbers in names: a number after the street that is part of its name",
    line: "Boulevard Henri 4, 75004 Paris",
    verdict: "incomplete",
    reasons: ["missing_house_number"],
    street: "Boulevard Henri IV",
  },
  {
    source: "issue 14 §numbers in names: Pont Alexandre 3 is no number 3 of another street",
    line: "Pont Alexandre 3, 75008 Paris",
    verdict: "incomplete",
    reasons: ["missing_house_number", "postcode_corrected"],
    street: "Pont Alexandre III",
    postcode: "75007",
  },
  {
    source: "issue 14 §numbers in names: the house number after a numbered name",
    line: "Boulevard Henri IV 12, 75004 Paris",
    verdict: "deliverable",
    reasons: [],
    output: "12 Boulevard Henri IV, 75004 Paris",
  },
  {
    source: "issue 14 §numbers in names: the date is no house number",
    line: "Rue du 8 Mai 1945, 75010 Paris",
    verdict: "incomplete",
    reasons: ["missing_house_number"],
    street: "Rue du Huit Mai 1945",
  },
  // Item 2, a type word that begins the name: "Rue du" dropped before Faubourg, Porte, Chemin, Chaussée, Cour.
  {
    source: "item 2: faubourg begins the name (was Rue Saint-Honoré, out of range)",
    line: "10 faubourg saint honore 75008 paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Rue du Faubourg Saint-Honoré",
  },
  {
    source: "item 2: faubourg begins the name (was Boulevard Montmartre)",
    line: "10 faubourg montmartre 75009 paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Rue du Faubourg Montmartre",
  },
  {
    source: "item 2: fbg abbreviated and a wrong arrondissement (was Passage Saint-Antoine)",
    line: "10 fbg st antoine 75011 paris",
    verdict: "corrected",
    reasons: ["postcode_corrected", "street_corrected"],
    street: "Rue du Faubourg Saint-Antoine",
    postcode: "75012",
  },
  {
    source: "item 2: faubourg begins the name, and a typo (was Boulevard du Temple)",
    line: "10 faubourg du tempel 75011 paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Rue du Faubourg du Temple",
  },
  {
    source: "item 2: porte begins the name (was Cours de Vincennes)",
    line: "10 porte de vincennes 75012 paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Avenue de la Porte de Vincennes",
  },
  {
    source: "item 2: chemin begins the name (was street_not_found)",
    line: "10 chemin vert 75011 paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Rue du Chemin Vert",
  },
  {
    source: "item 2: chaussée begins the name (was Cité d'Antin)",
    line: "10 chaussee d antin 75009 paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Rue de la Chaussée d'Antin",
  },
  {
    source: "item 2: two streets begin with parc montsouris: no guess (was Square de Montsouris)",
    line: "10 parc montsouris 75014 paris",
    verdict: "nonexistent",
    reasons: ["street_not_found"],
  },
  {
    source: "item 2: the space left out between type and article (was street_not_found)",
    line: "2 ruede la paix 75002 paris",
    verdict: "deliverable",
    reasons: [],
    street: "Rue de la Paix",
  },
  {
    source: "item 2: the space left out inside de la (was street_not_found)",
    line: "2 rue dela paix 75002 paris",
    verdict: "deliverable",
    reasons: [],
    street: "Rue de la Paix",
  },
  {
    source: "item 2: a remark in brackets after the street (was street_not_found)",
    line: "12 rue de rivoli (cour), 75004 paris",
    verdict: "deliverable",
    reasons: [],
    street: "Rue de Rivoli",
  },
  {
    source: "item 2: a phone number after the city (was city_corrected)",
    line: "12 rue de rivoli 75004 paris tel 0612345678",
    verdict: "deliverable",
    reasons: [],
  },
  {
    source: "item 2: a door code after the city (was city_corrected)",
    line: "12 rue de rivoli 75004 paris - digicode 1234A",
    verdict: "deliverable",
    reasons: [],
  },
  {
    source: "item 2: the arrondissement before its city (was street_corrected)",
    line: "12 rue de rivoli 4e arrondissement paris",
    verdict: "incomplete",
    reasons: ["missing_postcode"],
    output: "12 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "item 2: the postcode first, the street last (was missing_street)",
    line: "75004 Paris, 12 rue de Rivoli",
    verdict: "deliverable",
    reasons: [],
    street: "Rue de Rivoli",
  },
  {
    source: "item 2: the country's letter before the postcode (was street_not_found)",
    line: "12 rue de Rivoli F-75004 Paris",
    verdict: "deliverable",
    reasons: [],
  },
  {
    source: "item 2: the country first in its own segment (was Avenue de France)",
    line: "France, 75004 Paris, 12 rue de Rivoli",
    verdict: "deliverable",
    reasons: [],
    street: "Rue de Rivoli",
  },
  {
    source: "item 2: the postcode in the city field (was nonexistent)",
    line: "city: 75004 Paris",
    fields: { house_number: "12", street: "rue de Rivoli", city: "75004 Paris" },
    verdict: "deliverable",
    reasons: [],
  },
  {
    source: "item 2: postcode and city fields swapped (was nonexistent)",
    line: "postcode: Paris, city: 75004",
    fields: { house_number: "12", street: "rue de Rivoli", postcode: "Paris", city: "75004" },
    verdict: "deliverable",
    reasons: [],
  },
  {
    source: "item 2: n° in the house-number field (was missing_house_number)",
    line: "house_number: n° 12",
    fields: { house_number: "n° 12", street: "rue de Rivoli", postcode: "75004", city: "Paris" },
    verdict: "deliverable",
    reasons: [],
  },
  {
    source: "item 2: an article written apart from the name it begins (was street_not_found)",
    line: "12 rue le pic 75018 paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Rue Lepic",
  },
  {
    source: "item 2: an article written apart, no city (was unknown)",
    line: "12 rue le tellier 75015",
    verdict: "incomplete",
    reasons: ["missing_city", "street_corrected"],
    street: "Rue Letellier",
  },
  {
    source: "item 2: a range written with et (was street_not_found)",
    line: "12 et 14 rue de Rivoli 75004 Paris",
    verdict: "deliverable",
    reasons: [],
  },
  {
    source: "item 2: a corner after the address (was street_not_found)",
    line: "12 rue de Rivoli angle rue du Renard 75004 Paris",
    verdict: "deliverable",
    reasons: [],
  },
  {
    source: "item 2: the line in quotes, as a CSV export leaves it (was street_not_found)",
    line: '"12 rue de Rivoli, 75004 Paris"',
    verdict: "deliverable",
    reasons: [],
  },
  {
    source: "item 2: n° after the street (was street_not_found)",
    line: "Rue de Rivoli n°12 75004 Paris",
    verdict: "deliverable",
    reasons: [],
  },
  {
    source: "item 2: a suffix after a hyphen (was street_not_found)",
    line: "131-bis rue de la Roquette 75011 Paris",
    verdict: "deliverable",
    reasons: [],
    suffix: "bis",
  },
  {
    source: "item 2: a type no Paris name begins with stays a type",
    line: "10 avenue de rivoli 75004 paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Rue de Rivoli",
  },
  // Probes typed by hand (session of 2026-11-27, sixth).
  {
    source: "probe: the city before a postcode it does not serve, no comma (was unknown, postcode_not_covered)",
    line: "10 rue de la Paix Paris 69002",
    verdict: "corrected",
    reasons: ["postcode_corrected"],
    street: "Rue de la Paix",
    postcode: "75002",
  },
  {
    source: "probe: a name without type that several streets of the arrondissement share (was Quai Voltaire, 75006)",
    line: "10 Voltaire 75011 Paris",
    verdict: "nonexistent",
    reasons: ["street_not_found"],
  },
  {
    source: "probe: the same, not answered from another arrondissement (was Place de la République, 75003)",
    line: "10 République 75011 Paris",
    verdict: "nonexistent",
    reasons: ["street_not_found"],
  },
  {
    source: "probe: one street of that name without type in the arrondissement is still found",
    line: "10 Bastille 75011 Paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Place de la Bastille",
  },
  {
    source: "probe: a floor told by its side (was street_not_found)",
    line: "10 rue de la Paix 3e gauche 75002 Paris",
    verdict: "deliverable",
    reasons: [],
    street: "Rue de la Paix",
  },
  {
    source: "probe: an autocomplete's whole line in the street field beside its fields (was street_not_found)",
    line: "street: 10 rue de la Paix 75002 Paris, postcode: 75002, city: Paris",
    fields: { street: "10 rue de la Paix 75002 Paris", postcode: "75002", city: "Paris" },
    verdict: "deliverable",
    reasons: [],
    street: "Rue de la Paix",
  },
  {
    source: "probe: a number alone in the street field (was Voie L/10, street_corrected)",
    line: "street: 10, postcode: 75002, city: Paris",
    fields: { street: "10", postcode: "75002", city: "Paris" },
    verdict: "incomplete",
    reasons: ["missing_street"],
    output: "75002 Paris",
  },
  {
    source: "probe: an arrondissement in roman figures without its e (was incomplete with no address)",
    line: "10 rue de Rivoli Paris IV",
    verdict: "incomplete",
    reasons: ["missing_postcode"],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "probe: an ordinal's ending typed apart (was incomplete with no address)",
    line: "10 rue de la Paix Paris 2 eme",
    verdict: "incomplete",
    reasons: ["missing_postcode"],
    output: "10 Rue de la Paix, 75002 Paris",
  },
  {
    source: "probe: the locality first, the number after the street (was missing_street)",
    line: "75004 Paris, rue de Rivoli 10",
    verdict: "deliverable",
    reasons: [],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "probe: the city, its postcode, then the street and its number (was Boulevard du Palais, street_corrected)",
    line: "Paris 75004, rue de Rivoli 10",
    verdict: "deliverable",
    reasons: [],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "probe: the locality first without a comma, the number after the street",
    line: "75004 Paris rue de Rivoli 10",
    verdict: "deliverable",
    reasons: [],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "probe: the locality first, a street without its number",
    line: "75004 Paris, rue de Rivoli",
    verdict: "incomplete",
    reasons: ["missing_house_number"],
    street: "Rue de Rivoli",
  },
  {
    source: "probe: an abbreviated type with its dot, the number after the street (was street_not_found)",
    line: "bd. Haussmann 15, 75009 Paris",
    verdict: "deliverable",
    reasons: [],
    output: "15 Boulevard Haussmann, 75009 Paris",
  },
  {
    source: "probe: the postcode first, then the street and its number (was Rue Le Marois, street_corrected)",
    line: "75116, av. Foch 10, Paris",
    verdict: "corrected",
    reasons: ["postcode_corrected"],
    street: "Avenue Foch",
    postcode: "75016",
  },
  {
    source: "probe: the arrondissement after the city, then the street and its number",
    line: "75004 Paris 4e, rue de Rivoli 10",
    verdict: "deliverable",
    reasons: [],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "probe: the number after the street in the street field (was street_not_found)",
    line: "street: rue de Rivoli 10, postcode: 75004, city: Paris",
    fields: { street: "rue de Rivoli 10", postcode: "75004", city: "Paris" },
    verdict: "deliverable",
    reasons: [],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "probe: the country after the city in the city field (was city_corrected)",
    line: "street: 10 rue de Rivoli, postcode: 75004, city: Paris, France",
    fields: { street: "10 rue de Rivoli", postcode: "75004", city: "Paris, France" },
    verdict: "deliverable",
    reasons: [],
  },
  {
    source: "probe: the département in brackets in the city field (was city_corrected)",
    line: "street: 10 rue de Rivoli, postcode: 75004, city: Paris (75)",
    fields: { street: "10 rue de Rivoli", postcode: "75004", city: "Paris (75)" },
    verdict: "deliverable",
    reasons: [],
  },
  {
    source: "probe: the city in the postcode field, the city field empty (was postcode_city_mismatch)",
    line: "street: 10 rue de Rivoli, postcode: Paris 4e",
    fields: { street: "10 rue de Rivoli", postcode: "Paris 4e" },
    verdict: "incomplete",
    reasons: ["missing_postcode"],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "probe: the letter O typed for a zero in the postcode (was street_not_found)",
    line: "10 rue de Rivoli 75OO4 Paris",
    verdict: "deliverable",
    reasons: [],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "probe: the number typed again after the street (was street_not_found)",
    line: "10 rue de Rivoli 10 75004 Paris",
    verdict: "deliverable",
    reasons: [],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "probe: a number after the street that is the name's, the same as the house number",
    line: "7 Place Edouard 7, 75009 Paris",
    verdict: "deliverable",
    reasons: [],
    output: "7 Place Edouard VII, 75009 Paris",
  },
  {
    source: "probe: full-width digits (was incomplete, missing_house_number and missing_postcode)",
    line: "１０ rue de Rivoli ７５００４ Paris",
    verdict: "deliverable",
    reasons: [],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "probe: a zero-width space pasted inside the name (was street_corrected)",
    line: "10 rue de Ri\u200bvoli 75004 Paris",
    verdict: "deliverable",
    reasons: [],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "probe: the suffix alone in the house-number field (was answered without it)",
    line: "house_number: bis, street: 2 rue du Louvre, postcode: 75001, city: Paris",
    fields: { house_number: "bis", street: "2 rue du Louvre", postcode: "75001", city: "Paris" },
    verdict: "deliverable",
    reasons: [],
    output: "2 bis Rue du Louvre, 75001 Paris",
  },
  {
    source: "probe: a type word alone is no street name (was Rue du Plâtre, street_corrected)",
    line: "10 place 75004 Paris",
    verdict: "nonexistent",
    reasons: ["street_not_found"],
  },
  {
    source: "probe: a type and an article with the city before the postcode (was Rue du Plâtre, street_corrected)",
    line: "10 place de Paris 75004",
    verdict: "nonexistent",
    reasons: ["street_not_found"],
  },
  {
    source: "probe: a city one slip from Paris and from Paars alike, the street found in Paris alone (was nonexistent)",
    line: "10 rue de Rivoli, Pairs",
    verdict: "incomplete",
    reasons: ["missing_postcode", "city_corrected"],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "probe: the same in the city field (was nonexistent)",
    line: "street: 10 rue de Rivoli, city: Paaris",
    fields: { street: "10 rue de Rivoli", city: "Paaris" },
    verdict: "incomplete",
    reasons: ["missing_postcode", "city_corrected"],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "probe: a city that names nothing near the commune of the street stays what it was",
    line: "10 rue de Rivoli, Xyzzy",
    verdict: "nonexistent",
    reasons: ["missing_postcode", "postcode_city_mismatch", "street_not_found"],
  },
  {
    source: "probe: a street nowhere with a city two slips from Paris stays what it was",
    line: "10 rue des Zorglubs, Pairs",
    verdict: "nonexistent",
    reasons: ["missing_postcode", "postcode_city_mismatch", "street_not_found"],
  },
  {
    source: "probe: a name cut before the person it ends with (was Port des Champs-Élysées, street_corrected)",
    line: "1 rond point des Champs-Élysées, 75008 Paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Rond-point des Champs Elysées-Marcel Dassault",
  },
  {
    source: "probe: a name cut before the person it ends with (was Place de l'Opéra, street_corrected)",
    line: "3 square de l'Opéra, 75009 Paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Square de l'Opéra-Louis Jouvet",
  },
  {
    source: "probe: a comma after the number's suffix word (was missing_street, the street read as the city)",
    line: "8 bis, rue de Rivoli 75004",
    verdict: "incomplete",
    reasons: ["missing_city"],
    street: "Rue de Rivoli",
    suffix: "B",
  },
  {
    source: "probe: the anglophone number sign (was street_not_found)",
    line: "#8 rue de Rivoli, 75004 Paris",
    verdict: "deliverable",
    reasons: [],
    output: "8 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "probe: the number in its own segment between the street and the city (was missing_city)",
    line: "rue de Rivoli, 8, Paris",
    verdict: "incomplete",
    reasons: ["missing_postcode"],
    output: "8 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "probe: a residence before the street and no locality (was nonexistent: the street read as the city)",
    line: "Résidence les Lilas, 10 rue de l'Université",
    verdict: "incomplete",
    reasons: ["missing_postcode", "missing_city"],
    output: "10 Rue de l'Université, 75007 Paris",
  },
  {
    source: 'probe: a floor written "2e ét" after the staircase (was street_not_found)',
    line: "10 rue de Rivoli esc B 2e ét 75004 Paris",
    verdict: "deliverable",
    reasons: [],
    street: "Rue de Rivoli",
  },
  {
    source: "probe: a dwelling and a letter box by their numbers (were street_not_found)",
    line: "10 rue de Rivoli logement 34, boîte 12, 75004 Paris",
    verdict: "deliverable",
    reasons: [],
    street: "Rue de Rivoli",
  },
  {
    source: "probe: a dash typed in the postcode field to get past the form (was postcode_corrected)",
    line: "street: 10 rue de Rivoli, postcode: -, city: Paris",
    fields: { street: "10 rue de Rivoli", postcode: "-", city: "Paris" },
    verdict: "incomplete",
    reasons: ["missing_postcode"],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "probe: the locality first, a street named after a country last (was country_not_covered)",
    line: "75008 Paris, 35 Avenue Pierre Ier de Serbie",
    verdict: "deliverable",
    reasons: [],
    output: "35 Avenue Pierre Ier de Serbie, 75008 Paris",
  },
  // The city written before the street, as exports that put the locality first write it (match/city_written_first.ts).
  {
    source: "probe: the city first, in capitals (was missing_city)",
    line: "PARIS 10 RUE DE RIVOLI",
    verdict: "incomplete",
    reasons: ["missing_postcode"],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "probe: the city first, the postcode last (was missing_city)",
    line: "Paris 10 rue de Rivoli 75004",
    verdict: "deliverable",
    reasons: [],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "probe: the city first, the number after the street (was incomplete with no address)",
    line: "Paris rue de Rivoli 10",
    verdict: "incomplete",
    reasons: ["missing_postcode"],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "probe: the city first in its own segment, the number after the street (was incomplete with no address)",
    line: "Paris, rue de Rivoli 10",
    verdict: "incomplete",
    reasons: ["missing_postcode"],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "probe: the city first with its arrondissement (was incomplete with no address)",
    line: "Paris 4e, rue de Rivoli 10",
    verdict: "incomplete",
    reasons: ["missing_postcode"],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "probe: the city first, a slip in the street (was incomplete with no address)",
    line: "Paris 10 rue de Rivolli",
    verdict: "incomplete",
    reasons: ["missing_postcode", "street_corrected"],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "address_accuracy seed 7: the city first, a street whose first word is no type (was nonexistent)",
    line: "PARIS 2 PÉRISTYLE DE BEAUJOLAIS 75001",
    verdict: "deliverable",
    reasons: [],
    output: "2 Péristyle de Beaujolais, 75001 Paris",
  },
  {
    source: "probe: a commune outside the index written first (was nonexistent: Paris has no Rue de Paris)",
    line: "Montreuil 10 rue de Paris",
    verdict: "unknown",
    reasons: ["missing_postcode", "postcode_not_covered"],
  },
  {
    source: "guard: a shop's name before the street names no commune, and stays out of the address",
    line: "Boulangerie Dupont 10 rue de Rivoli",
    verdict: "incomplete",
    reasons: ["missing_postcode", "missing_city"],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "probe: a person's name in a segment before a street numbered after it (was nonexistent)",
    line: "Jean Dupont, rue de Rivoli 10, 75004 Paris",
    verdict: "deliverable",
    reasons: [],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source:
      "probe: the city first in the street field, the postcode in its own (was Boulevard du Palais, street_corrected)",
    line: "street: Paris, rue de Rivoli 10, postcode: 75004",
    fields: { street: "Paris, rue de Rivoli 10", postcode: "75004" },
    verdict: "deliverable",
    reasons: [],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "probe: a residence before the street in the street field (was nonexistent)",
    line: "street: Résidence les Lilas, rue de l'Université 10, postcode: 75007, city: Paris",
    fields: { street: "Résidence les Lilas, rue de l'Université 10", postcode: "75007", city: "Paris" },
    verdict: "deliverable",
    reasons: [],
    output: "10 Rue de l'Université, 75007 Paris",
  },
  {
    source: 'probe: the type word typed in the house-number field (was nonexistent, suffix "rue")',
    line: "house_number: 10 rue, street: de Rivoli, postcode: 75004, city: Paris",
    fields: { house_number: "10 rue", street: "de Rivoli", postcode: "75004", city: "Paris" },
    verdict: "deliverable",
    reasons: [],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  // A slip of the spelling against a sound-alike of the same cost.
  {
    source: "probe: one letter short, beside a name that only sounds the same (Rue du Soleil; was nonexistent)",
    line: "21 Rue Soleilet 75020 Paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    output: "21 Rue Soleillet, 75020 Paris",
  },
  {
    source: "probe: a doubled letter typed once, beside a sound-alike (Rue Berryer; was nonexistent)",
    line: "8 Rue de Beri 75008 Paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    output: "8 Rue de Berri, 75008 Paris",
  },
  {
    source: "probe: a doubled consonant typed once in a name too short for any edit (was nonexistent)",
    line: "29 Avenue Rap 75007 Paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    output: "29 Avenue Rapp, 75007 Paris",
  },
  {
    source: "probe: the same after an article (was nonexistent)",
    line: "12 Rue Le Gof 75005 Paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    output: "12 Rue Le Goff, 75005 Paris",
  },
  {
    source: "guard: any other slip of a three-letter name is another name",
    line: "29 Avenue Rip 75007 Paris",
    verdict: "nonexistent",
    reasons: ["street_not_found"],
  },
  {
    source:
      "probe: a name's first word one slip from a type, the type left out (was Rue des Dames, 75017, read as Cour)",
    line: "10 Tour des Dames 75009 Paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    output: "10 Rue de la Tour des Dames, 75009 Paris",
  },
  {
    source: "guard: a misspelt type word is still guessed",
    line: "10 Boulevar Haussmann 75009 Paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    output: "10 Boulevard Haussmann, 75009 Paris",
  },
  {
    source: "probe: a street of the very name written, its type left out (was Rue Jean Cottin)",
    line: "10 Cottin 75018 Paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    output: "10 Passage Cottin, 75018 Paris",
  },
  {
    source: "probe: the same (was Place Marie Madeleine Fourcade)",
    line: "4 Fourcade 75015 Paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    output: "4 Rue Fourcade, 75015 Paris",
  },
  {
    source:
      'probe: a name two streets have exactly under types left out (Square and Hameau la Fontaine) names neither, as decided for "10 Voltaire" (was Rue Jean de la Fontaine)',
    line: "1 la Fontaine 75016 Paris",
    verdict: "nonexistent",
    reasons: ["street_not_found"],
  },
  {
    source: "guard: with the type written, given names left out are still read (Rue Jean Cottin)",
    line: "10 rue Cottin 75018 Paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    output: "10 Rue Jean Cottin, 75018 Paris",
  },
  // What CRM exports write after the street, without commas.
  {
    source: "probe: a residence after the street, no comma (was nonexistent)",
    line: "10 RUE DE RIVOLI RES LES LILAS 75004 PARIS",
    verdict: "deliverable",
    reasons: [],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "probe: the addressee after the street (was nonexistent)",
    line: "10 RUE DE RIVOLI C/O M. DUPONT 75004 PARIS",
    verdict: "deliverable",
    reasons: [],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "probe: staircase, floor and a door by its side (was nonexistent)",
    line: "10 RUE DE RIVOLI ESC A 3EME ETAGE PORTE GAUCHE 75004 PARIS",
    verdict: "deliverable",
    reasons: [],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "probe: étage abbreviated etg (was nonexistent)",
    line: "10 RUE DE RIVOLI ETG 3 75004 PARIS",
    verdict: "deliverable",
    reasons: [],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "probe: étage abbreviated etg after its ordinal (was street_corrected)",
    line: "10 RUE DE RIVOLI 3EME ETG 75004 PARIS",
    verdict: "deliverable",
    reasons: [],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "probe: the suffix typed at the start of the street field, the number in its own (was nonexistent)",
    line: "house_number: 194, street: bis rue de Rivoli, postcode: 75001, city: Paris",
    fields: { house_number: "194", street: "bis rue de Rivoli", postcode: "75001", city: "Paris" },
    verdict: "deliverable",
    reasons: [],
    output: "194 bis Rue de Rivoli, 75001 Paris",
  },
  {
    source: "probe: a name that begins with a type's plural, its type left out (was Rue Saint-Paul, read as Jardin)",
    line: "28 Jardins Saint-Paul 75004 Paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    output: "28 Rue des Jardins Saint-Paul, 75004 Paris",
  },
  // Found by running every Paris street name through five forms of line (before and after this round).
  {
    source: "probe: a house number after a month that ends the name (was missing_house_number, street_corrected)",
    line: "Rue du Quatre Septembre 1, 75002 Paris",
    verdict: "deliverable",
    reasons: [],
    output: "1 Rue du Quatre Septembre, 75002 Paris",
  },
  {
    source: "probe: the same after a person named like a month (was missing_house_number, street_corrected)",
    line: "Place du Maréchal Juin 1, 75017 Paris",
    verdict: "deliverable",
    reasons: [],
    output: "1 Place du Maréchal Juin, 75017 Paris",
  },
  {
    source: "guard: after a month, a year is still the name's",
    line: "Rue du 8 Mai 1945, 75010 Paris",
    verdict: "incomplete",
    reasons: ["missing_house_number"],
    output: "Rue du Huit Mai 1945, 75010 Paris",
  },
  {
    source: "probe: a number after a street whose type has two words (was nonexistent)",
    line: "Rond-point Saint-Charles 158, 75015 Paris",
    verdict: "deliverable",
    reasons: [],
    output: "158 Rond-point Saint-Charles, 75015 Paris",
  },
  {
    source:
      "probe: a street of two arrondissements ending with a commune's name, no locality (was unknown: Saint-Ouen read as the city)",
    line: "2 Avenue de la Porte de Saint-Ouen",
    verdict: "incomplete",
    reasons: ["missing_postcode", "missing_city"],
    output: null,
  },
  {
    source:
      'probe: the city first, a number, a name whose first word is no type (was Porte Jaune read after "PARIS 1 LA")',
    line: "PARIS 1 LA PORTE JAUNE",
    verdict: "incomplete",
    reasons: ["missing_postcode"],
    output: "1 La Porte Jaune, 75012 Paris",
  },
  // French addresses as people abroad write them.
  {
    source: "probe: the type after the name, in English (was nonexistent)",
    line: "10 Rivoli Street, Paris 75004",
    verdict: "deliverable",
    reasons: [],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "probe: the French type after the name (was nonexistent)",
    line: "10 Champs Elysees Avenue, 75008 Paris",
    verdict: "deliverable",
    reasons: [],
    output: "10 Avenue des Champs Elysées, 75008 Paris",
  },
  {
    source: "probe: English articles after the type (was nonexistent)",
    line: "10 Avenue of the Champs-Elysees, 75008 Paris",
    verdict: "deliverable",
    reasons: [],
    output: "10 Avenue des Champs Elysées, 75008 Paris",
  },
  {
    source: "probe: a unit in English between the street and the city (was nonexistent)",
    line: "10 Rue de Rivoli Apt 5B Paris 75004",
    verdict: "deliverable",
    reasons: [],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "probe: a suite in English (was nonexistent)",
    line: "10 Rue de Rivoli Suite 200 75004 Paris",
    verdict: "deliverable",
    reasons: [],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "probe: a floor in English (was nonexistent)",
    line: "10 Rue de Rivoli 3rd floor 75004 Paris",
    verdict: "deliverable",
    reasons: [],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "probe: France after the city with no postcode (was incomplete with no address)",
    line: "10 Rue de Rivoli Paris France",
    verdict: "incomplete",
    reasons: ["missing_postcode"],
    output: "10 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "guard: France that ends a street's name, with no city before it, stays the name's",
    line: "42 AVENUE PIERRE MENDES FRANCE",
    verdict: "incomplete",
    reasons: ["missing_postcode", "missing_city"],
    output: "42 Avenue Pierre Mendès France, 75013 Paris",
  },
  {
    source: "guard: the same with the city written first",
    line: "PARIS 6 QUAI ANATOLE FRANCE",
    verdict: "incomplete",
    reasons: ["missing_postcode"],
    output: "6 Quai Anatole France, 75007 Paris",
  },
  // A date's year left out of the street's name.
  {
    source: "probe: the year left out of a date's name (was nonexistent)",
    line: "8 rue du 8 mai 75010 Paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    output: "8 Rue du Huit Mai 1945, 75010 Paris",
  },
  {
    source: "probe: the year left out, the type abbreviated (was nonexistent)",
    line: "4 pl du 18 juin 75006 Paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    output: "4 Place du Dix-Huit Juin 1940, 75006 Paris",
  },
  // The postcode and the arrondissement as people add them.
  {
    source: "probe: a spaced postcode before the city and its arrondissement (was nonexistent)",
    line: "10 rue de la paix 75 002 paris 2",
    verdict: "deliverable",
    reasons: [],
    output: "10 Rue de la Paix, 75002 Paris",
  },
  {
    source: "probe: a postcode in brackets (was missing_postcode: the brackets were dropped as a remark)",
    line: "10 rue de la paix (75002) paris",
    verdict: "deliverable",
    reasons: [],
    output: "10 Rue de la Paix, 75002 Paris",
  },
  {
    source: "probe: an arrondissement with no city in the last segment (was nonexistent: a city naming nothing)",
    line: "10 rue de la paix, 2e arrondissement",
    verdict: "incomplete",
    reasons: ["missing_postcode", "missing_city"],
    output: "10 Rue de la Paix, 75002 Paris",
  },
  {
    source: "probe: the département's number in the last segment (was nonexistent: a city naming nothing)",
    line: "10 rue de la paix, 75",
    verdict: "incomplete",
    reasons: ["missing_postcode", "missing_city"],
    output: "10 Rue de la Paix, 75002 Paris",
  },
  {
    source: "probe: the département's number after the street (was incomplete with no address)",
    line: "10 rue de la paix 75",
    verdict: "incomplete",
    reasons: ["missing_postcode", "missing_city"],
    output: "10 Rue de la Paix, 75002 Paris",
  },
  {
    source: "guard: another département's number after a street of Paris finds nothing in Paris",
    line: "10 rue de la paix 13",
    verdict: "incomplete",
    reasons: ["missing_postcode", "missing_city"],
    output: null,
  },
  {
    source: "probe: a residence (a type of BAN too) before a street numbered after it (was nonexistent)",
    line: "Résidence les Lilas, rue de l'Université 10, 75007 Paris",
    verdict: "deliverable",
    reasons: [],
    output: "10 Rue de l'Université, 75007 Paris",
  },
  // A city alone, or a city and its postcode, is no street: "Paris 75004" was Boulevard du Palais (street_corrected), and
  // "Paris" alone answered missing_city.
  {
    source: "probe: a city alone names the city (was missing_city)",
    line: "Paris",
    verdict: "incomplete",
    reasons: ["missing_street", "missing_postcode"],
    output: null,
  },
  {
    source: "probe: an arrondissement alone gives its postcode",
    line: "Paris 4e",
    verdict: "incomplete",
    reasons: ["missing_street", "missing_postcode"],
    output: "75004 Paris",
  },
  {
    source: "probe: a city and its postcode are no street (was Boulevard du Palais)",
    line: "Paris 75004",
    verdict: "incomplete",
    reasons: ["missing_street"],
    output: "75004 Paris",
  },
  {
    source: "probe: a city and its postcode, comma between (was Boulevard du Palais)",
    line: "Paris, 75004",
    verdict: "incomplete",
    reasons: ["missing_street"],
    output: "75004 Paris",
  },
  {
    source: "guard: a city the postcode does not serve is a street's name there, its type left out",
    line: "Lille 75007",
    verdict: "incomplete",
    reasons: ["missing_house_number", "missing_city", "street_corrected"],
    output: "Rue de Lille, 75007 Paris",
  },
  {
    source: "guard: a street of that name somewhere, no postcode: the words stay a street, as before",
    line: "Saint-Denis",
    verdict: "incomplete",
    reasons: ["missing_postcode", "missing_city"],
    output: null,
  },
  // What people add after the city (were city_corrected, the city written being right).
  {
    source: "probe: the region after the city",
    line: "12 rue de rivoli 75004 paris idf",
    verdict: "deliverable",
    reasons: [],
    output: "12 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "probe: the region in full in the city field",
    line: "12 rue de rivoli, 75004, Paris Île-de-France",
    fields: { street: "12 rue de rivoli", postcode: "75004", city: "Paris Île-de-France" },
    verdict: "deliverable",
    reasons: [],
    output: "12 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "probe: the postcode's département number after the city",
    line: "12 rue de rivoli 75004 paris 75",
    verdict: "deliverable",
    reasons: [],
    output: "12 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "probe: the locality written twice",
    line: "12 rue de rivoli 75004 paris 75004 paris",
    verdict: "deliverable",
    reasons: [],
    output: "12 Rue de Rivoli, 75004 Paris",
  },
  {
    source: "guard: an arrondissement after the city is no département: Paris 13 for a street of the 4th",
    line: "12 rue de rivoli 75004 paris 13",
    verdict: "corrected",
    reasons: ["city_corrected"],
    output: "12 Rue de Rivoli, 75004 Paris",
  },
  // Exports that misread UTF-8 as Windows-1252, or lose a letter on the way (were street_not_found).
  {
    source: "probe: UTF-8 misread as Windows-1252 (a CSV export)",
    line: "10 place de la RÃ©publique 75011 Paris",
    verdict: "deliverable",
    reasons: [],
    output: "10 Place de la République, 75011 Paris",
  },
  {
    source: "probe: an apostrophe and a letter misread",
    line: "10 rue de la ChaussÃ©e dâ€™Antin 75009 Paris",
    verdict: "deliverable",
    reasons: [],
    output: "10 Rue de la Chaussée d'Antin, 75009 Paris",
  },
  {
    source: "probe: a letter lost as a question mark is one slip",
    line: "10 Place de la R?publique 75011 Paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    output: "10 Place de la République, 75011 Paris",
  },
  {
    source: "probe: a letter lost as replacement characters is one slip",
    line: "10 Place de la R\ufffd\ufffdpublique 75011 Paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    output: "10 Place de la République, 75011 Paris",
  },
  // "pte" and "pr" stand for several words: the index says which (was street_not_found).
  {
    source: "probe: pte for porte, by the index",
    line: "10 av de la pte de clichy 75017 paris",
    verdict: "deliverable",
    reasons: [],
    output: "10 Avenue de la Porte de Clichy, 75017 Paris",
  },
  {
    source: "probe: pte for pointe, by the index (Avenue de la Porte d'Ivry is an avenue)",
    line: "10 rue de la pte d'ivry 75013 paris",
    verdict: "deliverable",
    reasons: [],
    output: "10 Rue de la Pointe d'Ivry, 75013 Paris",
  },
  {
    source: "probe: pte for porte under the type written",
    line: "10 av de la pte d'ivry 75013 paris",
    verdict: "deliverable",
    reasons: [],
    output: "10 Avenue de la Porte d'Ivry, 75013 Paris",
  },
  {
    source: "guard: readings of ambiguous abbreviations are bounded (twenty would make 3^20 of them)",
    line: `10 rue ${"pte ".repeat(20)}75004 Paris`,
    verdict: "nonexistent",
    reasons: ["street_not_found"],
    output: null,
  },
  {
    source: "probe: pr for professeur, by the index",
    line: "10 rue du pr gosset 75018 paris",
    verdict: "deliverable",
    reasons: [],
    output: "10 Rue du Professeur Gosset, 75018 Paris",
  },
  // A street of several arrondissements with no number: the place is not determined, so no postcode is guessed.
  {
    source: "probe: a street in two arrondissements, no number, no place (missing_house_number was left out)",
    line: "rue de rivoli",
    verdict: "incomplete",
    reasons: ["missing_house_number", "missing_postcode", "missing_city"],
    output: null,
  },
  {
    source: "probe: a street in two arrondissements of the city written, no number (was 75004, a guess)",
    line: "rue de rivoli paris",
    verdict: "incomplete",
    reasons: ["missing_house_number", "missing_postcode"],
    output: null,
  },
  {
    source: "probe: a number that none of its arrondissements has (was 75004, a guess)",
    line: "9999 rue de rivoli paris",
    verdict: "nonexistent",
    reasons: ["house_number_out_of_range", "missing_postcode"],
    output: null,
  },
  {
    source: "guard: the arrondissement written decides",
    line: "rue de rivoli, paris 1er",
    verdict: "incomplete",
    reasons: ["missing_house_number", "missing_postcode"],
    output: "Rue de Rivoli, 75001 Paris",
  },
  {
    source: "guard: a street of one arrondissement, no place written, keeps its postcode",
    line: "rue de la paix",
    verdict: "incomplete",
    reasons: ["missing_house_number", "missing_postcode", "missing_city"],
    output: "Rue de la Paix, 75002 Paris",
  },
];

describe("issue 14 over the Paris BAN file", { skip: PARIS_SKIP }, () => {
  let paris: Awaited<ReturnType<typeof parisMatcher>>;
  before(async () => {
    paris = await parisMatcher();
  });
  after(() => paris.remove());
  for (const row of PARIS_ROWS)
    test(`${row.line} → ${row.verdict} (${row.source})`, () => expectRow(paris.matcher, row));
});

const SMALL_WORD_ROWS: Row[] = [
  {
    source: "issue 14 §small words: sur is part of the name",
    line: "1 Rue sur la Côte, 90200 Giromagny",
    verdict: "deliverable",
    reasons: [],
    street: "Rue sur la Côte",
  },
  {
    source: "issue 14 §small words: never the other street",
    line: "1 Rue de la Côte, 90200 Giromagny",
    verdict: "deliverable",
    reasons: [],
    street: "Rue de la Côte",
  },
  {
    source: "issue 14 §small words: exact Saint-Pierre wins",
    line: "1 Rue Saint-Pierre, 90200 Giromagny",
    verdict: "deliverable",
    reasons: [],
    street: "Rue Saint-Pierre",
  },
  {
    source: "item 6: sous kept",
    line: "2 Rue Sous Saint-Pierre, 90200 Giromagny",
    verdict: "deliverable",
    reasons: [],
    street: "Rue Sous Saint-Pierre",
  },
  {
    source: "item 6: a street that differs by sur is not found",
    line: "1 Rue sur la Fontaine, 90200 Giromagny",
    verdict: "nonexistent",
    reasons: ["street_not_found"],
  },
  {
    source: "issue 14 §covered: invented street in a covered commune",
    line: "1 Rue des Zorglubs, 90200 Giromagny",
    verdict: "nonexistent",
    reasons: ["street_not_found"],
  },
  // Item 5, every commune of France: those codes-postaux leaves out are uncovered, not nonexistent.
  {
    source: "item 5: a commune newer than codes-postaux (Celles, restored in 2025)",
    line: "1 Place de l'Église, 15170 Celles",
    verdict: "unknown",
    reasons: ["postcode_not_covered"],
  },
  {
    source: "item 5: a postcode La Poste gave a commune after codes-postaux' last release (La Javie, 04000)",
    line: "1 Rue de la Gare, 04000 La Javie",
    verdict: "unknown",
    reasons: ["postcode_not_covered"],
  },
  {
    source: "item 5: a commune whose name ends in France, as La Poste writes it",
    line: "1 Rue de la Gare, 93290 TREMBLAY EN FRANCE",
    verdict: "unknown",
    reasons: ["postcode_not_covered"],
  },
  {
    source: "item 5: La Poste's delivery name, lengthened (Colmars, 04370)",
    line: "1 Rue de la Gare, 04370 Colmars les Alpes",
    verdict: "unknown",
    reasons: ["city_corrected", "postcode_not_covered"],
  },
  {
    source: "item 5: La Poste's delivery name, cut to 32 characters (Escueillens-et-Saint-Just-de-Bélengard)",
    line: "1 Rue de la Gare, 11240 Escueillens et St Just",
    verdict: "unknown",
    reasons: ["city_corrected", "postcode_not_covered"],
  },
  {
    source: "probe: the région's name after an overseas postcode, no city (was nonexistent, postcode_city_mismatch)",
    line: "10 rue du Port 97400 La Réunion",
    verdict: "unknown",
    reasons: ["missing_city", "postcode_not_covered"],
  },
  {
    source: "item 5: a district La Poste delivers by name, no commune (Paopao, Moorea)",
    line: "1 Rue de la Gare, 98728 Paopao",
    verdict: "unknown",
    reasons: ["postcode_not_covered"],
  },
  // Postcodes written amiss outside Paris: uncovered, never nonexistent, and a foreign country still read.
  {
    source: "item 2: a postcode short of its leading zero (spreadsheets drop it), outside coverage",
    line: "3 avenue des Fleurs 6000 Nice",
    verdict: "unknown",
    reasons: ["postcode_not_covered"],
  },
  {
    source: "item 2: a year that ends a street's name, outside coverage, is no postcode",
    line: "10 avenue du 8 Mai 1945 Lyon",
    verdict: "unknown",
    reasons: ["missing_postcode", "postcode_not_covered"],
  },
  {
    source: "item 2: Corsica's département letters in the postcode, outside coverage",
    line: "20 rue de la Gare, 2A000 Ajaccio",
    verdict: "unknown",
    reasons: ["postcode_not_covered"],
  },
  {
    source: "item 2: a spaced postcode in a covered commune",
    line: "1 Rue Saint-Pierre 90 200 Giromagny",
    verdict: "deliverable",
    reasons: [],
    output: "1 Rue Saint-Pierre, 90200 Giromagny",
  },
  {
    source: "country_not_covered: a foreign four-digit postcode, the country's name after the city",
    line: "1 Rue Neuve, 1000 Bruxelles Belgique",
    verdict: "unknown",
    reasons: ["country_not_covered"],
  },
  // Given names written as initials: the one street they spell, the house number breaking a tie, never a guess.
  {
    source: "item 2: a given name as its initial",
    line: "1 Rue V. Hugo, 90200 Giromagny",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Rue Victor Hugo",
  },
  {
    source: "item 2: an initial two streets share, the house number telling them apart",
    line: "1 Rue J. Moulin, 90200 Giromagny",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Rue Jean Moulin",
  },
  {
    source: "item 2: an initial two streets share, both with the number: no guess",
    line: "2 Rue J. Moulin, 90200 Giromagny",
    verdict: "nonexistent",
    reasons: ["street_not_found"],
  },
  {
    source: "item 2: a last word is never read as an initial",
    line: "1 Rue Victor H., 90200 Giromagny",
    verdict: "nonexistent",
    reasons: ["street_not_found"],
  },
  {
    source: "item 5: a slip of the postcode's commune that names a commune elsewhere (Sains, 35610, for Salins, 15200)",
    line: "1 Rue de la Gare, 15200 Sains",
    verdict: "unknown",
    reasons: ["city_corrected", "postcode_not_covered"],
  },
  {
    source: "item 5: a commune elsewhere, with a slip, is still a mismatch (Roffiac, 15100)",
    line: "1 Rue de la Gare, 51170 Rofiac",
    verdict: "nonexistent",
    reasons: ["postcode_city_mismatch"],
  },
  {
    source: "item 5: a locality that names no commune, in a covered commune: the street tells",
    line: "1 Rue de la Côte, 90200 Le Zorglub",
    verdict: "corrected",
    reasons: ["city_corrected"],
    street: "Rue de la Côte",
  },
  {
    source: "item 5: a locality that names no commune, and a street that is not there",
    line: "1 Rue des Zorglubs, 90200 Le Zorglub",
    verdict: "nonexistent",
    reasons: ["street_not_found"],
  },
  {
    source: "item 5: an overseas collectivity's postcode alone (Nouméa)",
    line: "1 Rue de Sébastopol, 98800",
    verdict: "unknown",
    reasons: ["missing_city", "postcode_not_covered"],
  },
  {
    source: "item 5: an overseas collectivity's pair that does not go together",
    line: "98800 Papeete",
    verdict: "nonexistent",
    reasons: ["missing_street", "postcode_city_mismatch"],
  },
  {
    source: "issue 14 §covered: Monaco, a postcode of La Poste in another country",
    line: "1 Avenue Princesse Grace 98000 MONACO",
    verdict: "unknown",
    reasons: ["country_not_covered"],
  },
  {
    source: "item 6: a commune that is also a country's name, in its own segment (Grenade, Grenada)",
    line: "30 Rue de la Gare, 31330 Grenade",
    verdict: "unknown",
    reasons: ["postcode_not_covered"],
  },
  {
    source: "item 6: a country after a postcode in its own segment stays a country",
    line: "Calle Mayor 5, 28001 España",
    verdict: "unknown",
    reasons: ["country_not_covered"],
  },
  {
    source: "item 5: a commune cut to its first word, which names a commune elsewhere (was postcode_city_mismatch)",
    line: "1 Rue de la Gare, 13100 Aix",
    verdict: "unknown",
    reasons: ["city_corrected", "postcode_not_covered"],
  },
  {
    source: "item 5: a commune cut to its first word (Levallois-Perret; was postcode_city_mismatch)",
    line: "1 Rue de la Gare, 92300 Levallois",
    verdict: "unknown",
    reasons: ["city_corrected", "postcode_not_covered"],
  },
  {
    source: "item 5: Saint alone is no cut name",
    line: "1 Rue de la Gare, 42000 Saint",
    verdict: "nonexistent",
    reasons: ["postcode_city_mismatch"],
  },
  {
    source: "item 5: a commune named whole with words added is no cut name",
    line: "8 Rue de la Gare, 30500 Saint-Denis-des-Monts",
    verdict: "nonexistent",
    reasons: ["postcode_city_mismatch"],
  },
  {
    source: "issue 14 §covered: Monaco's postcode without its name",
    line: "1 Avenue Princesse Grace 98000",
    verdict: "unknown",
    reasons: ["country_not_covered"],
  },
  // The city written first: read as the city when the street is there, or when no index covers it; a commune that is
  // covered and has no such street was a company's or a building's name (match/city_written_first.ts).
  {
    source: "probe: the city first (was missing_city)",
    line: "Giromagny 1 rue Victor Hugo",
    verdict: "incomplete",
    reasons: ["missing_postcode"],
    output: "1 Rue Victor Hugo, 90200 Giromagny",
  },
  {
    source: "probe: a commune outside the index written first (was Giromagny's street, missing_city)",
    line: "Roffiac, 1 rue Victor Hugo",
    verdict: "unknown",
    reasons: ["missing_postcode", "postcode_not_covered"],
  },
  {
    source: "guard: a covered commune with no such street, written first, is read as a name before the address",
    line: "Belfort 1 rue Victor Hugo",
    verdict: "incomplete",
    reasons: ["missing_postcode", "missing_city"],
    output: "1 Rue Victor Hugo, 90200 Giromagny",
  },
];

const GIROMAGNY = { lat: 47.7, lon: 6.8 };

describe("issue 14: small words and coverage over a written index (Giromagny, 90)", () => {
  let matcher: AddressMatcher;
  before(() => {
    const reference = new Reference(packReference(compileReference()));
    const insee = reference.citiesNamed("Giromagny")[0]!.communes[0]!;
    const at = { codeInsee: insee, codePostal: "90200", acheminement: "GIROMAGNY" };
    matcher = new AddressMatcher({
      reference,
      indexes: [
        writtenIndex("90", [
          ...streetRows("Rue sur la Côte", [1, 3], at, GIROMAGNY),
          ...streetRows("Rue de la Côte", [1, 2], at, GIROMAGNY),
          ...streetRows("Rue Saint-Pierre", [1, 2], at, GIROMAGNY),
          ...streetRows("Rue Sous Saint-Pierre", [1, 2], at, GIROMAGNY),
          ...streetRows("Rue de la Fontaine", [1], at, GIROMAGNY),
          ...streetRows("Rue Victor Hugo", [1], at, GIROMAGNY),
          ...streetRows("Rue Jean Moulin", [1, 2], at, GIROMAGNY),
          ...streetRows("Rue Jules Moulin", [2, 5], at, GIROMAGNY),
        ]),
      ],
    });
  });
  for (const row of SMALL_WORD_ROWS)
    test(`${row.line} → ${row.verdict} (${row.source})`, () => expectRow(matcher, row));
});

// A type word that begins a name (Belfort, 90000): "Rue du Faubourg de France" written "faubourg de France", beside
// streets named after the rest under other types, as Paris has (Rue du Faubourg Saint-Antoine, Passage Saint-Antoine).
const TYPE_WORD_ROWS: Row[] = [
  {
    source: "item 2: the type word read as the name's first word, not as another type",
    line: "10 faubourg de France, 90000 Belfort",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Rue du Faubourg de France",
  },
  {
    source: "item 2: the same with a typo",
    line: "10 fbg de Frence, 90000 Belfort",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Rue du Faubourg de France",
  },
  {
    source: "item 2: the street of that type, when it exists, as written",
    line: "10 Faubourg des Ancêtres, 90000 Belfort",
    verdict: "deliverable",
    reasons: [],
    street: "Faubourg des Ancêtres",
  },
  {
    source: "item 2: read as a name that two streets begin with, nothing is guessed",
    line: "10 chemin vert, 90000 Belfort",
    verdict: "nonexistent",
    reasons: ["street_not_found"],
  },
  {
    source: "item 2: an article written apart from the name it begins",
    line: "3 rue le Pic, 90000 Belfort",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Rue Lepic",
  },
  {
    source: "item 2: the article glued, as written, is exact",
    line: "3 rue Lepic, 90000 Belfort",
    verdict: "deliverable",
    reasons: [],
    street: "Rue Lepic",
  },
  {
    source: "item 2: a street that carries the type word as a type keeps it",
    line: "10 Passage de France, 90000 Belfort",
    verdict: "deliverable",
    reasons: [],
    street: "Passage de France",
  },
];

describe("issue 14: a type word or an article that begins the name (written index, Belfort 90)", () => {
  let matcher: AddressMatcher;
  before(() => {
    const reference = new Reference(packReference(compileReference()));
    const insee = reference.citiesNamed("Belfort")[0]!.communes[0]!;
    const at = { codeInsee: insee, codePostal: "90000", acheminement: "BELFORT" };
    matcher = new AddressMatcher({
      reference,
      indexes: [
        writtenIndex("90", [
          ...streetRows("Rue du Faubourg de France", [10, 12], at, GIROMAGNY),
          ...streetRows("Passage de France", [10], at, GIROMAGNY),
          ...streetRows("Place de France", [10], at, GIROMAGNY),
          ...streetRows("Faubourg des Ancêtres", [10], at, GIROMAGNY),
          ...streetRows("Rue du Chemin Vert", [10], at, GIROMAGNY),
          ...streetRows("Impasse du Chemin Vert", [10], at, GIROMAGNY),
          ...streetRows("Allée Verte", [10], at, GIROMAGNY),
          ...streetRows("Rue Lepic", [3], at, GIROMAGNY),
        ]),
      ],
    });
  });
  for (const row of TYPE_WORD_ROWS) test(`${row.line} → ${row.verdict} (${row.source})`, () => expectRow(matcher, row));
});

// Vézelois (90400, its only postcode): a lieu-dit BAN writes without a type, a hameau, letter suffixes, numbers inside
// names, and one-digit slips of the postcode. Roffiac (15100) and Leucamp (15120, 15130) lie outside the index.
const VEZELOIS_ROWS: Row[] = [
  {
    source: "probe: a lieu-dit named by a type word alone is found",
    line: "3 La Place, 90400 Vézelois",
    verdict: "deliverable",
    reasons: [],
    street: "La Place",
  },
  {
    source: 'probe: a type word alone names no street near it (Paris gave Rue du Plâtre for "place")',
    line: "3 Passage, 90400 Vézelois",
    verdict: "nonexistent",
    reasons: ["street_not_found"],
  },
  {
    source: "issue 14 §suffix letters: 1C Rue Neuve",
    line: "1C Rue Neuve, 90400 Vézelois",
    verdict: "deliverable",
    reasons: [],
    suffix: "C",
    output: "1 C Rue Neuve, 90400 Vézelois",
  },
  {
    source: "issue 14 §suffix letters: quinquies written, BAN's c printed",
    line: "1 quinquies Rue Neuve, 90400 Vézelois",
    verdict: "deliverable",
    reasons: [],
    suffix: "C",
  },
  {
    source: "issue 14 §suffix letters: an unlisted 3C inside the range keeps its letter",
    line: "3C Rue Neuve, 90400 Vézelois",
    verdict: "deliverable",
    reasons: [],
    suffix: "C",
    output: "3 C Rue Neuve, 90400 Vézelois",
  },
  {
    source: "issue 14 §suffix letters: a lone b beside other letters stays B",
    line: "7 b Rue Neuve, 90400 Vézelois",
    verdict: "deliverable",
    reasons: [],
    suffix: "B",
  },
  {
    source: "issue 14 §lieux-dits: 26 lieu-dit Le Village",
    line: "26 lieu-dit Le Village, 90400 Vézelois",
    verdict: "deliverable",
    reasons: [],
    street: "Le Village",
    output: "26 Le Village, 90400 Vézelois",
  },
  {
    source: "issue 14 §lieux-dits: ld",
    line: "26 ld Le Village, 90400 Vézelois",
    verdict: "deliverable",
    reasons: [],
    street: "Le Village",
  },
  {
    source: "issue 14 §lieux-dits: lieudit in one word",
    line: "26 lieudit le village 90400 vezelois",
    verdict: "deliverable",
    reasons: [],
    street: "Le Village",
  },
  {
    source: "issue 14 §lieux-dits: hameau before a lieu-dit",
    line: "26 hameau le village 90400 vezelois",
    verdict: "deliverable",
    reasons: [],
    street: "Le Village",
  },
  {
    source: "issue 14 §lieux-dits: lieu dit at the start, no number",
    line: "Lieu-dit Le Village, 90400 Vézelois",
    verdict: "incomplete",
    reasons: ["missing_house_number"],
    street: "Le Village",
  },
  {
    source: "issue 14 §lieux-dits: a hameau BAN names with its type stays exact",
    line: "1 hameau des prés 90400 vezelois",
    verdict: "deliverable",
    reasons: [],
    street: "Hameau des Prés",
  },
  {
    source: "issue 14 §lieux-dits: a slip in the name is still a correction",
    line: "26 lieu-dit Le Vilage, 90400 Vézelois",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Le Village",
  },
  {
    source: "issue 14 §lieux-dits: another street type is still a correction",
    line: "26 rue le village 90400 vezelois",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Le Village",
  },
  {
    source: "issue 14 §numbers in names: 24 novembre for BAN's XXIV",
    line: "1 rue du 24 novembre 90400 vezelois",
    verdict: "deliverable",
    reasons: [],
    street: "Rue du XXIV Novembre",
  },
  {
    source: "issue 14 §numbers in names: vingt-quatre for BAN's XXIV",
    line: "1 rue du vingt-quatre novembre 90400 vezelois",
    verdict: "deliverable",
    reasons: [],
    street: "Rue du XXIV Novembre",
  },
  {
    source: "issue 14 §numbers in names: huit mai for BAN's digits",
    line: "2 rue du huit mai 1945 90400 vezelois",
    verdict: "deliverable",
    reasons: [],
    street: "Rue du 8 Mai 1945",
  },
  {
    source: "issue 14 §numbers in names: another date is another street",
    line: "2 rue du 9 mai 1945 90400 vezelois",
    verdict: "nonexistent",
    reasons: ["street_not_found"],
  },
  {
    source: "issue 14 §postcode slip: an existing postcode one digit away",
    line: "1 Rue de la Gare, 90300 Vézelois",
    verdict: "corrected",
    reasons: ["postcode_corrected"],
    postcode: "90400",
    output: "1 Rue de la Gare, 90400 Vézelois",
  },
  {
    source: "issue 14 §postcode slip: a postcode that does not exist",
    line: "1 Rue de la Gare, 90401 Vézelois",
    verdict: "corrected",
    reasons: ["postcode_corrected"],
    postcode: "90400",
  },
  {
    source: "issue 14 §postcode slip: corrected even when the street is not there",
    line: "1 Rue des Zorglubs, 90300 Vézelois",
    verdict: "nonexistent",
    reasons: ["postcode_corrected", "street_not_found"],
  },
  {
    source: "issue 14 §postcode slip: without a street",
    line: "90410 Vézelois",
    verdict: "incomplete",
    reasons: ["missing_street", "postcode_corrected"],
    output: "90400 Vézelois",
  },
  {
    source: "issue 14 §postcode slip: 15110 Roffiac, its only postcode 15100, outside coverage",
    line: "1 Rue de la Gare, 15110 Roffiac",
    verdict: "unknown",
    reasons: ["postcode_corrected", "postcode_not_covered"],
    output: null,
  },
  {
    source: "issue 14 §postcode slip: 15110 Roffiac without a street",
    line: "15110 Roffiac",
    verdict: "unknown",
    reasons: ["missing_street", "postcode_corrected", "postcode_not_covered"],
    output: "15100 Roffiac",
  },
  {
    source: "issue 14 §postcode slip: one of two postcodes one digit away (Leucamp 15120)",
    line: "1 Rue de la Gare, 15121 Leucamp",
    verdict: "unknown",
    reasons: ["postcode_corrected", "postcode_not_covered"],
  },
  {
    source: "issue 14 §postcode slip: never a guess between 15120 and 15130",
    line: "1 Rue de la Gare, 15140 Leucamp",
    verdict: "nonexistent",
    reasons: ["postcode_city_mismatch"],
  },
  {
    source: "issue 14 §postcode slip: more than one digit is a mismatch",
    line: "1 Rue de la Gare, 51170 Roffiac",
    verdict: "nonexistent",
    reasons: ["postcode_city_mismatch"],
  },
];

const VEZELOIS = { lat: 47.6, lon: 6.9 };

describe("issue 14: lieux-dits, suffix letters, numbers in names, postcode slips (written index, Vézelois 90)", () => {
  let matcher: AddressMatcher;
  before(() => {
    const reference = new Reference(packReference(compileReference()));
    const insee = reference.citiesNamed("Vézelois")[0]!.communes[0]!;
    assert.deepEqual(reference.postcodesOf(insee), ["90400"]);
    const at = { codeInsee: insee, codePostal: "90400", acheminement: "VEZELOIS" };
    const neuve = (numero: number, rep: string) => ({ ...streetRows("Rue Neuve", [numero], at, VEZELOIS)[0]!, rep });
    matcher = new AddressMatcher({
      reference,
      indexes: [
        writtenIndex("90", [
          // BAN lieux-dits have no street type.
          ...streetRows("Le Village", [20, 26, 30], at, VEZELOIS),
          ...streetRows("Hameau des Prés", [1, 2], at, VEZELOIS),
          neuve(1, ""),
          neuve(1, "c"),
          neuve(5, ""),
          neuve(7, "a"),
          neuve(7, "b"),
          ...streetRows("Rue du XXIV Novembre", [1, 2], at, VEZELOIS),
          ...streetRows("Rue du 8 Mai 1945", [1, 2], at, VEZELOIS),
          ...streetRows("Rue de la Gare", [1, 2], at, VEZELOIS),
          // A lieu-dit named by a type word alone, as villages have.
          ...streetRows("La Place", [3], at, VEZELOIS),
        ]),
      ],
    });
  });
  for (const row of VEZELOIS_ROWS) test(`${row.line} → ${row.verdict} (${row.source})`, () => expectRow(matcher, row));
});
