import { test } from "node:test";
import assert from "node:assert/strict";
import { loadConfig } from "../src/config.ts";
import { createLogger, silentLogger, type LogLevel } from "../src/log.ts";

function recorded(level?: LogLevel) {
  const lines: string[] = [];
  return { lines, log: createLogger({ level, write: (line) => lines.push(line) }) };
}

test("createLogger() writes one JSON line per event: ISO time, level as a word, msg, then the fields", () => {
  const { lines, log } = recorded();
  log.info("stopping", { signal: "SIGTERM", n: 3 });
  assert.equal(lines.length, 1);
  assert.ok(lines[0].endsWith("}\n"));
  const line = JSON.parse(lines[0]);
  assert.deepEqual(Object.keys(line), ["level", "time", "msg", "signal", "n"]);
  assert.deepEqual([line.level, line.msg, line.signal, line.n], ["info", "stopping", "SIGTERM", 3]);
  assert.equal(new Date(line.time).toISOString(), line.time);
  // The message is never a format string, and reads before its fields (the start tests match on this).
  log.warn("100% %s done", { x: 1 });
  assert.match(lines[1], /"msg":"100% %s done","x":1\}/);
});

test("createLogger() drops the lines below its level (LOG_LEVEL)", () => {
  const table: Array<[LogLevel, string[]]> = [
    ["debug", ["debug", "info", "warn", "error"]],
    ["info", ["info", "warn", "error"]],
    ["warn", ["warn", "error"]],
    ["error", ["error"]],
    ["silent", []],
  ];
  for (const [level, written] of table) {
    const { lines, log } = recorded(level);
    log.debug("d");
    log.info("i");
    log.warn("w");
    log.error("e");
    log.child({ request_id: "r1" }).debug("child d");
    log.child({ request_id: "r1" }).error("child e");
    const levels = lines.map((l) => JSON.parse(l).level);
    const expected = [
      ...written,
      ...(written.includes("debug") ? ["debug"] : []),
      ...(level === "silent" ? [] : ["error"]),
    ];
    assert.deepEqual(levels, expected, `LOG_LEVEL=${level}`);
  }
});

test("createLogger() refuses a level it does not know", () => {
  assert.throws(() => createLogger({ level: "verbose" as LogLevel, write: () => {} }), RangeError);
});

test("child() lines carry the child's fields; the parent's lines do not", () => {
  const { lines, log } = recorded("debug");
  const child = log.child({ request_id: "abc-1" });
  child.debug("smtp probe", { mx: "mx.example" });
  child.child({ stage: "rcpt" }).info("deeper");
  log.info("parent");
  const [probe, deeper, parent] = lines.map((l) => JSON.parse(l));
  assert.deepEqual(
    [probe.request_id, probe.msg, probe.mx, probe.level],
    ["abc-1", "smtp probe", "mx.example", "debug"],
  );
  assert.deepEqual([deeper.request_id, deeper.stage], ["abc-1", "rcpt"]);
  assert.equal(parent.request_id, undefined);
  assert.equal(silentLogger.child({ a: 1 }), silentLogger);
});

test("loadConfig() reads LOG_LEVEL, info by default, and refuses a bad value naming the variable", () => {
  assert.equal(loadConfig({}).logLevel, "info");
  for (const level of ["debug", "info", "warn", "error", "silent"]) {
    assert.equal(loadConfig({ LOG_LEVEL: level }).logLevel, level);
  }
  for (const bad of ["verbose", "INFO", "trace", " info"]) {
    assert.throws(
      () => loadConfig({ LOG_LEVEL: bad }),
      (error: Error) =>
        error instanceof RangeError &&
        error.message ===
          `Cannot read configuration: LOG_LEVEL must be debug, info, warn, error or silent, got "${bad}"`,
    );
  }
});
