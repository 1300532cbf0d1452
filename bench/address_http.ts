// address_http: POST /v1/address through the whole server (auth, rate limit, validation, quota-free unmetered key,
// worker pool) on the real Paris index, against the bare node:http baseline. The server is the compiled program
// `npm start` runs (lib/compiled.ts). `address_http_testmode`: the same server and route with a test key, which answers
// without matching or worker pool, so that the two lines tell the HTTP stack's share of the gap from the matching's.
// Baseline, live and test-mode loads take turns for BENCH_ROUNDS rounds (lib/rounds.ts); each line is its median round.
// Also the time from process start to ready with Paris already indexed.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { formatLoad, load } from "./lib/load.ts";
import { createKeyWithCli, startChildServer } from "../test/helpers/process.ts";
import { tempDir } from "../test/helpers/temp_dir.ts";
import { parisFileOrSkip } from "./lib/paris.ts";
import { type RunningBaseline, startBaseline } from "./lib/baseline.ts";
import { medianRound, type Round } from "./lib/rounds.ts";
import { COMPILED_MAIN, ensureCompiled } from "./lib/compiled.ts";

const PARIS_DIR = dirname(parisFileOrSkip("address_http"));
const durationMs = Number(process.env.BENCH_DURATION_MS ?? 3000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);

ensureCompiled();
const state = tempDir("vrai-bench-address-");
const plansFile = join(state.path, "plans.json");
writeFileSync(
  plansFile,
  JSON.stringify({ plans: { bench: { quota: null, rate: { per_minute: 100_000_000, burst: 0 }, batch_max: 5000 } } }),
);
const env = {
  STATE_DIR: join(state.path, "state"),
  PLANS_FILE: plansFile,
  BAN_DEPARTEMENTS: "75",
  BAN_SOURCE: PARIS_DIR,
  BAN_INDEX_DIR: mkdtempSync(join(tmpdir(), "vrai-bench-ban-")),
};
// First start imports Paris; the second measures a start with Paris already indexed.
const first = await startChildServer(COMPILED_MAIN, {
  env,
  compiled: true,
  readyPath: "/readyz",
  timeoutMs: 180_000,
  keepOutput: false,
});
await first.stop();
const started = performance.now();
const api = await startChildServer(COMPILED_MAIN, { env, compiled: true, readyPath: "/readyz", keepOutput: false });
const startMs = performance.now() - started;
let bare: RunningBaseline | undefined;
try {
  bare = await startBaseline({
    path: "/v1/address",
    body: JSON.stringify({ line: "150 rue de rivoli 75001 paris" }),
    headers: { "content-type": "application/json", authorization: "Bearer vrai_live_0123456789abcdefghijkl" },
  });
  const key = await createKeyWithCli(env, ["--account", "bench", "--plan", "bench"]);
  const lines = [
    "150 rue de rivoli 75001 paris",
    "15 bd haussmann 75009 paris",
    "150 Rue de Rivili, 75001 Paris",
    "12 Rue de Rivoli, 75001 Paris",
    "10 rue du Fabourg Sain-Honoré 75008 Paris",
    "Rue de Rivoli, 75001 Paris",
    "12 rue des Zorglubs Imaginaires, 75001 Paris",
    "9999 rue de Rivoli 75001 Paris",
  ].map((line) => JSON.stringify({ line }));
  const testKey = await createKeyWithCli(env, ["--account", "bench", "--plan", "bench", "--mode", "test"]);
  const testLine = JSON.stringify({ line: "1 Rue Deliverable, 00000 Testville" });
  const callWith = (authorization: string, body: string | string[], warmupMs: number | undefined) =>
    load({
      url: api.url,
      method: "POST",
      path: "/v1/address",
      body,
      durationMs,
      warmupMs,
      headers: { "content-type": "application/json", authorization },
      serverPid: api.child.pid,
    });
  const live: Round[] = [];
  const testMode: Round[] = [];
  for (let round = 0; round < rounds; round++) {
    // Each side warms up in the first round only: the later ones measure a warm server, as the first does.
    const warmupMs = round === 0 ? undefined : 0;
    const baseline = await bare.measure(durationMs, warmupMs);
    live.push({ baseline, result: await callWith(`Bearer ${key}`, lines, warmupMs) });
    testMode.push({ baseline, result: await callWith(`Bearer ${testKey}`, testLine, warmupMs) });
  }
  for (const [name, measured] of [
    ["address_http", live],
    ["address_http_testmode", testMode],
  ] as const) {
    const { round, range } = medianRound(measured);
    console.log(
      formatLoad(name, round.result, round.baseline, {
        vs_baseline_range: range,
        rounds,
        baseline_req_s: Math.round(round.baseline.reqPerSec),
        ...(name === "address_http" ? { start_to_ready_ms: Math.round(startMs) } : {}),
      }),
    );
  }
} finally {
  await api.stop();
  await bare?.stop();
  state.remove();
}
