import assert from "node:assert/strict";
import { test } from "node:test";
import { Slots } from "../../src/async/slots.ts";

/** A task that ends when told to, and says when it started. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

test("Slots runs at most `size` tasks at once, the others in arrival order as slots free up", async () => {
  const slots = new Slots(2);
  const gates = [gate(), gate(), gate(), gate()];
  const started: number[] = [];
  const runs = gates.map((g, k) =>
    slots.run(async () => {
      started.push(k);
      await g.opened;
      return k;
    }),
  );
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(started, [0, 1]);
  gates[1]!.open();
  await runs[1];
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(started, [0, 1, 2]);
  for (const g of gates) g.open();
  assert.deepEqual(await Promise.all(runs), [0, 1, 2, 3]);
  assert.deepEqual(started, [0, 1, 2, 3]);
});

test("Slots: a wait aborted leaves the queue with the signal's reason; a failed task frees its slot", async () => {
  const slots = new Slots(1);
  const held = gate();
  const first = slots.run(async () => {
    await held.opened;
    throw new Error("the task failed");
  });
  const waiting = new AbortController();
  const aborted = slots.run(async () => "never", { signal: waiting.signal });
  const next = slots.run(async () => "next");
  waiting.abort(new Error("the caller left"));
  await assert.rejects(aborted, /the caller left/);
  held.open();
  await assert.rejects(first, /the task failed/);
  assert.equal(await next, "next");
  // An already aborted signal is refused before anything waits.
  await assert.rejects(
    slots.run(async () => 1, { signal: AbortSignal.abort(new Error("gone")) }),
    /gone/,
  );
  assert.equal(await slots.run(async () => "free"), "free");
});

test("Slots refuses a size below one", () => {
  assert.throws(() => new Slots(0), /size must be >= 1/);
});
