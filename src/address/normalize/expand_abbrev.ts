// Titles, saints and common words written short (docs/address_rules.md §3, BAN adresses-util words.js, addok-fr synonyms).
// Applied to every word of a street or city, the first one included ("St Germain" has no street type).
// "pte" (petite, porte, pointe) and "pr" (professeur, père) are ambiguous and left alone: the matcher spells them out
// each way and asks the index (match/search_order.ts, ambiguousAbbreviations).

const WORDS: Readonly<Record<string, string>> = nullProto({
  st: "saint",
  ste: "sainte",
  sts: "saints",
  stes: "saintes",
  gal: "general",
  gen: "general",
  gl: "general",
  gnl: "general",
  mal: "marechal",
  ml: "marechal",
  mar: "marechal",
  dr: "docteur",
  doct: "docteur",
  pdt: "president",
  pres: "president",
  presid: "president",
  prof: "professeur",
  lt: "lieutenant",
  lieut: "lieutenant",
  cdt: "commandant",
  cmdt: "commandant",
  cne: "capitaine",
  capit: "capitaine",
  col: "colonel",
  cnl: "colonel",
  adj: "adjudant",
  sgt: "sergent",
  mgr: "monseigneur",
  abb: "abbe",
  mme: "madame",
  mlle: "mademoiselle",
  mr: "monsieur",
  gd: "grand",
  gde: "grande",
  gds: "grands",
  gdes: "grandes",
  pt: "petit",
  pts: "petits",
  ptes: "petites",
  ht: "haut",
  hte: "haute",
  hts: "hauts",
  htes: "hautes",
  vx: "vieux",
  nouv: "nouvelle",
  fr: "freres",
  frs: "freres",
  ing: "ingenieur",
  jt: "jean",
  // A street type inside a name ("Rue du fbg Saint-Honoré", as people abbreviate it): the first word is expanded as a
  // type already.
  fbg: "faubourg",
  fbourg: "faubourg",
  fg: "faubourg",
  faub: "faubourg",
  fbrg: "faubourg",
  fb: "faubourg",
});

// Expansions into several words.
const PHRASES: Readonly<Record<string, readonly string[]>> = nullProto({
  nd: ["notre", "dame"],
  jb: ["jean", "baptiste"],
});

/**
 * "prés" is the title Président written short only before a name ("Avenue du Prés. Kennedy"); last, it is meadows
 * ("Chemin des Prés", "Saint-Germain-des-Prés", "Rue du Moulin des Prés"). Read as the title there, a name of meadows
 * was a person's, and "rue du Moulin" was taken for Rue du Moulin des Prés with the person left out
 * (match/left_out_words.ts). By position, not by the article before it, so that a key read again gives the same key.
 */
function isPresident(tokens: readonly string[], i: number): boolean {
  return i < tokens.length - 1;
}

/** Expands every word of a token list, multi-word expansions included. */
export function expandAbbreviations(tokens: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const word = t === "pres" && !isPresident(tokens, i) ? undefined : WORDS[t];
    // "N.-D. des Champs", "N D des Champs": Notre-Dame in two initials.
    if (t === "n" && tokens[i + 1] === "d" && i + 2 < tokens.length) {
      out.push(...PHRASES.nd!);
      i++;
    } else if (word !== undefined) out.push(word);
    else if (t === "nd" || t === "jb") out.push(...PHRASES[t]!);
    else out.push(t);
  }
  return out;
}

// Lookup tables keyed by user words: no prototype, so that "constructor" is no abbreviation of anything.
function nullProto<T>(entries: Record<string, T>): Record<string, T> {
  return Object.assign(Object.create(null) as Record<string, T>, entries);
}
