// Street types: every spelling seen in input → the full word BAN writes (docs/address_rules.md §2: addok-france type
// regexes, addok-fr synonyms, BAN first-word table, libpostal street_types). The type is what lets the parser decide
// that the token before it is a house number, and what the matcher compares apart from the street's name.
import { withinOneEdit } from "../../text/edit_distance.ts";
import { foldAccents } from "./fold_accents.ts";

// Full type (match-key form) → abbreviations. Ambiguous short forms are left out on purpose: "ter" (suffix TER, not
// terrasse), "cr" (cour or chemin rural), "gal" (galerie or général: the title wins, see expand_abbrev.ts).
const TABLE: Readonly<Record<string, readonly string[]>> = {
  allee: ["all", "al", "alle", "alee", "allees"],
  avenue: ["av", "ave", "aven", "avn", "avnu", "avnue", "avenu", "avenues"],
  boulevard: ["bd", "bld", "blvd", "bvd", "bou", "boul", "bould", "boulv", "bde", "bl", "bvld"],
  // "ruee", "reu": the two slips of "rue" seen in typed lines; too short for guessStreetType().
  rue: ["r", "ru", "rues", "ruee", "reu"],
  chemin: ["ch", "che", "chem", "chm", "chemins"],
  impasse: ["imp", "impas", "imps"],
  place: ["pl", "pla", "plac", "places"],
  route: ["rte", "rt", "rou"],
  square: ["sq", "squ", "sqr"],
  quai: ["q", "qu", "qua", "quais"],
  faubourg: ["fg", "fbg", "fb", "fbourg", "faub", "fbrg"],
  passage: ["pas", "pass", "pge", "psge", "passages"],
  carrefour: ["car", "carr", "caref", "carf"],
  rondpoint: ["rpt", "rdpt", "rdp", "rdpoint", "rondpoint", "rd pt"],
  cours: ["crs"],
  cour: [],
  chaussee: ["cha", "chs", "chse", "chss", "chee", "chau"],
  lotissement: ["lot", "lotis", "lotiss"],
  residence: ["res", "resid", "resi", "residences"],
  hameau: ["ham", "hame", "hmeau"],
  promenade: ["prom", "prm", "promenades"],
  traverse: ["trav", "tra"],
  esplanade: ["espl", "esp"],
  montee: ["mte", "mtee"],
  terrasse: ["tsse", "terr", "terrasses"],
  ruelle: ["rle", "ruel", "rul", "rlle"],
  villa: ["vla", "vlla", "vil", "villas"],
  parvis: ["parv", "pvr", "prv", "prvs"],
  placette: ["ptte", "plte"],
  sente: [],
  sentier: ["sent", "sen", "snt", "str", "sentiers"],
  domaine: ["dom", "dmn", "domai"],
  jardin: ["jard", "jdn", "jardins"],
  jetee: ["jte", "jtee"],
  passerelle: ["plle", "passer"],
  quartier: ["qrt", "quar", "quart"],
  cite: ["cit", "cites"],
  galerie: ["gale", "gall", "galeries"],
  port: [],
  pont: [],
  porte: [],
  voie: [],
  parc: ["prc"],
  mail: [],
  clos: [],
  ilot: [],
  berge: [],
  digue: [],
  gare: [],
  levee: [],
  rampe: [],
  tunnel: [],
  viaduc: [],
  rocade: [],
  autoroute: ["aut", "auto"],
  sentiers: [],
  lieudit: ["ld", "lieu dit", "lieux dits"],
  zone: [],
  zac: [],
  za: [],
  zi: [],
  centre: ["ctre"],
  enclos: [],
  hall: [],
  cheminement: ["chemt"],
  descente: ["desc"],
  pointe: [],
  plateau: ["plt"],
  bourg: ["brg"],
  cote: [],
  coteau: [],
  corniche: ["corn"],
  escalier: ["esc"],
  sortie: [],
  rang: [],
  venelle: ["ven"],
};

const EXPAND = new Map<string, string>();
for (const [full, variants] of Object.entries(TABLE)) {
  EXPAND.set(full, full);
  for (const v of variants) if (!v.includes(" ")) EXPAND.set(v, full);
}
// Plural and accented spellings of the full words are folded by tokenize(); these multi-word types glue first.
const MULTI: ReadonlyArray<readonly [RegExp, string]> = [
  [/\b(?:rond point|rd pt|rond pt)\b/g, "rondpoint"],
  [/\blieux? dits?\b/g, "lieudit"],
];

/** The match-key type of "Lieu-dit", "ld", "lieudit": a word that introduces a name, never part of BAN's. */
export const LIEU_DIT = "lieudit";

/** Types that may introduce a name BAN writes with no type at all: "26 hameau Le Village" is BAN's "Le Village"
 *  (BAN lieux-dits have no street type). */
export const NAME_INTRODUCERS: ReadonlySet<string> = new Set([LIEU_DIT, "hameau"]);

/** The full type for a word in type position ("bd" → "boulevard"), or undefined when it is no type. */
export function expandStreetType(word: string): string | undefined {
  return EXPAND.get(word);
}

/** True when the word (any case, accents allowed) is a street type or one of its abbreviations. */
export function isStreetType(word: string): boolean {
  return EXPAND.has(foldAccents(word).toLowerCase());
}

/** Joins the multi-word types of a match key ("rond point" → "rondpoint") before tokens are classified. */
export function glueMultiWordTypes(text: string): string {
  let out = text;
  for (const [re, to] of MULTI) out = out.replace(re, to);
  return out;
}

/** Every spelling, for the regexes of the parser (longest first so that "boulevard" wins over "bd"). */
export const STREET_TYPE_WORDS: readonly string[] = [...EXPAND.keys()].sort((a, b) => b.length - a.length);

const FULL_TYPES = [...new Set(EXPAND.values())].filter((t) => t.length >= 4);

/** Short types that a three-letter slip may stand for ("tue", "eue" for rue; "qai" for quai). */
const SHORT_GUESSES = ["rue", ...FULL_TYPES];

/**
 * The full type one slip away from a word of 4+ letters that is no type ("aveue" → "avenue"), or null. A word of three
 * letters only before an article (`beforeArticle`: "tue de Rivoli", "qai de la Tournelle"), where a type is what
 * stands; alone, three letters one slip from "rue" are as likely a name.
 */
export function guessStreetType(word: string, options: { beforeArticle?: boolean } = {}): string | null {
  if (EXPAND.has(word) || word.length < (options.beforeArticle ? 3 : 4)) return null;
  let found: string | null = null;
  for (const t of word.length === 3 ? SHORT_GUESSES : FULL_TYPES) {
    if (Math.abs(t.length - word.length) > 1) continue;
    if (withinOneEdit(word, t)) {
      if (found !== null && found !== t) return null;
      found = t;
    }
  }
  return found;
}
