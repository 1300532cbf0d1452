// The fuzzy budget of the address matcher in one place: how many edits a name may carry, what each kind of slip
// costs, and how far ahead a fuzzy answer must be (docs/decisions.md, "Fuzzy budget" and "Street search order").
// street_search.ts, search_order.ts and the reference's city correction read these; none of them carries a number
// of its own.
//
// Costs are in half-edits (docs/style.md habit 11, named partial scores): a typo or a phonetic slip costs a whole edit, a
// missing street type half of one, so that a street found without its type still beats one found with a typo.

/** Half-edits per edit of the name: costs are integers and a missing type can cost half an edit. */
export const EDIT_COST = 2;

/** The query names no type ("Rivoli") and the street has one ("Rue de Rivoli"): people drop it all the time, so it
 *  costs half an edit, less than any slip of the name. */
export const MISSING_TYPE_COST = 1;

/** The query names another type, or one the street does not have: a different type more often means a different
 *  street than a dropped word does, so it costs a whole edit, like a slip of the name. */
export const OTHER_TYPE_COST = 2;

/** The type word was itself misspelt and guessed ("Aveue" → avenue): every hit costs that edit. */
export const GUESSED_TYPE_COST = 2;

/** Above the name's own budget, what a hit's type may add: a missing type fits (half an edit), another type does
 *  not, so it spends one edit of the budget ("Villa des Chauvin" is not "Rue Chardin"). */
export const TYPE_ALLOWANCE = 1;

/**
 * How many edits a name may carry and still be recognised, by its length in bytes: "a handful", fewer on short names.
 * Measured on the Paris evaluation set: looser bounds on short names turned invented names into false corrections
 * ("Rue de Boilly" → "Rue Boulay") without catching more real typos.
 */
export const EDITS_BY_LENGTH: ReadonlyArray<{ readonly below: number; readonly edits: number }> = [
  { below: 4, edits: 0 },
  { below: 8, edits: 1 },
  { below: 13, edits: 2 },
  { below: 19, edits: 3 },
  { below: Infinity, edits: 4 },
];

/** How many edits a name of this length may carry (EDITS_BY_LENGTH). */
export function maxEdits(length: number): number {
  let i = 0;
  while (length >= EDITS_BY_LENGTH[i]!.below) i++;
  return EDITS_BY_LENGTH[i]!.edits;
}

/**
 * Budget by evidence (two-letter slips, docs/address_rules.md): a name of STRETCH_MIN_LENGTH letters or more may carry STRETCHED_EDITS
 * edits even where its length allows fewer ("Passage Kracahr" → Kracher, "Boulevard du Tempbl" → Temple), but only in
 * the first tier and only when the winner leads every other name of the scope by STRETCH_LEAD edits, twice the usual
 * margin. Measured on the Paris evaluation set: with the usual one-edit margin the stretched budget turned 8 more of
 * 1000 chimeras ("Rue des Ménier" → "Rue Messier", "Rue du Payen" → "Rue Péan") into false corrections; with a
 * two-edit lead those stay street_not_found, and two-edit typos go from 72% to the figures of docs/decisions.md.
 */
export const STRETCH_MIN_LENGTH = 5;
export const STRETCHED_EDITS = 2;
export const STRETCH_LEAD = 2;

/**
 * Letters left out, typed twice or swapped (slipDistance: a letter replaced by another is not such a slip) are how a
 * hand in a hurry misspells a name it knows: "Rue des Hles" for Halles, "Rue Henn" for Henner, "Rue Chervel" for
 * Chevreul, "Rue de Magnea" for Magenta. A name of SLIP_MIN_LENGTH letters or more may carry STRETCHED_EDITS such
 * slips, in the first tier, when no other name of the scope is within SLIP_LEAD more slips of the same kind (a name
 * that sounds the same, or is as near by the distance, still makes it ambiguous). Names of four letters had no second
 * edit at all, and names of five to seven needed a lead of STRETCH_LEAD edits of any kind, which a short name rarely
 * has over the streets of an arrondissement: these lines were street_not_found. Another letter in place of one
 * ("Rue des Ménier" for Messier, "Rue du Payen" for Péan) is the mark of another name, and keeps STRETCH_LEAD.
 */
export const SLIP_MIN_LENGTH = 4;
export const SLIP_LEAD = 2;

/** The budget of a name with the evidence rule: at least STRETCHED_EDITS from SLIP_MIN_LENGTH letters on (under
 *  STRETCH_MIN_LENGTH, slips of the hand only). */
export function stretchedEdits(length: number): number {
  const base = maxEdits(length);
  return length >= SLIP_MIN_LENGTH ? Math.max(base, STRETCHED_EDITS) : base;
}

/** Past the first tier of the search, the postcode or the city is already wrong: one slip more at most, not a
 *  handful. */
export const LATER_TIER_MAX_EDITS = 1;

/** A fuzzy answer must beat the next different street name by a whole edit (in half-edits); closer than that it
 *  stays ambiguous, unless the house number settles it. */
export const CLEAR_MARGIN = 2;

/** Several edits must be spread like typos, not replace a word ("Général Pilon" is not "Général Niox"): each word
 *  may differ by at most a third of its length… */
export const WORD_EDIT_DIVISOR = 3;

/** …and at least one edit, so that a single slip is always typo-shaped and only several edits need the check. */
export const MIN_WORD_EDITS = 1;

/** A street with the same phonetic key costs one edit, whatever its spelling distance ("Osman" → "Haussmann"). */
export const PHONETIC_EDITS = 1;

/** Phonetic keys of 3 letters or fewer say too little ("Faure" and "Forez" both give "for"): not looked up. */
export const MIN_PHONETIC_KEY = 4;

/** A short word one edit from an article ("tde", "al", "dwes") is a slip tokenisation cannot undo: the name is also
 *  tried without it. Words up to this length are candidates… */
export const STRAY_ARTICLE_MAX_LENGTH = 4;

/** …within this many edits of an article of two letters or more… */
export const STRAY_ARTICLE_EDITS = 1;

/** …and dropping the word costs one edit, as a deletion would: a name found that way is never better than one found
 *  with a single slip. */
export const DROPPED_WORD_COST = 1;

/** Dropping a stray article is tried only on budgets of two edits or more: one for the dropped word, at least one left
 *  for the rest of the name. */
export const DROPPED_WORD_MIN_BUDGET = 2;

/** Edits allowed when correcting a city name, at most, whatever its length: the corrected city decides which
 *  communes the street is searched in, so it is held to fewer edits than a long street name (and a tie between two
 *  equally close names corrects nothing). */
export const CITY_MAX_EDITS = 2;

/** Slips allowed between a city that named no commune and the commune where its street alone was found ("Pairs",
 *  "Paaris" for Paris): the street found by its exact name is the evidence the city lacked (match.ts). */
export const NEAR_CITY_EDITS = 2;
