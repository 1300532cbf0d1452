import assert from "node:assert/strict";
import { readFile } from "node:fs";
import { test } from "node:test";
import { currentTurn } from "../../src/async/end_of_turn.ts";

test("currentTurn() is one turn for every caller until its check phase, then a new one", async () => {
  const first = currentTurn();
  await Promise.resolve(); // a microtask later: still the same turn
  assert.equal(currentTurn(), first);
  assert.equal(first.ended, false);
  await first.end;
  assert.equal(first.ended, true);
  const next = currentTurn();
  assert.notEqual(next, first);
  assert.equal(next.ended, false);
  await next.end;
});

test("a turn taken in an I/O callback ends in that loop iteration, before the next one's timers", async () => {
  const order = await new Promise<string[]>((resolve, reject) => {
    readFile(import.meta.filename, (error) => {
      if (error) return reject(error);
      const seen: string[] = [];
      setTimeout(() => {
        seen.push("timer");
        resolve(seen);
      }, 0);
      currentTurn().end.then(() => seen.push("end of turn"));
    });
  });
  assert.deepEqual(order, ["end of turn", "timer"]);
});
