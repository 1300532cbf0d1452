// Lower-cased ASCII words: apostrophes and hyphens split ("presqu'ile" → presqu ile, "Saint-Martin" → saint martin).
import { foldAccents } from "./fold_accents.ts";

/** "Rue de l'Église" → ["rue", "de", "l", "eglise"]. */
export function tokenize(text: string): string[] {
  const words = foldAccents(text)
    .toLowerCase()
    .split(/[^a-z0-9]+/);
  return words.filter((w) => w !== "");
}
