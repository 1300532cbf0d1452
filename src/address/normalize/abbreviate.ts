// The other direction of abbreviations: the NF Z 10-011 short form of a street label, for postal line 4 when the
// label exceeds 32 characters ("BOULEVARD DU MARECHAL JEAN MARIE DE LATTRE DE TASSIGNY" → "BD MAL J M DE LATTRE DE
// TASSIGNY"). BAN's reference implementation (@etalab/normadresse) does it; it ships without types, hence require.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const normadresse = require("@etalab/normadresse") as (input: string, maxLength?: number) => string;

/** Upper-case postal form of a street label, abbreviated only when longer than `maxLength` (32 by default). */
export function abbreviateStreet(label: string, options: { maxLength?: number } = {}): string {
  const { maxLength = 32 } = options;
  if (!Number.isInteger(maxLength) || maxLength < 1)
    throw new RangeError(`Cannot abbreviate street: maxLength must be >= 1, got ${maxLength}`);
  return normadresse(label, maxLength);
}
