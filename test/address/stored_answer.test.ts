// How a bulk address job stores each row's answer (src/address/stored_answer.ts): as an array of values when the
// answer has the usual members in the usual order, else as its object; either reads back as the answer itself, with
// duration_ms 0, member for member and in the same order (a job's JSON read and its CSV are made from what is read).
import assert from "node:assert/strict";
import { test } from "node:test";
import { answerOfStored, type StoredAnswer, storedAnswerText } from "../../src/address/stored_answer.ts";
import type { AddressVerification, NormalizedAddress } from "../../src/address/types.ts";

const rivoli: NormalizedAddress = {
  house_number: "12",
  house_number_suffix: null,
  street: "Rue de Rivoli",
  postcode: "75004",
  city: "Paris",
  country: "FR",
  line: "12 Rue de Rivoli, 75004 Paris",
  latitude: 48.855602,
  longitude: 2.35995,
  insee_code: "75104",
  ban_id: "75104_8249_00012",
  postal_line_4: "12 RUE DE RIVOLI",
  postal_line_6: "75004 PARIS",
};

/** What a job's read makes of the stored text: JSON.parse, then answerOfStored(). */
const readBack = (text: string) => answerOfStored(JSON.parse(text) as StoredAnswer);
/** The answer as a job's JSON read writes it: member order included. */
const written = (answer: AddressVerification) => JSON.stringify({ ...answer, duration_ms: 0 });

test("a matched answer is stored as its values, about half the object's size, and reads back the same", () => {
  const answer: AddressVerification = {
    verdict: "incomplete",
    reasons: ["missing_postcode", "street_corrected"],
    normalized: rivoli,
    duration_ms: 3,
  };
  const text = storedAnswerText(answer);
  assert.ok(text.startsWith('["incomplete",["missing_postcode","street_corrected"],"12",null,"Rue de Rivoli"'), text);
  assert.ok(text.length < written(answer).length * 0.55, `${text.length} of ${written(answer).length}`);
  assert.equal(JSON.stringify(readBack(text)), written(answer));
});

test("an answer with nothing normalized is stored as its verdict and reasons", () => {
  const answer: AddressVerification = {
    verdict: "nonexistent",
    reasons: ["street_not_found"],
    normalized: null,
    duration_ms: 1,
  };
  assert.equal(storedAnswerText(answer), '["nonexistent",["street_not_found"]]');
  assert.equal(JSON.stringify(readBack(storedAnswerText(answer))), written(answer));
});

test("an answer with other members, fewer, or another order is stored as its object, and reads back the same", () => {
  const { postcode: _, ...withoutPostcode } = rivoli;
  const { street, ...rest } = rivoli;
  const streetFirst = { street, ...rest };
  const others: AddressVerification[] = [
    // A street of several postcodes, named without a number: its candidates are an extra member.
    {
      verdict: "incomplete",
      reasons: ["missing_house_number"],
      normalized: { ...rivoli, house_number: null, postcode: "", postcode_candidates: ["75001", "75004"] },
      duration_ms: 2,
    },
    { verdict: "deliverable", reasons: [], normalized: withoutPostcode as NormalizedAddress, duration_ms: 2 },
    { verdict: "deliverable", reasons: [], normalized: { ...rivoli, ban_id: undefined }, duration_ms: 2 },
    { verdict: "deliverable", reasons: [], normalized: streetFirst, duration_ms: 2 },
    { reasons: [], verdict: "deliverable", normalized: rivoli, duration_ms: 2 },
  ];
  for (const answer of others) {
    const text = storedAnswerText(answer);
    assert.ok(text.startsWith("{"), text);
    assert.equal(JSON.stringify(readBack(text)), written(answer));
  }
});

test("answers stored as objects (test keys' rows, jobs written before the arrays) read as they are", () => {
  const stored = { verdict: "deliverable", reasons: [], normalized: rivoli, duration_ms: 0 } as const;
  assert.deepEqual(answerOfStored(JSON.parse(JSON.stringify(stored)) as StoredAnswer), stored);
});
