// `npm start`: compiles src/ and workers/ into dist/ with tsc (tsconfig.build.json) when dist/ is missing or was built
// from other sources, then runs dist/src/main.js in this very process. One plain node process, no tsx nor esbuild: the
// SIGTERM or SIGINT that a container runtime, a process manager or npm sends reaches the server itself, which stops
// cleanly and frees STATE_DIR. `node workers/start.mjs --build` only builds (the `prepare` script, run by `npm ci`).
// Plain JavaScript on purpose: it runs before anything is compiled.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { once } from "node:events";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const DIST = join(ROOT, "dist");
/** Written last into dist/: the fingerprint of the sources it was built from. */
const STAMP = ".sources";
/** What the output depends on: every file under these (paths from the project root). */
const SOURCES = ["src", "workers", "tsconfig.json", "tsconfig.build.json"];

function log(level, msg, fields = {}) {
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })}\n`);
}

/** A hash of every source file's path, size and modification time: any edit, addition or removal changes it. */
function fingerprint() {
  const hash = createHash("sha256");
  const visit = (path) => {
    const stat = statSync(join(ROOT, path));
    if (stat.isDirectory()) {
      for (const name of readdirSync(join(ROOT, path)).sort()) visit(join(path, name));
    } else {
      hash.update(`${path}\0${stat.size}\0${stat.mtimeMs}\n`);
    }
  };
  for (const path of SOURCES) visit(path);
  return hash.digest("hex");
}

function builtFrom() {
  try {
    return readFileSync(join(DIST, STAMP), "utf8");
  } catch {
    return undefined; // never built, or built by an interrupted run
  }
}

/** Builds into a fresh folder, then swaps it for dist/: a start never runs half an output. Resolves false on failure. */
async function build(sources) {
  let tsc;
  try {
    tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  } catch {
    // `npm ci --omit=dev` runs `prepare` too, and a production install may hold a dist/ built elsewhere: both go on.
    const usable = buildOnly || existsSync(join(DIST, "src", "main.js"));
    log(usable ? "warn" : "error", "cannot build", { error: "typescript (a dev dependency) is not installed" });
    return usable;
  }
  const began = Date.now();
  log("info", "building", { out: "dist" });
  const temporary = join(ROOT, `dist.${process.pid}.tmp`);
  rmSync(temporary, { recursive: true, force: true });
  // tsc prints its diagnostics on stdout: they go to stderr, stdout stays one JSON log line each.
  const tscProcess = spawn(process.execPath, [tsc, "-p", "tsconfig.build.json", "--outDir", temporary], {
    cwd: ROOT,
    stdio: ["ignore", 2, 2],
  });
  // A stop asked for during the build stops tsc too: nothing outlives this process.
  const forward = (signal) => tscProcess.kill(signal);
  process.on("SIGTERM", forward).on("SIGINT", forward);
  const [code, signal] = await once(tscProcess, "exit");
  process.off("SIGTERM", forward).off("SIGINT", forward);
  if (code !== 0) {
    rmSync(temporary, { recursive: true, force: true });
    log("error", "cannot build", { error: `tsc exited with ${code ?? signal}` });
    return false;
  }
  writeFileSync(join(temporary, STAMP), sources);
  const previous = join(ROOT, `dist.${process.pid}.old`);
  try {
    renameSync(DIST, previous);
  } catch {
    // no dist/ yet
  }
  try {
    renameSync(temporary, DIST);
  } catch {
    rmSync(temporary, { recursive: true, force: true }); // another start swapped its own build in meanwhile
  }
  rmSync(previous, { recursive: true, force: true });
  log("info", "built", { out: "dist", ms: Date.now() - began });
  return true;
}

/** What `npm start -- --help` prints: the server takes no options, its settings are environment variables. */
const USAGE = `Usage: npm start

Serves the vrai API (and the page at /) on PORT (default 8080), with the embedded database in STATE_DIR
(default ./state), or on PostgreSQL when DATABASE_URL is set. The first start compiles src/ into dist/.

Every setting is an environment variable (README.md, "Configuration"), for example:
  PORT=9000 npm start
  DATABASE_URL=postgres://user@host/db ROLE=api npm start
  BAN_SOURCE=/path/to/ban-files npm start

Other commands: npm run keys, npm run ban, npm run doctor, npm run verify (each answers --help).

  -h, --help   this text
`;

// The server reads no options: --help and -h print the usage, anything else is a mistake named in one line (exit 2)
// rather than a server started as if the option had been understood.
const given = process.argv.slice(2).filter((arg) => arg !== "--build");
if (given.includes("--help") || given.includes("-h")) {
  process.stdout.write(USAGE);
  process.exit(0);
}
if (given.length > 0) {
  const what = given[0].startsWith("-") ? `unknown option ${given[0]}` : `unexpected argument ${given[0]}`;
  process.stderr.write(
    `Cannot run start: ${what}; its settings are environment variables (npm start -- --help lists the options)\n`,
  );
  process.exit(2);
}

const buildOnly = process.argv.includes("--build");
const sources = fingerprint();
const fresh = builtFrom() === sources || (await build(sources));
if (!fresh) process.exit(1);
if (!buildOnly) await import(pathToFileURL(join(DIST, "src/main.js")).href);
