// Streets named after two people or two things, "Place du Trocadéro et du Onze Novembre", "Quai Panhard et Levassor",
// "Rue Alice Domon et Léonie Duquet": people write one half ("place du Trocadéro", "rue Léonie Duquet"), which no
// edit budget reaches, and the fuzzy search then found another street of that name under another type ("1 place du
// Trocadéro" was Square du Trocadéro). The halves are indexed as alternative names of the street (exact matches,
// like BAN's aliases). The given name of a shared family name ("Place Victor et Hélène Basch" written "place Victor
// Basch") is the search that leaves words out (match/left_out_words.ts). So are the two names of a street written
// with a spaced dash, "Place de Fontenoy - Unesco", "Place de l'Hôtel de Ville - Esplanade de la Libération": "7 place
// de Fontenoy" (UNESCO's address) was street_not_found.
import { streetKey } from "../normalize/match_key.ts";
import { isTitleOrGivenName } from "../normalize/person_names.ts";
import { STOP_WORDS } from "../normalize/stop_words.ts";
import { tokenize } from "../normalize/tokenize.ts";

const AND = /\s+et\s+/i;
/** A dash between spaces (hyphen, en or em dash): two names of one street. A hyphen inside a name has no spaces. */
const SPACED_DASH = /\s+[-\u2013\u2014]\s+/;

/**
 * The halves of a name joined by "et", each under the street's type. The second when it has two words or more ("Rue
 * Léonie Duquet", "Place du Onze Novembre"; "Quai Levassor" alone would be too thin). The first when it has two words
 * or more, an article ("Place du Trocadéro"), or one word that is not a given name beside a one-word second half
 * ("Quai Panhard", "Place Rhin"): one bare word before a full name is a given name ("Place Mireille et Jacques
 * Renouvin"), and "Rue Charles et Robert" is not Rue Charles. Empty for other names. The halves are names to read
 * as match keys (streetKey), the second under the type's key ("rue Léonie Duquet").
 */
export function compoundNameParts(name: string): string[] {
  const dashed = SPACED_DASH.test(name);
  const split = halvesOf(name, dashed ? SPACED_DASH : AND);
  if (split === null) return [];
  if (dashed) return dashedNameParts(split);
  const { first, second, type } = split;
  const parts: string[] = [];
  const firstWords = streetKey(first).nameTokens;
  const withArticle = tokenize(first).some((w) => STOP_WORDS.has(w));
  // Under the type's match-key form: the halves are read as match keys only (builder.ts), and the written form of a
  // type may be hyphenated ("Rond-point" is the type "rondpoint").
  const secondPart = `${type} ${second}`;
  const secondWords = streetKey(secondPart).nameTokens.length;
  const oneWord =
    firstWords.length === 1 && (withArticle || (secondWords === 1 && !isTitleOrGivenName(firstWords[0]!)));
  if (firstWords.length > 1 || oneWord) parts.push(first);
  if (secondWords > 1) parts.push(secondPart);
  return parts;
}

/**
 * The two names of a street written "first - second": the first as written ("Place de Fontenoy"); the second as
 * written when it begins with a street type of its own ("Esplanade de la Libération"), else under the street's type
 * when it has two words or more ("Pont Cardinal Lustiger"; "Place Unesco" alone would be too thin, as for "et").
 */
function dashedNameParts({ first, second, type }: Halves): string[] {
  const parts: string[] = [];
  if (streetKey(first).nameTokens.length > 0) parts.push(first);
  const ownType = streetKey(second).type !== null;
  const secondPart = ownType ? second : `${type} ${second}`;
  if (ownType || streetKey(secondPart).nameTokens.length > 1) parts.push(secondPart);
  return parts;
}

interface Halves {
  first: string;
  second: string;
  /** The street's type in match-key form. */
  type: string;
}

/** The two halves of a name around one separator, and its type; null for a name without both or without a type. */
function halvesOf(name: string, separator: RegExp): Halves | null {
  const halves = name.split(separator);
  if (halves.length !== 2) return null;
  const type = streetKey(name).type;
  if (type === null) return null;
  return { first: halves[0]!, second: halves[1]!, type };
}
