// Everything under STATE_DIR is owner-only (docs/decisions.md "Storage"): the embedded database's files (PGlite writes
// them 0666 whatever the umask), its WAL and its socket; an entry left open to others before the start is named in one
// warning and fixed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, lstatSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createLogger } from "../../src/log.ts";
import { openDatabase } from "../../src/store/db.ts";
import { makeOwnerOnly } from "../../src/store/owner_only.ts";
import { createAccount } from "../helpers/database.ts";
import { tempDir } from "../helpers/temp_dir.ts";

/** Every entry under `dir` (and `dir` itself) whose mode gives the group or others any permission, with its mode. */
function openToOthers(dir: string): string[] {
  const found: string[] = [];
  const visit = (path: string) => {
    const stats = lstatSync(path);
    if ((stats.mode & 0o077) !== 0) found.push(`${path} (0${(stats.mode & 0o777).toString(8)})`);
    if (stats.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(dir);
  return found;
}

function capturingLogger() {
  const lines: Array<{ level: string; msg: string; [field: string]: unknown }> = [];
  return { lines, log: createLogger({ level: "debug", write: (line) => lines.push(JSON.parse(line)) }) };
}

test("the embedded database leaves nothing under STATE_DIR that the group or others can reach", async (t) => {
  const place = tempDir("vrai-owner-");
  t.after(() => place.remove());
  const stateDir = join(place.path, "state");
  // Left by an older version, or copied in by hand: readable by everyone.
  mkdirSync(join(stateDir, "backup"), { recursive: true, mode: 0o755 });
  chmodSync(stateDir, 0o755);
  chmodSync(join(stateDir, "backup"), 0o755);
  writeFileSync(join(stateDir, "backup", "emails.csv"), "someone@example.com\n", { mode: 0o644 });
  chmodSync(join(stateDir, "backup", "emails.csv"), 0o644);
  const { lines, log } = capturingLogger();

  const db = await openDatabase({ databaseUrl: undefined, stateDir }, { log });
  t.after(() => db.close());
  // Written through to the WAL: what an attacker on the host would read.
  for (let i = 0; i < 20; i++) await createAccount(db.sql, `owner-only-${i}`);
  await db.sql`checkpoint`;

  const socket = readdirSync(stateDir).find((name) => name.startsWith(".s.PGSQL"));
  assert.ok(socket, "the database socket is in STATE_DIR");
  assert.ok(lstatSync(join(stateDir, socket)).isSocket());
  assert.equal(lstatSync(join(stateDir, socket)).mode & 0o777, 0o600, "socket 0600");
  assert.equal(lstatSync(stateDir).mode & 0o777, 0o700, "STATE_DIR 0700");
  assert.equal(lstatSync(join(stateDir, "backup", "emails.csv")).mode & 0o777, 0o600, "a file made 0600");
  assert.ok(readdirSync(join(stateDir, "pgdata")).length > 0, "the database wrote its files");
  assert.deepEqual(openToOthers(stateDir), []);

  const warnings = lines.filter((line) => line.level === "warn");
  assert.equal(warnings.length, 1, "one warning");
  assert.deepEqual(warnings[0].entries, [". (0755)", "backup (0755)", `${join("backup", "emails.csv")} (0644)`]);
  assert.equal(warnings[0].count, 3);
  assert.ok(
    !JSON.stringify(warnings).includes("pgdata"),
    "the database's own files (written 0666 by PGlite) are fixed without a warning",
  );
});

test("a STATE_DIR entry opened to others while stopped is named at the next start, and fixed", async (t) => {
  const place = tempDir("vrai-owner-");
  t.after(() => place.remove());
  const stateDir = join(place.path, "state");
  const first = await openDatabase({ databaseUrl: undefined, stateDir }, { log: capturingLogger().log });
  await createAccount(first.sql, "before");
  await first.close();
  const pgdata = join(stateDir, "pgdata");
  const wal = readdirSync(join(pgdata, "pg_wal")).find((name) => /^[0-9A-F]{24}$/.test(name));
  assert.ok(wal, "a WAL segment exists");
  chmodSync(join(pgdata, "pg_wal", wal), 0o644);

  const { lines, log } = capturingLogger();
  const second = await openDatabase({ databaseUrl: undefined, stateDir }, { log });
  t.after(() => second.close());
  await createAccount(second.sql, "after");
  const warnings = lines.filter((line) => line.level === "warn");
  assert.equal(warnings.length, 1);
  assert.deepEqual(warnings[0].entries, [`${join("pgdata", "pg_wal", wal)} (0644)`]);
  assert.deepEqual(openToOthers(stateDir), []);
});

test("makeOwnerOnly() leaves symbolic links and what they point at alone", (t) => {
  const place = tempDir("vrai-owner-");
  t.after(() => place.remove());
  const outside = join(place.path, "outside.txt");
  writeFileSync(outside, "shared");
  chmodSync(outside, 0o644);
  const dir = join(place.path, "state");
  mkdirSync(dir, { mode: 0o700 });
  chmodSync(dir, 0o700);
  symlinkSync(outside, join(dir, "link"));
  assert.deepEqual(makeOwnerOnly(dir), []);
  assert.equal(lstatSync(outside).mode & 0o777, 0o644);
});
