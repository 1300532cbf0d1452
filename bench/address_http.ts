// address_http: POST /v1/address through the whole server (auth, rate limit, validation, quota-free unmetered key,
// worker pool) on the real Paris index, against the bare node:http baseline from the same run. The server is the
// compiled program `npm start` runs (lib/compiled.ts). Also the time from process start to ready with Paris already
// indexed.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { formatLoad, load } from "./lib/load.ts";
import { createKeyWithCli, startChildServer } from "../test/helpers/process.ts";
import { tempDir } from "../test/helpers/temp_dir.ts";
import { parisFileOrSkip } from "./lib/paris.ts";
import { measureBaseline } from "./lib/baseline.ts";
import { COMPILED_MAIN, ensureCompiled } from "./lib/compiled.ts";

const PARIS_DIR = dirname(parisFileOrSkip("address_http"));
const durationMs = Number(process.env.BENCH_DURATION_MS ?? 3000);

const baseline = await measureBaseline(
  {
    path: "/v1/address",
    body: JSON.stringify({ line: "150 rue de rivoli 75001 paris" }),
    headers: { "content-type": "application/json", authorization: "Bearer vrai_live_0123456789abcdefghijkl" },
  },
  durationMs,
);

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
try {
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
  const result = await load({
    url: api.url,
    method: "POST",
    path: "/v1/address",
    body: lines,
    durationMs,
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    serverPid: api.child.pid,
  });
  console.log(
    formatLoad("address_http", result, baseline, {
      start_to_ready_ms: Math.round(startMs),
      baseline_req_s: Math.round(baseline.reqPerSec),
    }),
  );
} finally {
  await api.stop();
  state.remove();
}
