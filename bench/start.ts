// start: how soon a fresh server answers, and what it holds once ready, compiled (what `npm start` runs) beside tsx
// (what the tests run) in the same run, with WORKERS=2:
//   time from spawn to the first 200 of /healthz (listening) and of /readyz (every index loaded),
//   with a warm index (already imported) and a cold one (imported from the real Paris file at start),
//   and the resident memory of the server process once ready (threads included).
//   npx tsx bench/start.ts            (env: START_ROUNDS=3)
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { ROOT, rssMb } from "../test/helpers/process.ts";
import { tempDir } from "../test/helpers/temp_dir.ts";
import { parisFileOrSkip } from "./lib/paris.ts";
import { COMPILED_MAIN, ensureCompiled } from "./lib/compiled.ts";

const PARIS = parisFileOrSkip("start");
const rounds = Number(process.env.START_ROUNDS ?? 3);

const RUNTIMES = {
  compiled: [COMPILED_MAIN],
  tsx: ["--import", "tsx", "src/main.ts"],
} as const;

// `npm ci` builds it; a checkout that skipped the prepare script, or changed a source since, builds it here.
ensureCompiled();

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function firstOk(url: string, since: number, limitMs: number): Promise<number> {
  for (;;) {
    if (performance.now() - since > limitMs) throw new Error(`No 200 from ${url} within ${limitMs} ms`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await response.arrayBuffer();
      if (response.status === 200) return performance.now() - since;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

interface Sample {
  healthzMs: number;
  readyzMs: number;
  rssMb: number;
}

/** One start of the server on `stateDir`; stopped with SIGTERM once ready and measured. */
async function startOnce(runtime: keyof typeof RUNTIMES, stateDir: string, banSource: string): Promise<Sample> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, [...RUNTIMES[runtime]], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      STATE_DIR: stateDir,
      BAN_DEPARTEMENTS: "75",
      BAN_SOURCE: banSource,
      BAN_INDEX_DIR: join(stateDir, "index"), // its own: a cold start finds nothing imported
      WORKERS: "2",
      LOG_LEVEL: "warn",
    },
    stdio: "ignore",
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  try {
    const healthzMs = await firstOk(`http://127.0.0.1:${port}/healthz`, t0, 120_000);
    const readyzMs = await firstOk(`http://127.0.0.1:${port}/readyz`, t0, 300_000);
    await new Promise((resolve) => setTimeout(resolve, 1000)); // the pool's threads settled
    return { healthzMs, readyzMs, rssMb: rssMb(child.pid!) };
  } finally {
    child.kill("SIGTERM");
    await exited;
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const banSource = join(PARIS, "..");

for (const index of ["warm", "cold"] as const) {
  const samples: Record<keyof typeof RUNTIMES, Sample[]> = { compiled: [], tsx: [] };
  for (let r = 0; r < rounds; r++) {
    // Interleaved, so that a slower moment of the machine weighs on both alike.
    for (const runtime of Object.keys(RUNTIMES) as Array<keyof typeof RUNTIMES>) {
      const state = tempDir("vrai-bench-start-");
      try {
        // Warm: a first start imports the index and is not measured; cold: every measured start imports it.
        if (index === "warm") await startOnce(runtime, state.path, banSource);
        samples[runtime].push(await startOnce(runtime, state.path, banSource));
      } finally {
        rmSync(state.path, { recursive: true, force: true });
      }
    }
  }
  const line = (runtime: keyof typeof RUNTIMES) => {
    const s = samples[runtime];
    return (
      `${runtime}_healthz_ms=${median(s.map((x) => x.healthzMs)).toFixed(0)} ` +
      `${runtime}_readyz_ms=${median(s.map((x) => x.readyzMs)).toFixed(0)} ` +
      `${runtime}_rss_mb=${median(s.map((x) => x.rssMb)).toFixed(0)}`
    );
  };
  console.log(`start index=${index} workers=2 rounds=${rounds} ${line("compiled")} ${line("tsx")}`);
}
