// test-scope: once
// (Logic and data that no runtime changes: CI runs this file on its recommended runtime only; test/runner/run.ts.)
// Numbers inside street names: BAN writes them in words, roman figures or digits, and people write them
// otherwise; a date's year left out; a number of the name that is no house number.
// Paris rows run over the real Paris BAN file (../shared/data/ban, skipped when absent); the others over a small index
// written in answer_tables.ts with real commune codes. One test per row, named by the rule it proves.
import { describeOverParis, describeOverWrittenIndex, vezeloisMatcher, type Row } from "./answer_tables.ts";

const PARIS_ROWS: Row[] = [
  // Numbers inside names: BAN Paris writes them in words.
  {
    source: "numbers in names: 4 septembre",
    line: "4 rue du 4 septembre 75002 paris",
    verdict: "deliverable",
    reasons: [],
    street: "Rue du Quatre Septembre",
    output: "4 Rue du Quatre Septembre, 75002 Paris",
  },
  {
    source: "numbers in names: a slip in the spelled number",
    line: "4 rue du quatee septembre 75002 paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    street: "Rue du Quatre Septembre",
  },
  {
    source: "numbers in names: 8 mai 1945",
    line: "10 rue du 8 mai 1945 75010 paris",
    verdict: "deliverable",
    reasons: [],
    street: "Rue du Huit Mai 1945",
    output: "10 Rue du Huit Mai 1945, 75010 Paris",
  },
  {
    source: "numbers in names: 18 juin 1940, two words",
    line: "1 place du 18 juin 1940 75006 paris",
    verdict: "deliverable",
    reasons: [],
    street: "Place du Dix-Huit Juin 1940",
  },
  {
    source: "numbers in names: 25 août 1944",
    line: "1 place du 25 aout 1944 75014 paris",
    verdict: "deliverable",
    reasons: [],
    street: "Place du Vingt-Cinq Août 1944",
  },
  {
    source: "numbers in names: roman XXIX for Vingt-Neuf",
    line: "1 rue du XXIX juillet 75001 paris",
    verdict: "deliverable",
    reasons: [],
    street: "Rue du Vingt-Neuf Juillet",
  },
  {
    source: "numbers in names: Henri 4 for Henri IV",
    line: "1 boulevard henri 4 75004 paris",
    verdict: "deliverable",
    reasons: [],
    street: "Boulevard Henri IV",
    output: "1 Boulevard Henri IV, 75004 Paris",
  },
  {
    source: "numbers in names: a number after the street that is part of its name",
    line: "Boulevard Henri 4, 75004 Paris",
    verdict: "incomplete",
    reasons: ["missing_house_number"],
    street: "Boulevard Henri IV",
  },
  {
    source: "numbers in names: Pont Alexandre 3 is no number 3 of another street",
    line: "Pont Alexandre 3, 75008 Paris",
    verdict: "incomplete",
    reasons: ["missing_house_number", "postcode_corrected"],
    street: "Pont Alexandre III",
    postcode: "75007",
  },
  {
    source: "numbers in names: the house number after a numbered name",
    line: "Boulevard Henri IV 12, 75004 Paris",
    verdict: "deliverable",
    reasons: [],
    output: "12 Boulevard Henri IV, 75004 Paris",
  },
  {
    source: "numbers in names: the date is no house number",
    line: "Rue du 8 Mai 1945, 75010 Paris",
    verdict: "incomplete",
    reasons: ["missing_house_number"],
    street: "Rue du Huit Mai 1945",
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
  {
    source: "guard: a typed street with a date's number keeps it in its name",
    line: "rue du 4 septembre, 10, 75002 paris",
    verdict: "deliverable",
    reasons: [],
    output: "10 Rue du Quatre Septembre, 75002 Paris",
  },
  {
    source: "probe: a king's number after a name without its type (was Rue Charles Weiss, 75015)",
    line: "1 Charles V, 75004 Paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    output: "1 Rue Charles V, 75004 Paris",
  },
  {
    source: "probe: a roman numeral after a name without its type (was Rue d'Alexandrie, 75002)",
    line: "1 Alexandre III, 75007 Paris",
    verdict: "corrected",
    reasons: ["street_corrected"],
    output: "1 Pont Alexandre III, 75007 Paris",
  },
];

const VEZELOIS_ROWS: Row[] = [
  {
    source: "numbers in names: 24 novembre for BAN's XXIV",
    line: "1 rue du 24 novembre 90400 vezelois",
    verdict: "deliverable",
    reasons: [],
    street: "Rue du XXIV Novembre",
  },
  {
    source: "numbers in names: vingt-quatre for BAN's XXIV",
    line: "1 rue du vingt-quatre novembre 90400 vezelois",
    verdict: "deliverable",
    reasons: [],
    street: "Rue du XXIV Novembre",
  },
  {
    source: "numbers in names: huit mai for BAN's digits",
    line: "2 rue du huit mai 1945 90400 vezelois",
    verdict: "deliverable",
    reasons: [],
    street: "Rue du 8 Mai 1945",
  },
  {
    source: "numbers in names: another date is another street",
    line: "2 rue du 9 mai 1945 90400 vezelois",
    verdict: "nonexistent",
    reasons: ["street_not_found"],
  },
];

describeOverParis("numbers in street names over the Paris BAN file", PARIS_ROWS);
describeOverWrittenIndex("numbers in street names over a written index (Vézelois, 90)", VEZELOIS_ROWS, vezeloisMatcher);
