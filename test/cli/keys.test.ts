// `npm run keys` as a user runs it, in a child process against a temporary STATE_DIR: help for every command, the
// database line on stderr (stdout stays clean JSON), the warning on a directory that held no database, and an
// account's plan kept without --plan and changed, loudly, with it.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { eventually } from "../helpers/eventually.ts";
import { type CliResult, runKeysCli, startServerProcess } from "../helpers/process.ts";
import { tempDir } from "../helpers/temp_dir.ts";

test("npm run keys -- COMMAND --help prints that command's usage, exits 0 and touches no database", async (t) => {
  const temp = tempDir("vrai-keys-help-");
  t.after(() => temp.remove());
  const env = { STATE_DIR: join(temp.path, "state") };
  const cases: [string[], RegExp][] = [
    [["create", "--help"], /^Usage: npm run keys -- create --account NAME \[--plan PLAN\]/],
    [["list", "--help"], /^Usage: npm run keys -- list \[--json\]/],
    [["revoke", "-h"], /^Usage: npm run keys -- revoke ID\|KEY\|PREFIX/],
    [["help", "create"], /^Usage: npm run keys -- create /],
    [["--help"], /^Usage:\n {2}npm run keys -- create .*\n {2}npm run keys -- list .*\n {2}npm run keys -- revoke /],
  ];
  for (const [args, usage] of cases) {
    const result = await runKeysCli(env, args);
    assert.equal(result.code, 0, `${args.join(" ")}: ${result.stderr}`);
    assert.match(result.stdout, usage, args.join(" "));
    assert.equal(result.stderr, "", `${args.join(" ")} prints nothing on stderr`);
  }
  const create = await runKeysCli(env, ["create", "--help"]);
  assert.match(create.stdout, /Without --plan an existing account keeps its plan/);
  assert.ok(!existsSync(env.STATE_DIR), "help creates no database");

  // A wrong option is one line naming it and the command's --help, and exits 2.
  const wrong = await runKeysCli(env, ["list", "--bogus"]);
  assert.equal(wrong.code, 2);
  assert.equal(
    wrong.stderr,
    "Cannot run keys list: unknown option --bogus (npm run keys -- list --help lists the options)\n",
  );
  assert.equal(wrong.stdout, "");
});

test("npm run keys warns on a new STATE_DIR, names its database on stderr, and changes a plan only with --plan", async (t) => {
  const temp = tempDir("vrai-keys-plan-");
  t.after(() => temp.remove());
  const stateDir = join(temp.path, "state");
  const env = { STATE_DIR: stateDir };
  const directLine = `Database: embedded in STATE_DIR ${stateDir}, opened directly (no running server holds it)`;

  const first = await runKeysCli(env, ["create", "--account", "acme", "--json"]);
  assert.equal(first.code, 0, first.stderr);
  assert.equal(JSON.parse(first.stdout).plan, "free", "stdout is one clean JSON object");
  assert.ok(first.stderr.includes(directLine), first.stderr);
  assert.ok(
    first.stderr.includes(`created a new embedded database in ${stateDir}: is this the server's STATE_DIR?`),
    first.stderr,
  );
  assert.match(first.stderr, /Account acme created on plan free/);

  const changed = await runKeysCli(env, ["create", "--account", "acme", "--plan", "unmetered"]);
  assert.equal(changed.code, 0, changed.stderr);
  assert.match(changed.stdout.trim(), /^vrai_live_[0-9A-Za-z]{22}$/);
  assert.ok(changed.stderr.includes("plan of acme changed: free → unmetered"), changed.stderr);
  assert.ok(!changed.stderr.includes("new embedded database"), "the database exists now");

  const kept = await runKeysCli(env, ["create", "--account", "acme", "--mode", "test", "--json"]);
  assert.equal(kept.code, 0, kept.stderr);
  assert.equal(JSON.parse(kept.stdout).plan, "unmetered", "without --plan the account keeps its plan");
  assert.ok(!kept.stderr.includes("plan of acme changed"), kept.stderr);
  assert.ok(kept.stderr.includes(directLine), kept.stderr);

  const listed = await runKeysCli(env, ["list", "--json"]);
  assert.equal(listed.code, 0, listed.stderr);
  assert.deepEqual(
    JSON.parse(listed.stdout).map((k: { plan: string }) => k.plan),
    ["unmetered", "unmetered", "unmetered"],
  );
  assert.ok(listed.stderr.includes(directLine), listed.stderr);
});

test("npm run keys says it goes through the running server's socket, and names a DATABASE_URL without its password", async (t) => {
  const temp = tempDir("vrai-keys-socket-");
  t.after(() => temp.remove());
  const stateDir = join(temp.path, "state");
  const server = await startServerProcess(t, { STATE_DIR: stateDir });
  const listed = await runKeysCli({ STATE_DIR: stateDir }, ["list", "--json"]);
  assert.equal(listed.code, 0, listed.stderr);
  assert.deepEqual(JSON.parse(listed.stdout), []);
  assert.ok(
    listed.stderr.includes(
      `Database: embedded in STATE_DIR ${stateDir}, through the socket of the running server (process ${server.child.pid})`,
    ),
    listed.stderr,
  );
  assert.ok(!listed.stderr.includes("new embedded database"), "the server made the database");
  await server.stop();

  // Nothing listens on port 1: the command names the database it tried, then fails.
  const remote = await runKeysCli({ DATABASE_URL: "postgres://vrai:s3cret@127.0.0.1:1/vrai?password=s3cret" }, [
    "list",
  ]);
  assert.equal(remote.code, 1);
  assert.ok(
    remote.stderr.includes("Database: PostgreSQL at postgres://vrai@127.0.0.1:1/vrai (DATABASE_URL)"),
    remote.stderr,
  );
  assert.ok(!remote.stderr.includes("s3cret"), "no password on stderr");
});

test("npm run keys waits for a server that holds STATE_DIR but does not serve its database yet", async (t) => {
  const temp = tempDir("vrai-keys-opening-");
  t.after(() => temp.remove());
  const stateDir = join(temp.path, "state");
  // A live process holds the directory's lock and serves no socket, as `npm start` does while it makes its database.
  const holder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60_000)"], { stdio: "ignore" });
  t.after(() => holder.kill("SIGKILL"));
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  writeFileSync(join(stateDir, "vrai.lock"), String(holder.pid), { mode: 0o600 });

  // Once the command says it waits, the holder goes away: the command then opens the directory itself.
  let released = false;
  const listed = await runKeysCli({ STATE_DIR: stateDir }, ["list", "--json"], 30_000, (stderr) => {
    if (released || !stderr.includes("Waiting for the server")) return;
    released = true;
    holder.kill("SIGKILL");
  });
  assert.equal(listed.code, 0, listed.stderr);
  assert.deepEqual(JSON.parse(listed.stdout), []);
  assert.ok(
    listed.stderr.includes(
      `Waiting for the server (process ${holder.pid}) to open the embedded database in ${stateDir}`,
    ),
    listed.stderr,
  );
  assert.ok(listed.stderr.includes("opened directly (no running server holds it)"), listed.stderr);
});

test("npm run keys run as soon as a first npm start holds STATE_DIR goes through that server's socket", async (t) => {
  const temp = tempDir("vrai-keys-first-start-");
  t.after(() => temp.remove());
  const stateDir = join(temp.path, "state");
  const starting = startServerProcess(t, { STATE_DIR: stateDir });
  let created: CliResult;
  try {
    // The lock is taken before the database is made, which takes seconds on a first start.
    await eventually("the server to lock STATE_DIR", () => existsSync(join(stateDir, "vrai.lock")), {
      timeoutMs: 30_000,
    });
    created = await runKeysCli({ STATE_DIR: stateDir }, ["create", "--account", "early", "--mode", "test", "--json"]);
  } finally {
    await starting; // its teardown is registered once it has started
  }
  const server = await starting;
  assert.equal(created.code, 0, created.stderr);
  assert.ok(created.stderr.includes(`through the socket of the running server (process ${server.child.pid})`));
  const answer = await fetch(`${server.url}/v1/email`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${JSON.parse(created.stdout).key}` },
    body: JSON.stringify({ email: "deliverable@vrai.test" }),
  });
  assert.equal(answer.status, 200, await answer.clone().text());
  assert.equal((await answer.json()).verdict, "deliverable");
  await server.stop();
});
