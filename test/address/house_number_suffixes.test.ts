// test-scope: once
// (Logic and data that no runtime changes: CI runs this file on its recommended runtime only; test/runner/run.ts.)
// House-number suffixes: a letter stays a letter; b, t, q read as bis, ter, quater only when the number has no
// other kind of suffix (BAN's rewriteSuffixes); glued or spaced, upper or lower case, the same suffix.
// Paris rows run over the real Paris BAN file (../shared/data/ban, skipped when absent); the others over a small index
// written in answer_tables.ts with real commune codes. One test per row, named by the rule it proves.
import { describeOverParis, describeOverWrittenIndex, vezeloisMatcher, type Row } from "./answer_tables.ts";

const PARIS_ROWS: Row[] = [
  {
    source: "suffix letters: 1C is C, never quinquies",
    line: "185C rue Saint-Denis 75002 Paris",
    verdict: "deliverable",
    reasons: [],
    suffix: "C",
    output: "185 C Rue Saint-Denis, 75002 Paris",
  },
  {
    source: "suffix letters: spaced lower-case c",
    line: "185 c rue saint denis 75002 paris",
    verdict: "deliverable",
    reasons: [],
    suffix: "C",
    output: "185 C Rue Saint-Denis, 75002 Paris",
  },
  {
    source: "suffix letters: s is a letter too",
    line: "49S square de Montsouris 75014 Paris",
    verdict: "deliverable",
    reasons: [],
    suffix: "S",
    output: "49 S Square de Montsouris, 75014 Paris",
  },
  {
    source: "suffix letters: 12bis glued",
    line: "39bis rue de Rivoli 75004 Paris",
    verdict: "deliverable",
    reasons: [],
    suffix: "bis",
    output: "39 bis Rue de Rivoli, 75004 Paris",
  },
  {
    source: "suffix letters: 12 b spaced",
    line: "39 b rue de Rivoli 75004 Paris",
    verdict: "deliverable",
    reasons: [],
    suffix: "bis",
    output: "39 bis Rue de Rivoli, 75004 Paris",
  },
  {
    source: "suffix letters: 12B glued capital",
    line: "39B rue de Rivoli 75004 Paris",
    verdict: "deliverable",
    reasons: [],
    suffix: "bis",
    output: "39 bis Rue de Rivoli, 75004 Paris",
  },
  {
    source: "suffix letters: 12 ter spaced",
    line: "48 ter rue de Lisbonne 75008 Paris",
    verdict: "deliverable",
    reasons: [],
    suffix: "ter",
    output: "48 ter Rue de Lisbonne, 75008 Paris",
  },
  {
    source: "suffix letters: 12ter glued",
    line: "48ter rue de Lisbonne 75008 Paris",
    verdict: "deliverable",
    reasons: [],
    suffix: "ter",
    output: "48 ter Rue de Lisbonne, 75008 Paris",
  },
  {
    source: "suffix letters: T glued capital",
    line: "48T rue de Lisbonne 75008 Paris",
    verdict: "deliverable",
    reasons: [],
    suffix: "ter",
  },
];

const VEZELOIS_ROWS: Row[] = [
  {
    source: "suffix letters: 1C Rue Neuve",
    line: "1C Rue Neuve, 90400 Vézelois",
    verdict: "deliverable",
    reasons: [],
    suffix: "C",
    output: "1 C Rue Neuve, 90400 Vézelois",
  },
  {
    source: "suffix letters: quinquies written, BAN's c printed",
    line: "1 quinquies Rue Neuve, 90400 Vézelois",
    verdict: "deliverable",
    reasons: [],
    suffix: "C",
  },
  {
    source: "suffix letters: an unlisted 3C inside the range keeps its letter",
    line: "3C Rue Neuve, 90400 Vézelois",
    verdict: "deliverable",
    reasons: [],
    suffix: "C",
    output: "3 C Rue Neuve, 90400 Vézelois",
  },
  {
    source: "suffix letters: a lone b beside other letters stays B",
    line: "7 b Rue Neuve, 90400 Vézelois",
    verdict: "deliverable",
    reasons: [],
    suffix: "B",
  },
];

describeOverParis("house-number suffixes over the Paris BAN file", PARIS_ROWS);
describeOverWrittenIndex("house-number suffixes over a written index (Vézelois, 90)", VEZELOIS_ROWS, vezeloisMatcher);
