// test-scope: once
// (Logic and data that no runtime changes: CI runs this file on its recommended runtime only; test/runner/run.ts.)
// Small words that are part of names: "sur", "sous", "de", "la" kept where the index has them, never read
// as noise into another street.
// The rows run over a small index written in answer_tables.ts with real commune codes. One test per row, named by the
// rule it proves.
import { describeOverWrittenIndex, giromagnyMatcher, type Row } from "./answer_tables.ts";

const GIROMAGNY_ROWS: Row[] = [
  {
    source: "small words: sur is part of the name",
    line: "1 Rue sur la Côte, 90200 Giromagny",
    verdict: "deliverable",
    reasons: [],
    street: "Rue sur la Côte",
  },
  {
    source: "small words: never the other street",
    line: "1 Rue de la Côte, 90200 Giromagny",
    verdict: "deliverable",
    reasons: [],
    street: "Rue de la Côte",
  },
  {
    source: "small words: exact Saint-Pierre wins",
    line: "1 Rue Saint-Pierre, 90200 Giromagny",
    verdict: "deliverable",
    reasons: [],
    street: "Rue Saint-Pierre",
  },
  {
    source: "small words: sous kept",
    line: "2 Rue Sous Saint-Pierre, 90200 Giromagny",
    verdict: "deliverable",
    reasons: [],
    street: "Rue Sous Saint-Pierre",
  },
  {
    source: "small words: a street that differs by sur is not found",
    line: "1 Rue sur la Fontaine, 90200 Giromagny",
    verdict: "nonexistent",
    reasons: ["street_not_found"],
  },
  // Streets of one commune whose keys are one (the key drops "de"): the words written tell them apart.
  {
    source: "probe: two streets under one key, the one written without de",
    line: "1 Chemin la Croix, 90200 Giromagny",
    verdict: "deliverable",
    reasons: [],
    street: "Chemin la Croix",
  },
  {
    source: "probe: two streets under one key, the one written with de",
    line: "1 Chemin de la Croix, 90200 Giromagny",
    verdict: "deliverable",
    reasons: [],
    street: "Chemin de la Croix",
  },
  {
    source: "guard: a street abbreviated, its articles as written",
    line: "1 ch. de la Croix, 90200 Giromagny",
    verdict: "deliverable",
    reasons: [],
    street: "Chemin de la Croix",
  },
  {
    source: "guard: a street named after its own commune keeps its last word",
    line: "1 Rue de Giromagny, 90200 Giromagny",
    fields: { street: "1 Rue de Giromagny", postcode: "90200", city: "Giromagny" },
    verdict: "deliverable",
    reasons: [],
    output: "1 Rue de Giromagny, 90200 Giromagny",
  },
];

describeOverWrittenIndex("small words over a written index (Giromagny, 90)", GIROMAGNY_ROWS, giromagnyMatcher);
