// How a bulk address job stores each row's answer: as an array of the answer's values in a set order, not as the
// answer's object. Every byte of a stored answer is paid for by every thread that moves it: the matcher thread that
// writes it, the main thread that hands it to the database, the database thread that writes it and its WAL to
// STATE_DIR, and the download that reads it back. An object repeats its 13 member names in every row (384 bytes for
// a matched Paris address, about half of it names); the array holds the values only.
//
// Lossless: an answer is stored as an array only when its members are exactly the usual ones, in the usual order;
// any other answer (a street answered with its postcodes, `postcode_candidates`, or anything a later version adds)
// is stored as its object, and a reader takes either. A bulk answer's duration_ms is always 0 (it carries no time of
// its own), so it is not stored.
import type { AddressVerification, NormalizedAddress } from "./types.ts";

/** The members of a normalized address stored by position, in the order the matcher writes them. */
const NORMALIZED_MEMBERS = [
  "house_number",
  "house_number_suffix",
  "street",
  "postcode",
  "city",
  "country",
  "line",
  "latitude",
  "longitude",
  "insee_code",
  "ban_id",
  "postal_line_4",
  "postal_line_6",
] as const satisfies ReadonlyArray<keyof NormalizedAddress>;

/** Where each normalized member is in a stored array (after the verdict and the reasons), for writers that read the
 *  values without making the answer's object again (the CSV download). */
export const STORED_AT = Object.fromEntries(NORMALIZED_MEMBERS.map((member, k) => [member, k + 2])) as Readonly<
  Record<(typeof NORMALIZED_MEMBERS)[number], number>
>;

/** A stored answer: `[verdict, reasons]` when nothing was normalized, else those and the normalized values. */
export type StoredAnswer = unknown[] | AddressVerification;

/** The JSON text an answer is stored as, its duration_ms taken as 0. */
export function storedAnswerText(answer: AddressVerification): string {
  return JSON.stringify(hasUsualMembers(answer) ? answerValues(answer) : { ...answer, duration_ms: 0 });
}

/**
 * An answer's values in the stored order, an absent member as null: what an answer stored as an array holds, and
 * what the CSV download writes of an answer stored as its object.
 */
export function answerValues(answer: AddressVerification): unknown[] {
  const n = answer.normalized;
  if (n === null || n === undefined) return [answer.verdict, answer.reasons];
  const values: unknown[] = [answer.verdict, answer.reasons];
  for (const member of NORMALIZED_MEMBERS) values.push(n[member] ?? null);
  return values;
}

/** The answer a stored one stands for (as POST /v1/address answers it, duration_ms 0). */
export function answerOfStored(stored: StoredAnswer): AddressVerification {
  if (!Array.isArray(stored)) return stored;
  const [verdict, reasons] = stored as [AddressVerification["verdict"], AddressVerification["reasons"]];
  if (stored.length === 2) return { verdict, reasons, normalized: null, duration_ms: 0 };
  const normalized: Record<string, unknown> = {};
  for (let k = 0; k < NORMALIZED_MEMBERS.length; k++) normalized[NORMALIZED_MEMBERS[k]!] = stored[k + 2];
  return { verdict, reasons, normalized: normalized as unknown as NormalizedAddress, duration_ms: 0 };
}

const ANSWER_MEMBERS = ["verdict", "reasons", "normalized", "duration_ms"];

/** True when the answer's members, and its normalized address's, are the usual ones in the usual order. */
function hasUsualMembers(answer: AddressVerification): boolean {
  if (!sameKeys(Object.keys(answer), ANSWER_MEMBERS)) return false;
  const n = answer.normalized;
  if (n === null) return true;
  if (typeof n !== "object" || !sameKeys(Object.keys(n), NORMALIZED_MEMBERS)) return false;
  // JSON keeps no undefined member, and an array would write it as null: such an answer stays an object.
  for (const member of NORMALIZED_MEMBERS) if (n[member] === undefined) return false;
  return true;
}

function sameKeys(keys: readonly string[], expected: readonly string[]): boolean {
  if (keys.length !== expected.length) return false;
  for (let k = 0; k < keys.length; k++) if (keys[k] !== expected[k]) return false;
  return true;
}
