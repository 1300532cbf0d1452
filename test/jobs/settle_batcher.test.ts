// The group commit of bulk item outcomes, against a fake store that records each settle() call.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ClaimedItem, Settlement } from "../../src/jobs/job_store.ts";
import { createSettleBatcher } from "../../src/jobs/settle_batcher.ts";
import { answer } from "./fake_verifier.ts";

function item(position: number): ClaimedItem {
  return {
    owner: "w1",
    jobId: "00000000-0000-4000-8000-000000000001",
    position,
    email: `u${position}@x.test`,
    attempts: 1,
    greylistTries: 0,
    greylistedAt: null,
    timeoutTries: 0,
  };
}

/** A store whose settle() takes `ms`, writes every odd position and records the positions of each call. */
function fakeStore(options: { ms?: number; fails?: boolean } = {}) {
  const { ms = 5, fails = false } = options;
  const calls: number[][] = [];
  return {
    calls,
    async settle(settlements: readonly Settlement[]): Promise<boolean[]> {
      calls.push(settlements.map((s) => s.item.position));
      await new Promise((done) => setTimeout(done, ms));
      if (fails) throw new Error("Cannot settle: the database is gone");
      return settlements.map((s) => s.item.position % 2 === 1);
    },
  };
}

describe("createSettleBatcher()", () => {
  it("settle() sends what arrives together in one call, and what arrives meanwhile in the next", async () => {
    const store = fakeStore();
    const batcher = createSettleBatcher(store);
    const first = [1, 2, 3].map((p) => batcher.settle({ item: item(p), result: answer(`u${p}@x.test`) }));
    await new Promise((done) => setImmediate(done));
    // The first call is in flight: these wait for it, then go together.
    const later = [4, 5].map((p) => batcher.settle({ item: item(p), retry: { delayMs: 10 } }));
    assert.deepEqual(await Promise.all([...first, ...later]), [true, false, true, false, true]);
    assert.deepEqual(store.calls, [
      [1, 2, 3],
      [4, 5],
    ]);
  });

  it("settle() sends at most maxBatch settlements per call", async () => {
    const store = fakeStore();
    const batcher = createSettleBatcher(store, { maxBatch: 2 });
    await Promise.all([1, 2, 3, 4, 5].map((p) => batcher.settle({ item: item(p), retry: { delayMs: 0 } })));
    assert.deepEqual(store.calls, [[1, 2], [3, 4], [5]]);
  });

  it("settle() rejects every settlement of a failed call, and the next call goes on", async () => {
    const failing = fakeStore({ fails: true });
    const batcher = createSettleBatcher(failing);
    const results = await Promise.allSettled(
      [1, 2].map((p) => batcher.settle({ item: item(p), retry: { delayMs: 0 } })),
    );
    assert.deepEqual(
      results.map((r) => r.status),
      ["rejected", "rejected"],
    );
    await assert.rejects(batcher.settle({ item: item(3), retry: { delayMs: 0 } }), /database is gone/);
    assert.equal(failing.calls.length, 2);
  });

  it("rejects a maxBatch that makes no sense with a RangeError", () => {
    assert.throws(() => createSettleBatcher(fakeStore(), { maxBatch: 0 }), RangeError);
  });
});
