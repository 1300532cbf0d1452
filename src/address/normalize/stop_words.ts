// Articles and short words ignored when comparing (NORMALISATION §4: BAN, libpostal stop words). Elided "l'" and
// "d'" arrive as separate tokens "l" and "d" from tokenize(), so they go too ("Rue d'Elbeuf" = "Rue Elbeuf").
export const STOP_WORDS: ReadonlySet<string> = new Set([
  "le", "la", "les", "l", "d", "de", "du", "des", "a", "au", "aux", "et", "en", "sur", "sous", "par",
  "dos", "las", "los", "un", "une",
]);
