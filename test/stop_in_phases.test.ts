// The stop's phases: whatever a step does (fails, never ends), the stop ends within its drain time and says which
// steps were left; the phases run in order, the steps of one phase together. Garbage collections run meanwhile: the
// drain time is a timer that must fire whatever the heap does.
import assert from "node:assert/strict";
import { test } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { sleep } from "../src/async/deadline.ts";
import { silentLogger, type LogFields, type Logger } from "../src/log.ts";
import { inFlightShare, stopInPhases } from "../src/stop_in_phases.ts";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

function recordingLogger(): Logger & { lines: Array<{ msg: string } & LogFields> } {
  const lines: Array<{ msg: string } & LogFields> = [];
  const logger = {
    ...silentLogger,
    lines,
    warn: (msg: string, fields?: LogFields) => lines.push({ msg, ...fields }),
  };
  return logger;
}

test("a stop whose steps fail or never end still ends within its drain time, naming what it left", async () => {
  const log = recordingLogger();
  const order: string[] = [];
  const collecting = setInterval(gc, 20);
  const began = performance.now();
  try {
    const left = await stopInPhases(
      [
        [
          { name: "http server", stop: () => sleep(50).then(() => order.push("http server")) },
          { name: "job runner", stop: () => Promise.reject(new Error("database gone")) },
        ],
        [{ name: "database", stop: () => new Promise(() => {}) }],
        [{ name: "never reached", stop: () => order.push("never reached") }],
      ],
      { drainMs: 400, log },
    );
    const took = performance.now() - began;
    assert.deepEqual(left.sort(), ["database", "job runner", "never reached"]);
    assert.deepEqual(order, ["http server"]);
    assert.ok(took >= 390 && took < 1000, `ended after ${took} ms`);
    assert.deepEqual(
      log.lines.map((line) => [line.msg, line.step]),
      [
        ["stop step failed", "job runner"],
        ["stop step left unfinished", "database"],
      ],
    );
  } finally {
    clearInterval(collecting);
  }
});

test("the steps of a phase run together, and the next phase starts when they have all ended", async () => {
  const events: string[] = [];
  const step = (name: string, ms: number) => ({
    name,
    stop: async () => {
      events.push(`${name} start`);
      await sleep(ms);
      events.push(`${name} end`);
    },
  });
  const left = await stopInPhases([[step("a", 30), step("b", 10)], [step("c", 0)]], {
    drainMs: 2000,
    log: silentLogger,
  });
  assert.deepEqual(left, []);
  assert.deepEqual(events, ["a start", "b start", "b end", "a end", "c start", "c end"]);
});

test("a step that throws at once is a failed step, not a failed stop", async () => {
  const left = await stopInPhases(
    [
      [
        {
          name: "thrower",
          stop: () => {
            throw new Error("sync");
          },
        },
      ],
    ],
    { drainMs: 1000, log: silentLogger },
  );
  assert.deepEqual(left, ["thrower"]);
});

test("requests in flight get three quarters of the drain time, the rest is for handing items back and closing", () => {
  assert.equal(inFlightShare(10_000), 7500);
  assert.equal(inFlightShare(3000), 2250);
});
