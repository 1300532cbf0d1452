import assert from "node:assert/strict";
import { test } from "node:test";
import { answerSlice, joinSlices } from "../../src/address/chunk_answers.ts";
import { answerOfStored, type StoredAnswer } from "../../src/address/stored_answer.ts";
import type { AddressInput, AddressVerification } from "../../src/address/types.ts";

/** Stands in for the matcher: deliverable when the line names a postcode; counts its calls. */
function matcher() {
  const calls: string[] = [];
  const match = (input: AddressInput): AddressVerification => {
    calls.push(input.line!);
    return /\d{5}/.test(input.line!)
      ? { verdict: "deliverable", reasons: [], normalized: null, duration_ms: 7 }
      : { verdict: "unknown", reasons: ["street_not_found"], normalized: null, duration_ms: 7 };
  };
  return { calls, match };
}

// A chunk of a job whose first row is row 11: rows 11-15, row 13 repeats row 11, row 15 repeats row 12, row 14 repeats
// row 3 (of an earlier chunk).
const lines = ["1 rue A 75001 Paris", "nowhere", "1 rue A 75001 paris", "2 rue B 75002 Paris", "Nowhere"];
const chunk = {
  inputs: JSON.stringify(lines.map((line) => ({ line }))),
  dupOf: JSON.stringify([null, null, 11, 3, 12]),
  firstRow: 11,
};

test("answerSlice answers the slice's rows as stored, a repeat within the slice from its first row's answer", () => {
  const { calls, match } = matcher();
  const whole = answerSlice({ ...chunk, from: 0, to: 5 }, match);
  // Rows 13 and 15 are not matched again; row 14 repeats a row of another chunk, matched again.
  assert.deepEqual(calls, [lines[0], lines[1], lines[3]]);
  const answers = (JSON.parse(`[${whole.answers}]`) as StoredAnswer[]).map(answerOfStored);
  assert.deepEqual(
    answers.map((a) => a.verdict),
    ["deliverable", "unknown", "deliverable", "deliverable", "unknown"],
  );
  // Bulk answers carry no time of their own.
  assert.ok(answers.every((a) => a.duration_ms === 0));
  assert.deepEqual(answers[1], { verdict: "unknown", reasons: ["street_not_found"], normalized: null, duration_ms: 0 });
  assert.deepEqual(whole.summary, { deliverable: 3, unknown: 2 });
});

test("joinSlices puts slices back in row order as the chunk's JSON array; an empty slice adds nothing", () => {
  const { calls, match } = matcher();
  const slices = [
    answerSlice({ ...chunk, from: 0, to: 2 }, match),
    answerSlice({ ...chunk, from: 2, to: 2 }, match),
    answerSlice({ ...chunk, from: 2, to: 5 }, match),
  ];
  // Rows 13 and 15 repeat rows of another slice: matched again, to the same answer.
  assert.equal(calls.length, 5);
  const joined = joinSlices(slices);
  const whole = answerSlice({ ...chunk, from: 0, to: 5 }, matcher().match);
  assert.equal(joined.results, `[${whole.answers}]`);
  assert.deepEqual(joined.summary, whole.summary);
  assert.deepEqual(joinSlices([]), { results: "[]", summary: {} });
});

test("answerSlice refuses rows outside the chunk", () => {
  const { match } = matcher();
  assert.throws(() => answerSlice({ ...chunk, from: 3, to: 6 }, match), /rows 3-6 of a chunk of 5/);
  assert.throws(() => answerSlice({ ...chunk, from: 2, to: 1 }, match), /rows 2-1/);
});
