// test-scope: once
// (Logic and data that no runtime changes: CI runs this file on its recommended runtime only; test/runner/run.ts.)
// Slips in a street's name: letters typed wrong or swapped, sound-alikes, names too short to correct, given
// names as initials, slips of an article, accents mis-decoded on the way.
// Paris rows run over the real Paris BAN file (../shared/data/ban, skipped when absent); the others over a small index
// written in answer_tables.ts with real commune codes. One test per row, named by the rule it proves.
import { describeOverParis, describeOverWrittenIndex, giromagnyMatcher, type Row } from "./answer_tables.ts";

const PARIS_ROWS: Row[] = [
  // Two edits in names of 5+ letters when the winner leads every other name.
  {
    source: "two-letter slips",
    line: "12 Passage Kracahr, 75018 Paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Passage Kracher",
  },
  {
    source: "two-letter slips",
    line: "12 Rue d'Eaghie, 75010 Paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Rue d'Enghien",
  },
  {
    source: "two-letter slips",
    line: "Boulevard du Tempbl, 75003 Paris",
    verdict: "incomplete",
    reasons: ["missing_house_number", "street_corrected"],
    street: "Boulevard du Temple",
  },
  {
    source: "two-letter slips, transposition counts one edit",
    line: "Boulevard du Tmeple, 75003 Paris",
    verdict: "incomplete",
    reasons: ["missing_house_number", "street_corrected"],
    street: "Boulevard du Temple",
  },
  {
    source: "two-letter slips, no stretch in 4 letters",
    line: "1 Rue Xyzq, 75001 Paris",
    verdict: "nonexistent",
    reasons: ["street_not_found"],
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
  // A name under four letters is reached by no edit, as a query of that length corrects none ("test" was Rue de l'Est,
  // 75020, a junk value answered as a street of another arrondissement).
  {
    source: "probe: a junk street value is no slip of a three-letter name",
    line: "test, 75004 Paris",
    fields: { street: "test", postcode: "75004", city: "Paris" },
    verdict: "nonexistent",
    reasons: ["street_not_found"],
    output: null,
  },
  {
    source: "guard: an elided article glued to a short name is taken apart",
    line: "10 rue de lest 75020 paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    output: "10 Rue de l'Est, 75020 Paris",
  },
  {
    source: "guard: a stray word before a short name is dropped, the name itself exact",
    line: "46 Rue dhe la Py, 75020 Paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    output: "46 Rue de la Py, 75020 Paris",
  },
  // An initial that is also a word the key drops ("A." as "à", "L." as "l'"): its period says it is an initial.
  {
    source: "probe: the initial A. read as à left Avenue de France, 13th, without the number",
    line: "5 avenue A. France 75007 Paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    output: "5 Avenue Anatole France, 75007 Paris",
  },
  {
    source: "probe: the initial A. of a street whose last word no left-out rule reaches",
    line: "5 rue A. Comte 75006 Paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    output: "5 Rue Auguste Comte, 75006 Paris",
  },
  {
    source: "guard: a lone a without its period stays the word the key drops",
    line: "5 rue a Comte 75006 Paris",
    verdict: "nonexistent",
    reasons: ["street_not_found"],
    output: null,
  },
  {
    source: "probe: Voie D/19 and Voie De/19 share a key (was Voie De/19, deliverable)",
    line: "1 Voie D/19, 75019 Paris",
    verdict: "deliverable",
    reasons: [],
    output: "1 Voie D/19, 75019 Paris",
  },
  // A slip of an article is dropped, not a word of the name that is one edit from an article too ("ile", "lot",
  // "parc" begin names of streets).
  {
    source: "probe: a slipped article before a name word one edit from an article (was street_not_found)",
    line: "8 Cour dhe l'Île Louviers, 75004 Paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    output: "8 Cour de l'Île Louviers, 75004 Paris",
  },
  {
    source: "probe: a slipped article before a short name (was street_not_found)",
    line: "1 Quai dy Lot, 75019 Paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    output: "1 Quai du Lot, 75019 Paris",
  },
  {
    source: "probe: two slipped articles around a name word (was Square de Montsouris)",
    line: "1 Rue dy Parc dhe Montsouris, 75014 Paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    output: "1 Rue du Parc de Montsouris, 75014 Paris",
  },
  {
    source: "guard: a slipped article that begins a name is dropped when no other word is a slip",
    line: "4 Rue de lea Solidarité, 75019 Paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    output: "4 Rue de la Solidarité, 75019 Paris",
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
  {
    source: "probe: a given name as an initial before an article, not left out (was Rue du Temple, another street)",
    line: "12 rue v. du temple 75004 paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    output: "12 Rue Vieille du Temple, 75004 Paris",
  },
  {
    source: "probe: an initial the key read as an elided article, before one (was Rue de Tanger)",
    line: "12 rue d. d'angers 75019 paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    output: "12 Rue David d'Angers, 75019 Paris",
  },
  {
    source: "probe: an initial before an article (was Rue de Poitiers)",
    line: "1 allée d. de poitiers 75019 paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    output: "1 Allée Diane de Poitiers, 75019 Paris",
  },
  {
    source:
      "probe: an initial read as à, over a street of the key elsewhere (was Avenue de France, 75013, postcode_corrected)",
    line: "12 av. a. france 75007 paris",
    verdict: "nonexistent",
    reasons: ["house_number_out_of_range", "street_corrected"],
    output: "Avenue Anatole France, 75007 Paris",
  },
  {
    source:
      "probe: an initial read as à, over the street of the key here that has the number (was deliverable, Rue Lefebvre)",
    line: "1 rue a. lefebvre 75015 paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    output: "1 Rue André Lefebvre, 75015 Paris",
  },
  {
    source: "probe: an initial after an article (was Rue Saint-Paul, deliverable)",
    line: "1 rue des l. saint-paul 75004 paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    output: "1 Rue des Lions Saint-Paul, 75004 Paris",
  },
  {
    source: "guard: the street of the key, written without the initial",
    line: "1 rue lefebvre 75015 paris",
    verdict: "deliverable",
    reasons: [],
    output: "1 Rue Lefebvre, 75015 Paris",
  },
];

const GIROMAGNY_ROWS: Row[] = [
  // Given names written as initials: the one street they spell, the house number breaking a tie, never a guess.
  {
    source: "noise: a given name as its initial",
    line: "1 Rue V. Hugo, 90200 Giromagny",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Rue Victor Hugo",
  },
  {
    source: "noise: an initial two streets share, the house number telling them apart",
    line: "1 Rue J. Moulin, 90200 Giromagny",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Rue Jean Moulin",
  },
  {
    source: "noise: an initial two streets share, both with the number: no guess",
    line: "2 Rue J. Moulin, 90200 Giromagny",
    verdict: "nonexistent",
    reasons: ["street_not_found"],
  },
  {
    source: "noise: a last word is never read as an initial",
    line: "1 Rue Victor H., 90200 Giromagny",
    verdict: "nonexistent",
    reasons: ["street_not_found"],
  },
];

describeOverParis("street spelling slips over the Paris BAN file", PARIS_ROWS);
describeOverWrittenIndex(
  "street spelling slips over a written index (Giromagny, 90)",
  GIROMAGNY_ROWS,
  giromagnyMatcher,
);
