// The disk-full episode (store/disk_full.ts): one warning however many calls fail, a reason for /readyz, an end found
// by probing; and PostgreSQL's SQLSTATE 53100 answered like the embedded database's full disk (503 with Retry-After,
// /readyz not ready with the reason, ready again once a write succeeds). The full embedded story, on a real tmpfs, is
// test/http/disk_full.test.ts.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Logger, LogFields } from "../../src/log.ts";
import { DiskFullWatch, isDiskFull } from "../../src/store/disk_full.ts";
import { isDatabaseUnavailable } from "../../src/store/unavailable.ts";
import { startTestServer } from "../helpers/server.ts";
import { eventually } from "../helpers/eventually.ts";

/** PostgreSQL's answer when a table cannot grow, as postgres.js hands it over (a PostgresError with its SQLSTATE). */
function diskFullError(): Error {
  const error = new Error('could not extend file "base/16384/16402": No space left on device');
  error.name = "PostgresError";
  return Object.assign(error, { code: "53100", severity: "ERROR" });
}

function recordingLogger(): Logger & { lines: Array<{ level: string; msg: string; fields?: LogFields }> } {
  const lines: Array<{ level: string; msg: string; fields?: LogFields }> = [];
  const at =
    (level: string) =>
    (msg: string, fields?: LogFields): void => {
      lines.push({ level, msg, fields });
    };
  const log = { lines, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error"), child: () => log };
  return log;
}

test("isDiskFull() and isDatabaseUnavailable() take SQLSTATE 53100 for a full disk, and nothing else for one", () => {
  assert.equal(isDiskFull(diskFullError()), true);
  assert.equal(isDatabaseUnavailable(diskFullError()), true);
  assert.equal(isDiskFull(Object.assign(new Error("deadlock detected"), { code: "40P01" })), false);
  assert.equal(isDiskFull(Object.assign(new Error("write failed"), { code: "ENOSPC" })), false);
  assert.equal(isDiskFull(undefined), false);
});

test("DiskFullWatch warns once per episode however many failures it hears, and ends the episode when the probe finds room", async () => {
  const log = recordingLogger();
  let room = false;
  let probes = 0;
  const watch = new DiskFullWatch({
    where: "under STATE_DIR",
    log,
    intervalMs: 10,
    probe: async () => {
      probes++;
      return room;
    },
  });
  assert.equal(watch.reason, undefined);
  assert.equal(watch.noteError(new Error("not a disk error")), undefined);
  for (let i = 0; i < 5; i++) {
    assert.equal(
      watch.noteError(diskFullError()),
      'disk full under STATE_DIR: could not extend file "base/16384/16402": No space left on device',
    );
  }
  watch.report("could not write to file");
  assert.deepEqual(
    log.lines.map((l) => [l.level, l.msg]),
    [["warn", "database disk full"]],
  );
  await eventually("a few probes", () => probes, { until: (n) => n >= 3 });
  assert.match(watch.reason ?? "", /^disk full under STATE_DIR: /, "still full while the probe finds no room");

  room = true;
  await eventually("the episode to end", () => watch.reason, { until: (reason) => reason === undefined });
  assert.deepEqual(log.lines.at(-1)?.msg, "database disk space is back");
  const probesAfter = probes;
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(probes, probesAfter, "no probing between episodes");

  // A new failure is a new episode, warned about again.
  watch.noteError(diskFullError());
  assert.equal(log.lines.filter((l) => l.msg === "database disk full").length, 2);
  watch.close();
});

test("DiskFullWatch keeps the episode going while the probe throws", async () => {
  const log = recordingLogger();
  let probes = 0;
  const watch = new DiskFullWatch({
    where: "on the PostgreSQL server",
    log,
    intervalMs: 5,
    probe: async () => {
      probes++;
      throw new Error("connect ENOENT");
    },
  });
  watch.report("no space left");
  await eventually("a few probes", () => probes, { until: (n) => n >= 3 });
  assert.equal(watch.reason, "disk full on the PostgreSQL server: no space left");
  watch.close();
  assert.throws(() => new DiskFullWatch({ where: "x", log, intervalMs: 0, probe: async () => true }), RangeError);
});

test("on PostgreSQL, a write refused with SQLSTATE 53100 answers 503 service-unavailable with Retry-After, /readyz says the disk is full, and ready comes back once a write succeeds", {
  timeout: 60_000,
}, async (t) => {
  let full = true;
  const server = await startTestServer(t, {
    database: "postgres",
    jobs: {
      submit: async () => {
        if (full) throw diskFullError();
        return {
          jobId: "00000000-0000-4000-8000-000000000000",
          status: "queued",
          total: 1,
          createdAt: new Date().toISOString(),
          expiresAt: new Date().toISOString(),
        };
      },
      findIdempotent: async () => undefined,
      read: async () => undefined,
      readTable: async () => undefined,
      startAddressUpload: () => {
        throw diskFullError();
      },
      commitAddressUpload: async () => {
        throw diskFullError();
      },
      readAddresses: async () => undefined,
      readAddressTable: async () => undefined,
    },
  });
  const key = await server.key({ plan: "unmetered" });
  for (let i = 0; i < 3; i++) {
    const refused = await server.post("/v1/email/bulk", key, { emails: ["jane.doe@example.com"] });
    assert.equal(refused.status, 503, await refused.clone().text());
    const problem = await refused.json();
    assert.match(problem.type, /\/errors\/service-unavailable$/);
    assert.match(problem.detail, /disk is full/);
    assert.match(refused.headers.get("retry-after") ?? "", /^[1-9][0-9]*$/);
  }
  const ready = await server.get("/readyz");
  assert.equal(ready.status, 503);
  assert.equal(
    (await ready.json()).checks.database,
    'disk full on the PostgreSQL server: could not extend file "base/16384/16402": No space left on device',
  );

  // The server has room again: the probe's write commits, the episode ends, and calls go through.
  full = false;
  await eventually("/readyz to answer 200", async () => (await server.get("/readyz")).status, {
    until: (status) => status === 200,
    timeoutMs: 10_000,
    intervalMs: 100,
  });
  const accepted = await server.post("/v1/email/bulk", key, { emails: ["jane.doe@example.com"] });
  assert.equal(accepted.status, 202, await accepted.clone().text());
});
