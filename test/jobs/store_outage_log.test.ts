import { test } from "node:test";
import assert from "node:assert/strict";
import { createLogger } from "../../src/log.ts";
import { createStoreOutageLog } from "../../src/jobs/store_outage_log.ts";

function recorded() {
  const lines: Array<{ level: string; msg: string; [k: string]: unknown }> = [];
  const log = createLogger({ level: "debug", write: (line) => lines.push(JSON.parse(line)) });
  return { lines, outage: createStoreOutageLog(log) };
}

const diskFull = Object.assign(new Error("could not extend file: No space left on device"), { code: "53100" });

test("createStoreOutageLog(): one line per outage however many calls fail, one when the database answers again", () => {
  const { lines, outage } = recorded();
  for (let i = 0; i < 500; i++)
    outage.failed("error", "job runner could not write a result", diskFull, { job_id: "j" });
  outage.failed("warn", "job runner could not claim items", diskFull);
  assert.deepEqual(
    lines.map((l) => [l.level, l.msg]),
    [["warn", "job runner: database unavailable, items wait until it answers"]],
  );
  outage.succeeded();
  outage.succeeded();
  assert.deepEqual(
    lines.map((l) => [l.level, l.msg]),
    [
      ["warn", "job runner: database unavailable, items wait until it answers"],
      ["info", "job runner: database answers again"],
    ],
  );
  assert.equal(lines[1]!.failures_not_logged, 500);
  // A later outage is said again.
  outage.failed("warn", "job lease renewal failed", diskFull);
  assert.equal(lines.length, 3);
});

test("createStoreOutageLog(): a failure that is not the database being unavailable is logged every time", () => {
  const { lines, outage } = recorded();
  const bug = new TypeError("cannot read properties of undefined");
  outage.failed("error", "job runner batch failed", bug, { items: 3 });
  outage.failed("error", "job runner batch failed", bug, { items: 3 });
  assert.deepEqual(
    lines.map((l) => [l.level, l.msg, l.items, l.error]),
    [
      ["error", "job runner batch failed", 3, String(bug)],
      ["error", "job runner batch failed", 3, String(bug)],
    ],
  );
});
