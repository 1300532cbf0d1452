// test-scope: once
// (Logic and data that no runtime changes: CI runs this file on its recommended runtime only; test/runner/run.ts.)
// Every commune of France, indexed or not: a postcode and a city that go together outside the index are
// uncovered, never nonexistent; La Poste's delivery names, overseas collectivities, Monaco, countries after the city.
// Paris rows run over the real Paris BAN file (../shared/data/ban, skipped when absent); the others over a small index
// written in answer_tables.ts with real commune codes. One test per row, named by the rule it proves.
import { describeOverParis, describeOverWrittenIndex, giromagnyMatcher, type Row } from "./answer_tables.ts";

const PARIS_ROWS: Row[] = [
  // Nationwide consistency of postcode and city, with a street given.
  {
    source: "nationwide consistency: 51170 Roffiac",
    line: "1 Rue de la Gare, 51170 Roffiac",
    verdict: "nonexistent",
    reasons: ["postcode_city_mismatch"],
  },
  {
    source: "every commune of France: a consistent pair outside coverage",
    line: "1 Rue de la Gare, 15100 Roffiac",
    verdict: "unknown",
    reasons: ["postcode_not_covered"],
  },
  {
    source: "nationwide consistency: 75007 Marseille, street of the 7th",
    line: "10 Rue de Grenelle, 75007 Marseille",
    verdict: "corrected",
    reasons: ["city_corrected"],
    postcode: "75007",
  },
  {
    source: "nationwide consistency: 75007 Marseille, street elsewhere",
    line: "12 Rue de Rivoli, 75007 Marseille",
    verdict: "nonexistent",
    reasons: ["postcode_city_mismatch", "street_not_found"],
  },
  {
    source: "nationwide consistency: 13001 Paris",
    line: "12 Rue de Rivoli, 13001 Paris",
    verdict: "corrected",
    reasons: ["postcode_corrected"],
    postcode: "75004",
  },
  {
    source: "every commune of France: mismatch without street",
    line: "51170 Roffiac",
    verdict: "nonexistent",
    reasons: ["missing_street", "postcode_city_mismatch"],
  },
  // Coverage decided on the commune found; CEDEX resolves before coverage.
  {
    source: "coverage: PARIS LA DEFENSE CEDEX",
    line: "10 rue de la paix 92925 PARIS LA DEFENSE CEDEX",
    verdict: "unknown",
    reasons: ["postcode_not_covered"],
  },
  {
    source: "coverage: Nantes CEDEX code",
    line: "46 BIS RUE DES HAUTS PAVES 44021",
    verdict: "unknown",
    reasons: ["missing_city", "postcode_not_covered"],
  },
  {
    source: "coverage: Quartier Rohan",
    line: "Quartier Rohan, 44156 ANCENIS",
    verdict: "unknown",
    reasons: ["postcode_not_covered"],
  },
];

const GIROMAGNY_ROWS: Row[] = [
  {
    source: "coverage: invented street in a covered commune",
    line: "1 Rue des Zorglubs, 90200 Giromagny",
    verdict: "nonexistent",
    reasons: ["street_not_found"],
  },
  // Every commune of France: those codes-postaux leaves out are uncovered, not nonexistent.
  {
    source: "every commune of France: a commune newer than codes-postaux (Celles, restored in 2025)",
    line: "1 Place de l'Église, 15170 Celles",
    verdict: "unknown",
    reasons: ["postcode_not_covered"],
  },
  {
    source:
      "every commune of France: a postcode La Poste gave a commune after codes-postaux' last release (La Javie, 04000)",
    line: "1 Rue de la Gare, 04000 La Javie",
    verdict: "unknown",
    reasons: ["postcode_not_covered"],
  },
  {
    source: "every commune of France: a commune whose name ends in France, as La Poste writes it",
    line: "1 Rue de la Gare, 93290 TREMBLAY EN FRANCE",
    verdict: "unknown",
    reasons: ["postcode_not_covered"],
  },
  {
    source: "every commune of France: La Poste's delivery name, lengthened (Colmars, 04370)",
    line: "1 Rue de la Gare, 04370 Colmars les Alpes",
    verdict: "unknown",
    reasons: ["city_corrected", "postcode_not_covered"],
  },
  {
    source:
      "every commune of France: La Poste's delivery name, cut to 32 characters (Escueillens-et-Saint-Just-de-Bélengard)",
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
    source: "every commune of France: a district La Poste delivers by name, no commune (Paopao, Moorea)",
    line: "1 Rue de la Gare, 98728 Paopao",
    verdict: "unknown",
    reasons: ["postcode_not_covered"],
  },
  // Postcodes written amiss outside Paris: uncovered, never nonexistent, and a foreign country still read.
  {
    source: "noise: a postcode short of its leading zero (spreadsheets drop it), outside coverage",
    line: "3 avenue des Fleurs 6000 Nice",
    verdict: "unknown",
    reasons: ["postcode_not_covered"],
  },
  {
    source: "noise: a year that ends a street's name, outside coverage, is no postcode",
    line: "10 avenue du 8 Mai 1945 Lyon",
    verdict: "unknown",
    reasons: ["missing_postcode", "postcode_not_covered"],
  },
  {
    source: "noise: Corsica's département letters in the postcode, outside coverage",
    line: "20 rue de la Gare, 2A000 Ajaccio",
    verdict: "unknown",
    reasons: ["postcode_not_covered"],
  },
  {
    source: "noise: a spaced postcode in a covered commune",
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
  {
    source:
      "every commune of France: a slip of the postcode's commune that names a commune elsewhere (Sains, 35610, for Salins, 15200)",
    line: "1 Rue de la Gare, 15200 Sains",
    verdict: "unknown",
    reasons: ["city_corrected", "postcode_not_covered"],
  },
  {
    source: "every commune of France: a commune elsewhere, with a slip, is still a mismatch (Roffiac, 15100)",
    line: "1 Rue de la Gare, 51170 Rofiac",
    verdict: "nonexistent",
    reasons: ["postcode_city_mismatch"],
  },
  {
    source: "every commune of France: a locality that names no commune, in a covered commune: the street tells",
    line: "1 Rue de la Côte, 90200 Le Zorglub",
    verdict: "corrected",
    reasons: ["city_corrected"],
    street: "Rue de la Côte",
  },
  {
    source: "every commune of France: a locality that names no commune, and a street that is not there",
    line: "1 Rue des Zorglubs, 90200 Le Zorglub",
    verdict: "nonexistent",
    reasons: ["street_not_found"],
  },
  {
    source: "every commune of France: an overseas collectivity's postcode alone (Nouméa)",
    line: "1 Rue de Sébastopol, 98800",
    verdict: "unknown",
    reasons: ["missing_city", "postcode_not_covered"],
  },
  {
    source: "every commune of France: an overseas collectivity's pair that does not go together",
    line: "98800 Papeete",
    verdict: "nonexistent",
    reasons: ["missing_street", "postcode_city_mismatch"],
  },
  {
    source: "coverage: Monaco, a postcode of La Poste in another country",
    line: "1 Avenue Princesse Grace 98000 MONACO",
    verdict: "unknown",
    reasons: ["country_not_covered"],
  },
  {
    source: "a name before a country: a commune that is also a country's name, in its own segment (Grenade, Grenada)",
    line: "30 Rue de la Gare, 31330 Grenade",
    verdict: "unknown",
    reasons: ["postcode_not_covered"],
  },
  {
    source: "a name before a country: a country after a postcode in its own segment stays a country",
    line: "Calle Mayor 5, 28001 España",
    verdict: "unknown",
    reasons: ["country_not_covered"],
  },
  {
    source:
      "every commune of France: a commune cut to its first word, which names a commune elsewhere (was postcode_city_mismatch)",
    line: "1 Rue de la Gare, 13100 Aix",
    verdict: "unknown",
    reasons: ["city_corrected", "postcode_not_covered"],
  },
  {
    source: "every commune of France: a commune cut to its first word (Levallois-Perret; was postcode_city_mismatch)",
    line: "1 Rue de la Gare, 92300 Levallois",
    verdict: "unknown",
    reasons: ["city_corrected", "postcode_not_covered"],
  },
  {
    source: "every commune of France: Saint alone is no cut name",
    line: "1 Rue de la Gare, 42000 Saint",
    verdict: "nonexistent",
    reasons: ["postcode_city_mismatch"],
  },
  {
    source: "every commune of France: a commune named whole with words added is no cut name",
    line: "8 Rue de la Gare, 30500 Saint-Denis-des-Monts",
    verdict: "nonexistent",
    reasons: ["postcode_city_mismatch"],
  },
  {
    source: "coverage: Monaco's postcode without its name",
    line: "1 Avenue Princesse Grace 98000",
    verdict: "unknown",
    reasons: ["country_not_covered"],
  },
];

describeOverParis("commune coverage over the Paris BAN file", PARIS_ROWS);
describeOverWrittenIndex("commune coverage over a written index (Giromagny, 90)", GIROMAGNY_ROWS, giromagnyMatcher);
