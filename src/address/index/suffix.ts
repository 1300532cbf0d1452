// House-number suffixes compare in one form: "bis" and "b" are the same indice (BAN writes both, addok#64), as are
// ter/t, quater/q, quinquies/c, sexies/s. Letters stay letters.
import { SUFFIX_FOLD } from "../parse/house_number.ts";

/** "bis" → "b", "B" → "b", "" → "", "a" → "a". */
export function canonicalSuffix(rep: string): string {
  const r = rep.trim().toLowerCase();
  return SUFFIX_FOLD[r] ?? r;
}
