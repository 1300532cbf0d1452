// fuzz: the suite's seeded hostile requests (test/http/fuzz_cases.ts) against `npm start`'s program, one connection
// each, 16 at a time: cases per second and the count by status (s500 must be 0; bad = answers that are neither a
// problem document nor a valid success).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createKeyWithCli, startChildServer } from "../test/helpers/process.ts";
import { tempDir } from "../test/helpers/temp_dir.ts";
import { runFuzz } from "../test/http/fuzz_cases.ts";

const count = Number(process.env.FUZZ_CASES ?? 5000);
const seed = Number(process.env.FUZZ_SEED ?? 20261123);
const state = tempDir("vrai-bench-fuzz-");
const plansFile = join(state.path, "plans.json");
const rate = { per_minute: 100_000_000, burst: 0 };
writeFileSync(plansFile, JSON.stringify({ plans: { fuzz: { quota: null, rate, batch_max: 5000 } } }));
const env = {
  STATE_DIR: join(state.path, "state"),
  PLANS_FILE: plansFile,
  BAN_DEPARTEMENTS: "",
  BAN_SOURCE: state.path,
  // A case that promises more body than it sends waits for the request limit: keep it short here.
  HTTP_HEADERS_TIMEOUT_MS: "2000",
  HTTP_REQUEST_TIMEOUT_MS: "3000",
};
const api = await startChildServer("src/main.ts", { env, keepOutput: false });
try {
  // Test keys only: live keys would send the engine to the network.
  const keys = {
    valid: [
      await createKeyWithCli(env, ["--account", "fuzz", "--plan", "fuzz", "--mode", "test"]),
      await createKeyWithCli(env, ["--account", "fuzz", "--mode", "test", "--endpoints", "address"]),
    ],
    invalid: ["vrai_live_0000000000000000000000", "vrai_test_zzzzzzzzzzzzzzzzzzzzzz"],
  };
  const report = await runFuzz(api.url, { seed, count, keys, timeoutMs: 10_000 });
  const statuses = [...report.byStatus].sort(([a], [b]) => a - b).map(([status, n]) => `s${status}=${n}`);
  if (!report.byStatus.has(500)) statuses.push("s500=0");
  console.log(
    [
      "fuzz",
      `cases=${report.cases}`,
      `cases_s=${Math.round((report.cases / report.ms) * 1000)}`,
      ...statuses,
      `bad=${report.failures.length}`,
      `slowest=${Math.round(report.slowestMs)}ms`,
      `seed=${seed}`,
      `node=${process.version}`,
    ].join(" "),
  );
  for (const failure of report.failures.slice(0, 5)) console.error(failure.reason, JSON.stringify(failure.request));
} finally {
  await api.stop();
  state.remove();
}
