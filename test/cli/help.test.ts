// Every command as a newcomer first meets it, through `npm run` in a child process: --help and -h print the usage on
// stdout and exit 0 without touching a database or the network; a wrong option is one line on stderr that names it
// and the --help to read, exit 2, never a stack trace; an import that cannot download says what to do instead.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { test } from "node:test";
import { ROOT } from "../helpers/process.ts";
import { tempDir } from "../helpers/temp_dir.ts";

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `npm run -s SCRIPT -- ARGS` (-s: npm's own banner left out, as a user would see the command's words only). */
function npmRun(script: string, args: string[], env: Record<string, string> = {}, timeoutMs = 60_000): Promise<Run> {
  // The caller's VRAI_* must not decide what a test without them sees.
  const { VRAI_URL: _url, VRAI_KEY: _key, ...inherited } = process.env;
  const child = spawn("npm", ["run", "-s", script, "--", ...args], {
    cwd: ROOT,
    env: { ...inherited, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const timer = setTimeout(() => {
    stderr += `npm run ${script} did not end within ${timeoutMs / 1000} s`;
    child.kill("SIGKILL");
  }, timeoutMs);
  return new Promise((resolve) =>
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

/** The usage each command line prints, by its first line. */
const HELP: Array<[string, string[], RegExp]> = [
  ["keys", ["--help"], /^Usage:\n {2}npm run keys -- create /],
  ["keys", ["-h"], /^Usage:\n {2}npm run keys -- create /],
  ["ban", ["--help"], /^Usage: npm run ban -- import SOURCE\.\.\.\n\nBuilds the street index/],
  ["ban", ["-h"], /^Usage: npm run ban -- import SOURCE\.\.\.\n\nBuilds the street index/],
  ["ban", ["import", "--help"], /^Usage: npm run ban -- import SOURCE\.\.\.\n\nImports each SOURCE/],
  ["ban", ["import", "-h"], /^Usage: npm run ban -- import SOURCE\.\.\.\n\nImports each SOURCE/],
  ["doctor", ["--help"], /^Usage: npm run doctor \[-- --json\]\n/],
  ["doctor", ["-h"], /^Usage: npm run doctor \[-- --json\]\n/],
  ["verify", ["--help"], /^Usage: npm run verify -- FILE\.csv --out RESULTS\.csv \[options\]\n/],
  ["verify", ["-h"], /^Usage: npm run verify -- FILE\.csv --out RESULTS\.csv \[options\]\n/],
  // The server itself: --help must not start it (on port 8080, with a database in ./state).
  ["start", ["--help"], /^Usage: npm start\n\nServes the vrai API/],
  ["start", ["-h"], /^Usage: npm start\n\nServes the vrai API/],
];

test("every command answers --help and -h with its usage on stdout, exit 0, touching no database", async (t) => {
  const temp = tempDir("vrai-help-");
  t.after(() => temp.remove());
  // Settings that would fail if the command went further than its help: a database nobody serves, an index
  // directory and a BAN source that do not exist, a server address nothing listens on.
  const env = {
    STATE_DIR: join(temp.path, "state"),
    BAN_INDEX_DIR: join(temp.path, "ban"),
    BAN_SOURCE: join(temp.path, "nowhere"),
    VRAI_URL: "http://127.0.0.1:9",
  };
  for (const [script, args, usage] of HELP) {
    const line = `npm run ${script} -- ${args.join(" ")}`;
    const run = await npmRun(script, args, env);
    assert.equal(run.code, 0, `${line}: ${run.stderr}`);
    assert.match(run.stdout, usage, line);
    assert.equal(run.stderr, "", `${line} prints nothing on stderr`);
    assert.ok(run.stdout.trim().split("\n").length >= 5, `${line} says more than one line`);
  }
  assert.deepEqual(readdirSync(temp.path), [], "no command made a database or an index");
});

test("a wrong option is one line naming it and the --help to read, exit 2, no stack trace", async () => {
  const cases: Array<[string, string[], string]> = [
    ["keys", ["--bogus"], "Cannot run keys: unknown option --bogus (npm run keys -- --help lists the options)"],
    [
      "keys",
      ["list", "--bogus"],
      "Cannot run keys list: unknown option --bogus (npm run keys -- list --help lists the options)",
    ],
    ["ban", ["--force"], "Cannot run ban: unknown option --force (npm run ban -- --help lists the options)"],
    [
      "ban",
      ["import", "75", "-q"],
      "Cannot run ban import: unknown option -q (npm run ban -- import --help lists the options)",
    ],
    [
      "doctor",
      ["--verbose"],
      "Cannot run doctor: unknown option --verbose (npm run doctor -- --help lists the options)",
    ],
    [
      "doctor",
      ["--json=yes"],
      "Cannot run doctor: option --json takes no value (npm run doctor -- --help lists the options)",
    ],
    [
      "verify",
      ["list.csv", "--out"],
      "Cannot run verify: option --out needs a value (npm run verify -- --help lists the options)",
    ],
    [
      "verify",
      ["list.csv", "--colour", "--out", "x.csv"],
      "Cannot run verify: unknown option --colour (npm run verify -- --help lists the options)",
    ],
    [
      "start",
      ["--port", "9000"],
      "Cannot run start: unknown option --port; its settings are environment variables (npm start -- --help lists the options)",
    ],
  ];
  for (const [script, args, message] of cases) {
    const line = `npm run ${script} -- ${args.join(" ")}`;
    const run = await npmRun(script, args);
    assert.equal(run.code, 2, `${line}: ${run.stderr}`);
    assert.equal(run.stderr, `${message}\n`, line);
    assert.equal(run.stdout, "", line);
  }
  // What ban does not know as a command or a source is refused the same way, without a stack trace.
  for (const [args, message] of [
    [[], /^Cannot run ban: no command given \(npm run ban -- --help lists them\)\n$/],
    [["fetch", "75"], /^Cannot run ban: unknown command fetch \(npm run ban -- --help lists them\)\n$/],
    [["import"], /^Cannot run ban import: no SOURCE given, .*\(npm run ban -- import --help lists them\)\n$/],
  ] as const) {
    const run = await npmRun("ban", [...args]);
    assert.equal(run.code, 2, args.join(" "));
    assert.match(run.stderr, message);
  }
});

/** A loopback port nobody listens on (one just freed): connecting to it is refused at once, as offline. */
async function refusedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

test("npm run ban -- import 75 without a reachable BAN_SOURCE says the download failed and names the fixes", async (t) => {
  const temp = tempDir("vrai-ban-offline-");
  t.after(() => temp.remove());
  const source = `http://127.0.0.1:${await refusedPort()}/ban`;
  const run = await npmRun("ban", ["import", "75"], { BAN_SOURCE: source, BAN_INDEX_DIR: temp.path });
  assert.equal(run.code, 1, run.stderr);
  const lines = run.stderr.trim().split("\n");
  assert.equal(lines.length, 2, run.stderr);
  assert.match(
    lines[0]!,
    new RegExp(`^Cannot import 75: Cannot download BAN file: ${source}/adresses-75\\.csv\\.gz: `),
  );
  assert.equal(
    lines[1],
    `The download from BAN_SOURCE (${source}) failed: check the network (and HTTPS_PROXY), or set BAN_SOURCE to a ` +
      "directory or a mirror holding adresses-75.csv.gz, or give the path of a copy on this machine: " +
      "npm run ban -- import /path/to/adresses-75.csv.gz",
  );
  assert.doesNotMatch(run.stderr, /\n\s+at /, "no stack trace");
  assert.equal(run.stdout, "");
  assert.deepEqual(readdirSync(temp.path), [], "no index written");
});
