// `npm start` as a container runtime or a process manager runs it: compiled ahead of time (workers/start.mjs,
// tsconfig.build.json), one plain node process under npm, and the signals sent to npm reach the server, which stops
// cleanly and frees STATE_DIR for the next start.
import { before, test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, startChildServer, runKeysCli, type ServerProcess } from "../helpers/process.ts";

/** Bound on one build of dist/ (tsc over src/ and workers/ takes about 15 s on two busy cores). */
const BUILD_TIMEOUT_MS = 180_000;
/** Bound on one `npm start`: a rebuild (when a source changed since the build below) plus the start itself. */
const START_TIMEOUT_MS = BUILD_TIMEOUT_MS + 60_000;
const linux = process.platform === "linux";

before(() => {
  // Build once here, so that each start below only checks that dist/ is fresh.
  const built = spawnSync(process.execPath, ["workers/start.mjs", "--build"], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: BUILD_TIMEOUT_MS,
  });
  assert.equal(built.status, 0, `the build failed: ${built.stdout}${built.stderr}`);
});

interface ProcessInfo {
  pid: number;
  ppid: number;
  argv: string[];
}

/** Every process on this machine, from /proc (Linux). */
function processes(): ProcessInfo[] {
  const found: ProcessInfo[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so fields are read after the last ")".
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const argv = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").filter(Boolean);
      found.push({ pid: Number(name), ppid, argv });
    } catch {
      // the process ended while being read
    }
  }
  return found;
}

/** The processes below `pid`, children first. */
function descendants(pid: number): ProcessInfo[] {
  const all = processes();
  const below: ProcessInfo[] = [];
  let level = [pid];
  while (level.length > 0) {
    const next = all.filter((p) => level.includes(p.ppid));
    below.push(...next);
    level = next.map((p) => p.pid);
  }
  return below;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** `npm start` on `stateDir`; at the end of the test, whatever is left of it (npm and the server below it) is killed. */
async function npmStart(t: TestContext, stateDir: string): Promise<{ npm: ServerProcess; serverPid: number }> {
  const npm = await startChildServer("npm start", {
    npmStart: true,
    env: { STATE_DIR: stateDir, BAN_DEPARTEMENTS: "", BAN_SOURCE: ROOT },
    timeoutMs: START_TIMEOUT_MS,
  });
  const below = linux ? descendants(npm.child.pid!) : [];
  t.after(() => {
    for (const p of [npm.child.pid!, ...below.map((b) => b.pid)]) if (alive(p)) process.kill(p, "SIGKILL");
  });
  assert.equal(npm.child.exitCode, null, `npm start exited: ${npm.output()}`);
  return { npm, serverPid: below[0]?.pid ?? 0 };
}

/** Waits for npm to exit after `signal` went to `pid`, and checks the server logged a clean stop and is gone. */
async function stopsCleanly(npm: ServerProcess, serverPid: number, pid: number, signal: NodeJS.Signals) {
  process.kill(pid, signal);
  const code = await Promise.race([npm.exited, new Promise((done) => setTimeout(done, 20_000, "still running"))]);
  assert.equal(code, 0, `npm after ${signal}: ${npm.output()}`);
  assert.match(npm.output(), new RegExp(`"msg":"stopping","signal":"${signal}"`));
  assert.match(npm.output(), /"msg":"stopped"/);
  if (linux) assert.ok(!alive(serverPid), `the server (pid ${serverPid}) outlived npm`);
}

test("npm start runs dist/src/main.js in one plain node process: no tsx, no esbuild", { skip: !linux }, async (t) => {
  const stateDir = mkdtempSync(join(tmpdir(), "vrai-compiled-"));
  const { npm, serverPid } = await npmStart(t, stateDir);
  assert.equal((await fetch(`${npm.url}/healthz`)).status, 200);

  const below = descendants(npm.child.pid!);
  assert.deepEqual(
    below.map((p) => p.argv.slice(1)),
    [["workers/start.mjs"]],
    `npm's descendants: ${JSON.stringify(below)}`,
  );
  assert.equal(below[0]!.pid, serverPid);
  assert.match(below[0]!.argv[0]!, /(^|\/)node$/);
  assert.doesNotMatch(JSON.stringify(below), /tsx|esbuild/);

  // The compiled program reads what lies outside dist/: data/email (typo check), the SQL migrations (keys), and
  // starts its worker threads (PGlite, the address pool) from dist/.
  const created = await runKeysCli({ STATE_DIR: stateDir }, ["create", "--account", "compiled", "--json"]);
  assert.equal(created.code, 0, created.stderr);
  const { key } = JSON.parse(created.stdout);
  const post = (path: string, body: unknown) =>
    fetch(npm.url + path, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify(body),
    });
  const email = await post("/v1/email", { email: "jane.doe@gmial.com" });
  assert.equal(email.status, 200);
  assert.equal((await email.json()).reasons[0], "domain_typo");
  const address = await post("/v1/address", { line: "12 Rue de Rivoli, 75001 Paris" });
  assert.equal(address.status, 200, await address.clone().text());
  assert.equal(typeof (await address.json()).verdict, "string");

  await stopsCleanly(npm, serverPid, npm.child.pid!, "SIGTERM");
});

test("SIGTERM or SIGINT to npm, or SIGTERM to the server, stops it cleanly and frees STATE_DIR for the next start", async (t) => {
  const stateDir = mkdtempSync(join(tmpdir(), "vrai-signal-"));
  const stops: Array<{ signal: NodeJS.Signals; to: "npm" | "the server" }> = [
    { signal: "SIGTERM", to: "npm" },
    { signal: "SIGINT", to: "npm" },
    // Finding the server below npm reads /proc.
    ...(linux ? [{ signal: "SIGTERM", to: "the server" } as const] : []),
  ];
  // Each start after the first is on the directory the previous server left: it only starts if that one freed it.
  for (const { signal, to } of stops) {
    const { npm, serverPid } = await npmStart(t, stateDir);
    assert.equal((await fetch(`${npm.url}/healthz`)).status, 200);
    await stopsCleanly(npm, serverPid, to === "npm" ? npm.child.pid! : serverPid, signal);
  }
  const last = await npmStart(t, stateDir);
  assert.equal((await fetch(`${last.npm.url}/healthz`)).status, 200);
  await stopsCleanly(last.npm, last.serverPid, last.npm.child.pid!, "SIGTERM");
});
