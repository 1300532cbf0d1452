// The rows of a bulk address job: which rows are the same address (verified once, answered for each), and the
// answer a row gets when its verification kept failing.
import type { ChunkAnswers } from "../address/chunk_answers.ts";
import type { AddressInput, AddressVerification } from "../address/types.ts";

/** The fields of an input that say where it is, in one order: two rows are the same address when these agree. */
const KEY_FIELDS = ["line", "house_number", "street", "postcode", "city", "country"] as const;

/**
 * The key two rows share when they are the same address: each field trimmed, lower-cased and with its spaces
 * collapsed, so that " 10 Rue de Rivoli" and "10 rue de  rivoli" are verified once.
 */
export function addressKey(input: AddressInput): string {
  // Each field as a JSON string (quotes and commas escaped, so that no two inputs share a key by accident), an
  // absent one as "": no array to build and write again for every row of an upload.
  let key = "";
  for (const field of KEY_FIELDS) {
    const value = input[field];
    key += typeof value !== "string" ? '"",' : `${JSON.stringify(value.trim().replace(/\s+/g, " ").toLowerCase())},`;
  }
  return key;
}

/**
 * For each row, the 1-based position of the first equal row before it, or null when it is the first: `[a, b, A]` ->
 * `[null, null, 1]`.
 */
export function duplicateOf(inputs: readonly AddressInput[]): Array<number | null> {
  const first = new Map<string, number>();
  return inputs.map((input, i) => {
    const key = addressKey(input);
    const seen = first.get(key);
    if (seen !== undefined) return seen;
    first.set(key, i + 1);
    return null;
  });
}

/** Rows a job verifies (and charges): the distinct ones. */
export function distinctRows(inputs: readonly AddressInput[]): number {
  return new Set(inputs.map(addressKey)).size;
}

/**
 * The answer of a row whose verification kept failing (it took its worker thread down, repeatedly): unknown, with no
 * reason, since nothing about the address itself was found.
 */
export function unverifiedAnswer(): AddressVerification {
  return { verdict: "unknown", reasons: [], normalized: null, duration_ms: 0 };
}

/** A chunk of `size` such rows, as the database stores its answers. */
export function unverifiedAnswers(size: number): ChunkAnswers {
  const answer = JSON.stringify(unverifiedAnswer());
  return { results: `[${new Array(size).fill(answer).join(",")}]`, summary: { unknown: size } };
}
