import assert from "node:assert/strict";
import { test } from "node:test";
import { coolOffFor, createMxHealth } from "../../../src/email/smtp/mx_health.ts";
import type { ProbeOutcome } from "../../../src/email/smtp/prober.ts";

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

test("createMxHealth(): refusals at the greeting start a cool-off, and a skipped probe answers the refusal", () => {
  const c = clock();
  const health = createMxHealth({ coolOffMs: 60_000, now: c.now });
  const refusal: ProbeOutcome = {
    kind: "reply",
    category: "greylisted",
    reply: { code: 421, enhanced: "4.7.0", text: "4.7.0 Too many connections, try again later" },
    host: "mx.busy",
  };
  health.refused("mx.busy", refusal);
  health.refused("mx.busy", refusal);
  assert.equal(health.failing("mx.busy"), false, "two refusals are not enough");
  health.refused("mx.busy", refusal);
  assert.equal(health.failing("mx.busy"), true);
  assert.deepEqual(health.skipped("mx.busy"), refusal, "the host's own words, not a time-out it never had");
  c.advance(60_000);
  assert.equal(health.failing("mx.busy"), false, "the cool-off is over");

  const refused: ProbeOutcome = { kind: "unavailable", why: "SMTP_CONNECT" };
  for (let i = 0; i < 3; i++) health.refused("mx.closed", refused);
  assert.deepEqual(health.skipped("mx.closed"), refused);
  for (let i = 0; i < 3; i++) health.timedOut("mx.tarpit");
  assert.deepEqual(health.skipped("mx.tarpit"), { kind: "timeout" });

  health.refused("mx.mixed", refused);
  health.answered("mx.mixed");
  health.refused("mx.mixed", refused);
  health.timedOut("mx.mixed");
  assert.equal(health.failing("mx.mixed"), false, "an answer between refusals clears the count");
  health.refused("mx.mixed", refused);
  assert.equal(health.failing("mx.mixed"), true, "time-outs and refusals in a row count together");
});

test("coolOffFor(): six probe budgets", () => {
  assert.equal(coolOffFor(10_000), 60_000);
});

test("createMxHealth() rejects options that make no sense", () => {
  assert.throws(() => createMxHealth({ coolOffMs: -1 }), RangeError);
  assert.throws(() => createMxHealth({ coolOffMs: 1, tripAfter: 0 }), RangeError);
});
