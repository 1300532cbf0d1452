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

test("Batcher shares the calls of one event-loop turn over the free slots, at most maxBatch each, in order", async () => {
  const batches: number[] = [];
  const b = new Batcher(
    async (inputs) => {
      batches.push(inputs.length);
      return inputs.map(answer);
    },
    { maxBatch: 4, maxInFlight: 2 },
  );
  const results = await Promise.all(Array.from({ length: 10 }, (_, i) => b.submit({ house_number: String(i) })));
  assert.deepEqual(
    results.map((r) => r.duration_ms),
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  );
  // Two slots, ten calls: two full batches at once, the last two once a slot is free again.
  assert.deepEqual(batches.slice(0, 2), [4, 4]);
  assert.equal(
    batches.reduce((a, n) => a + n, 0),
    10,
  );
  const sent = batches.length;
  await b.submit({ house_number: "1" });
  assert.deepEqual(batches.slice(sent), [1], "a lone call on an idle batcher leaves alone");
});

test("Batcher keeps at most maxInFlight batches in the pool; the calls that wait leave together", async () => {
  const batches: number[] = [];
  const release: Array<() => void> = [];
  const b = new Batcher(
    (inputs) => {
      batches.push(inputs.length);
      return new Promise((resolve) => release.push(() => resolve(inputs.map(answer))));
    },
    { maxInFlight: 1 },
  );
  const first = b.submit({ house_number: "0" });
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(batches, [1]);
  // Calls over several turns while the only slot is taken: none is sent.
  const waiting: Promise<AddressVerification>[] = [];
  for (let i = 1; i <= 5; i++) {
    waiting.push(b.submit({ house_number: String(i) }));
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.deepEqual(batches, [1]);
  release.shift()!();
  assert.equal((await first).duration_ms, 0);
  // The slot frees once the batch's callbacks have run; the waiting calls leave at the turn after.
  for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(batches, [1, 5], "the five waiting calls leave as one batch");
  release.shift()!();
  assert.deepEqual(
    (await Promise.all(waiting)).map((r) => r.duration_ms),
    [1, 2, 3, 4, 5],
  );
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
  assert.throws(() => new Batcher(async () => [], { maxInFlight: 0 }), RangeError);
});
