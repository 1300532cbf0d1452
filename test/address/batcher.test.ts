import assert from "node:assert/strict";
import { test } from "node:test";
import { Batcher } from "../../src/address/batcher.ts";
import type { AddressInput, AddressVerification } from "../../src/address/types.ts";

const answer = (input: AddressInput): AddressVerification => ({
  verdict: "unknown",
  reasons: [],
  normalized: null,
  duration_ms: Number(input.house_number),
});

test("Batcher sends the calls of one event-loop turn together, in order, in batches of maxBatch", async () => {
  const batches: number[] = [];
  const b = new Batcher(
    async (inputs) => {
      batches.push(inputs.length);
      return inputs.map(answer);
    },
    { maxBatch: 4 },
  );
  const results = await Promise.all(Array.from({ length: 10 }, (_, i) => b.submit({ house_number: String(i) })));
  assert.deepEqual(
    results.map((r) => r.duration_ms),
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  );
  assert.deepEqual(batches, [4, 4, 2]);
  await b.submit({ house_number: "1" });
  assert.deepEqual(batches, [4, 4, 2, 1]);
});

test("Batcher rejects an aborted call at once and does not send it", async () => {
  const sent: string[] = [];
  const b = new Batcher(async (inputs) => {
    sent.push(...inputs.map((i) => i.house_number!));
    return inputs.map(answer);
  });
  assert.throws(() => b.submit({ house_number: "1" }, { signal: AbortSignal.abort() }), { name: "AbortError" });
  const c = new AbortController();
  const aborted = b.submit({ house_number: "2" }, { signal: c.signal });
  const kept = b.submit({ house_number: "3" });
  c.abort();
  await assert.rejects(aborted, { name: "AbortError" });
  assert.equal((await kept).duration_ms, 3);
  assert.deepEqual(sent, ["3"]);
});

test("Batcher passes a failed batch's error to every call of it", async () => {
  const b = new Batcher(async () => {
    throw new Error("pool down");
  });
  const all = await Promise.allSettled([b.submit({}), b.submit({})]);
  assert.deepEqual(
    all.map((r) => r.status),
    ["rejected", "rejected"],
  );
  assert.throws(() => new Batcher(async () => [], { maxBatch: 0 }), RangeError);
});
