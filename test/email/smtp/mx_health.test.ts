import assert from "node:assert/strict";
import { test } from "node:test";
import { coolOffFor, createMxHealth } from "../../../src/email/smtp/mx_health.ts";

function clock() {
  let t = 1_000_000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

test("createMxHealth(): a host is failing after three timeouts in a row, for the cool-off", () => {
  const c = clock();
  const health = createMxHealth({ coolOffMs: 60_000, now: c.now });
  health.timedOut("mx.tarpit");
  health.timedOut("mx.tarpit");
  assert.equal(health.failing("mx.tarpit"), false, "two timeouts are not enough");
  health.timedOut("mx.tarpit");
  assert.equal(health.failing("mx.tarpit"), true);
  c.advance(59_999);
  assert.equal(health.failing("mx.tarpit"), true);
  c.advance(1);
  assert.equal(health.failing("mx.tarpit"), false, "the cool-off is over");
  health.timedOut("mx.tarpit");
  assert.equal(health.failing("mx.tarpit"), false, "a fresh chance: it trips again only after three more");
});

test("createMxHealth(): any answer between timeouts clears the count", () => {
  const health = createMxHealth({ coolOffMs: 60_000 });
  health.timedOut("mx.slow");
  health.timedOut("mx.slow");
  health.answered("mx.slow");
  health.timedOut("mx.slow");
  assert.equal(health.failing("mx.slow"), false);
  assert.equal(health.failing("mx.other"), false, "hosts are counted apart");
});

test("coolOffFor(): six probe budgets", () => {
  assert.equal(coolOffFor(10_000), 60_000);
});

test("createMxHealth() rejects options that make no sense", () => {
  assert.throws(() => createMxHealth({ coolOffMs: -1 }), RangeError);
  assert.throws(() => createMxHealth({ coolOffMs: 1, tripAfter: 0 }), RangeError);
});
