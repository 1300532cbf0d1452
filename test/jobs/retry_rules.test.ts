// The bulk retry rules as a table: one row per case, with the rule it shows (src/jobs/retry_rules.ts, docs/contract.md §6).
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  afterAnswer,
  DEFAULT_RETRY_POLICY,
  exhausted,
  failureDelay,
  type ItemHistory,
} from "../../src/jobs/retry_rules.ts";
import type { EmailReason } from "../../src/email/types.ts";

const NOW = Date.parse("2026-11-23T10:00:00Z");
const P = DEFAULT_RETRY_POLICY;
const fresh: ItemHistory = { attempts: 1, greylistTries: 0, greylistedAt: null, timeoutTries: 0 };
const item = (over: Partial<ItemHistory>): ItemHistory => ({ ...fresh, ...over });
const minutesAgo = (m: number) => new Date(NOW - m * 60_000);

const answerCases: Array<[string, ItemHistory, EmailReason[], number | undefined, ReturnType<typeof afterAnswer>]> = [
  ["a deliverable answer is final", fresh, [], undefined, { action: "final" }],
  ["a mailbox_not_found answer is final", fresh, ["mailbox_not_found"], undefined, { action: "final" }],
  [
    "a first greylisting waits the server's delay (120 s)",
    fresh,
    ["greylisted"],
    120_000,
    { action: "retry", delayMs: 120_000, counts: "greylist" },
  ],
  [
    "a greylisting without a delay waits the default minute",
    fresh,
    ["greylisted"],
    undefined,
    { action: "retry", delayMs: 60_000, counts: "greylist" },
  ],
  [
    "a server delay under the minimum is raised to it",
    fresh,
    ["greylisted"],
    5_000,
    { action: "retry", delayMs: 60_000, counts: "greylist" },
  ],
  [
    "the second greylisting doubles the delay",
    item({ attempts: 2, greylistTries: 1, greylistedAt: minutesAgo(2) }),
    ["greylisted"],
    120_000,
    { action: "retry", delayMs: 240_000, counts: "greylist" },
  ],
  [
    "the delay never exceeds five minutes",
    item({ attempts: 2, greylistTries: 1, greylistedAt: minutesAgo(2) }),
    ["greylisted"],
    200_000,
    { action: "retry", delayMs: 300_000, counts: "greylist" },
  ],
  [
    "the third greylisted probe is final (three tries)",
    item({ attempts: 3, greylistTries: 2, greylistedAt: minutesAgo(8) }),
    ["greylisted"],
    60_000,
    { action: "final" },
  ],
  [
    "no retry that would land past 30 minutes from the first greylisting",
    item({ attempts: 2, greylistTries: 1, greylistedAt: minutesAgo(29) }),
    ["greylisted"],
    60_000,
    { action: "final" },
  ],
  [
    "a first probe_timeout is retried once after the time-out delay",
    fresh,
    ["probe_timeout"],
    undefined,
    { action: "retry", delayMs: P.timeout.delayMs, counts: "timeout" },
  ],
  [
    "a second probe_timeout is final",
    item({ attempts: 2, timeoutTries: 1 }),
    ["probe_timeout"],
    undefined,
    { action: "final" },
  ],
  [
    "probe_unavailable is not retried (nothing to wait for)",
    fresh,
    ["probe_unavailable"],
    undefined,
    { action: "final" },
  ],
];

for (const [name, history, reasons, retryAfterMs, expected] of answerCases) {
  test(`afterAnswer(): ${name}`, () => {
    assert.deepEqual(afterAnswer(history, { reasons, retryAfterMs }, P, NOW), expected);
  });
}

const failureCases: Array<[string, ItemHistory, boolean, number]> = [
  ["a first hand-out is not exhausted; a failure waits the base delay", fresh, false, 5_000],
  ["the second failed hand-out waits twice as long", item({ attempts: 2 }), false, 10_000],
  [
    "greylisted and timed-out retries are not failures",
    item({ attempts: 3, greylistTries: 1, timeoutTries: 1 }),
    false,
    5_000,
  ],
  ["after three failed hand-outs the fourth gets the fallback answer", item({ attempts: 4 }), true, 40_000],
  ["the failure delay never exceeds five minutes", item({ attempts: 12 }), true, 300_000],
];

for (const [name, history, isExhausted, delay] of failureCases) {
  test(`exhausted() and failureDelay(): ${name}`, () => {
    assert.equal(exhausted(history, P), isExhausted);
    assert.equal(failureDelay(history, P), delay);
  });
}
