// The regions of France, as people add them after the city ("Paris, Île-de-France", "Lyon ARA"): a region names no
// commune and no street, like the country after it. Their names and their short forms in common use.
import { foldAccents } from "../normalize/fold_accents.ts";

/** Folded names (lower case, ASCII, words apart), as a pattern's alternatives. */
export const REGIONS =
  "ile de france|idf|provence alpes cote d azur|paca|auvergne rhone alpes|ara|bourgogne franche comte|bfc|bretagne|centre val de loire|cvl|corse|grand est|hauts de france|hdf|normandie|nouvelle aquitaine|occitanie|pays de la loire|pdl";
const REGION = new RegExp(`^(?:${REGIONS})$`);
/** The last words of those names: most texts end with none, and are told apart before anything is joined. */
const LAST_WORDS: ReadonlySet<string> = new Set(REGIONS.split("|").map((name) => name.split(" ").at(-1)!));
/** Most written words of a region's name: "Provence-Alpes-Côte d'Azur", "Centre Val de Loire". */
const MAX_REGION_WORDS = 5;

/** Lower case, ASCII, words apart: "Île-de-France" → "ile de france". */
export function foldPlaceName(text: string): string {
  return foldAccents(text)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ")
    .trim();
}

/** Whether the text is a region's name and nothing else. */
export function isRegionName(text: string): boolean {
  return REGION.test(foldPlaceName(text));
}

/** The text before a region that ends it ("rue de Rivoli Paris Île-de-France" → "rue de Rivoli Paris"); null when
 *  no region ends it, or nothing stands before one. */
export function beforeRegion(text: string): string | null {
  const words = text.trim().split(/\s+/);
  if (!LAST_WORDS.has(foldPlaceName(words.at(-1)!).split(" ").at(-1)!)) return null;
  for (let n = Math.min(MAX_REGION_WORDS, words.length - 1); n >= 1; n--) {
    if (isRegionName(words.slice(-n).join(" "))) return words.slice(0, -n).join(" ");
  }
  return null;
}
