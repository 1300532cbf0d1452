import assert from "node:assert/strict";
import { test } from "node:test";
import { getEventListeners } from "node:events";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { deadline, isTimeoutReason, sleep, untilAborted } from "../../src/async/deadline.ts";

// A real collection from inside the test, without --expose-gc on the command line.
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

function aborted(signal: AbortSignal): Promise<unknown> {
  if (signal.aborted) return Promise.resolve(signal.reason);
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(signal.reason), { once: true }));
}

test("deadline() aborts with a TimeoutError after its time", async () => {
  const began = performance.now();
  const limit = deadline(30, { what: "read the banner" });
  const reason = await aborted(limit.signal);
  assert.ok(performance.now() - began >= 25);
  assert.ok(isTimeoutReason(reason));
  assert.match(String((reason as Error).message), /Cannot read the banner: timed out after 30 ms/);
});

test("deadline() still fires when garbage collections run while it waits (nodejs/node#57736)", async () => {
  // Only the listener is kept: nothing of ours references the deadline, as in a probe waiting on a socket.
  let fired = 0;
  for (let i = 0; i < 10; i++) deadline(20 + i).signal.addEventListener("abort", () => fired++);
  for (let i = 0; i < 5; i++) {
    gc();
    await sleep(10);
  }
  await sleep(30);
  assert.equal(fired, 10);
});

test("deadline() ends with its parent's reason when the parent aborts first", async () => {
  const caller = new AbortController();
  const limit = deadline(10_000, { parents: [caller.signal] });
  caller.abort(new Error("client went away"));
  assert.equal(((await aborted(limit.signal)) as Error).message, "client went away");
  limit.dispose();
});

test("deadline() is aborted at once when a parent already is", () => {
  const limit = deadline(10_000, { parents: [AbortSignal.abort("gone")] });
  assert.equal(limit.signal.aborted, true);
  assert.equal(limit.signal.reason, "gone");
});

test("dispose() clears the timer and the parent's listener: the deadline never fires", async () => {
  const caller = new AbortController();
  const limit = deadline(20, { parents: [caller.signal] });
  limit.dispose();
  caller.abort();
  await sleep(40);
  assert.equal(limit.signal.aborted, false);
});

test("deadlines on one parent share a single listener on it: no MaxListenersExceededWarning, however many wait", async () => {
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);
  process.on("warning", onWarning);
  try {
    const shared = new AbortController();
    const limits = Array.from({ length: 50 }, (_, i) =>
      deadline(10_000, { parents: [shared.signal], what: `wait ${i}` }),
    );
    assert.equal(getEventListeners(shared.signal, "abort").length, 1);
    // Disposing some leaves the others listening; disposing the last removes the listener.
    for (const limit of limits.slice(0, 49)) limit.dispose();
    assert.equal(getEventListeners(shared.signal, "abort").length, 1);
    limits[49]!.dispose();
    assert.equal(getEventListeners(shared.signal, "abort").length, 0);
    // And the parent's abort still ends every deadline still waiting, with the parent's reason.
    const again = Array.from({ length: 20 }, () => deadline(10_000, { parents: [shared.signal] }));
    again[3]!.dispose();
    shared.abort(new Error("stopping"));
    for (const [i, limit] of again.entries()) {
      if (i === 3) assert.equal(limit.signal.aborted, false);
      else assert.equal((limit.signal.reason as Error).message, "stopping");
    }
    assert.equal(getEventListeners(shared.signal, "abort").length, 0);
    await sleep(0); // a warning is emitted on the next tick
    assert.deepEqual(
      warnings.map((w) => w.name),
      [],
    );
  } finally {
    process.off("warning", onWarning);
  }
});

test("untilAborted() settles with the work, or with 'aborted' as soon as the signal aborts", async () => {
  assert.equal(await untilAborted(Promise.resolve(7), new AbortController().signal), 7);
  const never = new Promise<number>(() => {});
  assert.equal(await untilAborted(never, deadline(10).signal), "aborted");
  await assert.rejects(untilAborted(Promise.reject(new Error("boom")), new AbortController().signal), /boom/);
});

test("sleep() resolves after its time and rejects with the signal's reason when aborted", async () => {
  await sleep(5);
  const controller = new AbortController();
  const waiting = sleep(10_000, { signal: controller.signal });
  controller.abort(new Error("stop"));
  await assert.rejects(waiting, /stop/);
});
