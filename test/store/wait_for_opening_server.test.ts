// waitForOpeningServer (store/db.ts): how long the keys CLI waits for a server that holds STATE_DIR and does not serve
// its database socket yet. The socket's name is PostgreSQL's, as postgres.js looks it up.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { waitForOpeningServer } from "../../src/store/db.ts";
import { tempDir } from "../helpers/temp_dir.ts";

/** A STATE_DIR whose lock names a live process that is not this one. */
function heldStateDir(t: TestContext): { dir: string; pid: number } {
  const temp = tempDir("vrai-opening-");
  t.after(() => temp.remove());
  const holder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60_000)"], { stdio: "ignore" });
  t.after(() => holder.kill("SIGKILL"));
  const dir = join(temp.path, "state");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "vrai.lock"), String(holder.pid));
  return { dir, pid: holder.pid! };
}

test("no wait for a directory nobody holds", async (t) => {
  const temp = tempDir("vrai-opening-free-");
  t.after(() => temp.remove());
  const waits: number[] = [];
  const started = performance.now();
  await waitForOpeningServer(temp.path, { timeoutMs: 5000, onWait: (pid) => waits.push(pid) });
  assert.ok(performance.now() - started < 1000);
  assert.deepEqual(waits, []);
});

test("a holder that never serves is waited for until the bound, and named once", async (t) => {
  const { dir, pid } = heldStateDir(t);
  const waits: number[] = [];
  const started = performance.now();
  await waitForOpeningServer(dir, { timeoutMs: 600, pollMs: 50, onWait: (owner) => waits.push(owner) });
  const waited = performance.now() - started;
  assert.ok(waited >= 590 && waited < 3000, `waited ${waited} ms`);
  assert.deepEqual(waits, [pid]);
});

test("the wait ends when the socket appears", async (t) => {
  const { dir } = heldStateDir(t);
  setTimeout(() => writeFileSync(join(dir, ".s.PGSQL.5432"), ""), 300);
  const started = performance.now();
  await waitForOpeningServer(dir, { timeoutMs: 20_000, pollMs: 50 });
  const waited = performance.now() - started;
  assert.ok(waited >= 250 && waited < 5000, `waited ${waited} ms`);
});
