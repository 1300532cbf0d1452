// A seeded fuzz run against a real server on port 0: every answer is a problem document or a valid
// success, never a 500; nothing hangs past its bound; the heap stays flat. The generator is test/http/fuzz_cases.ts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { startTestServer } from "../helpers/server.ts";
import { createApp } from "../../src/http/app.ts";
import { serve } from "../../src/http/serve.ts";
import { silentLogger } from "../../src/log.ts";
import { settledAddress, settledEmail } from "../helpers/settled_engines.ts";
import { runFuzz } from "./fuzz_cases.ts";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const CASES = Number(process.env.FUZZ_CASES ?? 3000);

test(`fuzz: ${CASES} seeded hostile requests (seed ${SEED}) answer a problem or a valid success, never a 500`, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "vrai-fuzz-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const plans = join(dir, "plans.json");
  const rate = { per_minute: 100_000_000, burst: 0 };
  writeFileSync(plans, JSON.stringify({ plans: { fuzz: { quota: null, rate, batch_max: 5000 } } }));
  const base = await startTestServer(t, {
    env: { PLANS_FILE: plans },
    // Stand-ins for the engines: the network is not what this test is about.
    email: settledEmail,
    address: settledAddress,
  });
  // Short time limits, so that a request promising more body than it sends ends within the bound.
  const server = await serve(createApp(base.services), {
    port: 0,
    host: "127.0.0.1",
    log: silentLogger,
    limits: { headersTimeoutMs: 2000, requestTimeoutMs: 3000 },
  });
  t.after(() => server.close(1000));
  const keys = {
    valid: [
      await base.key({ mode: "test", plan: "fuzz" }),
      await base.key({ mode: "test", plan: "fuzz", endpoints: ["address"] }),
      await base.key({ mode: "live", plan: "fuzz" }),
    ],
    invalid: ["vrai_live_0000000000000000000000", "vrai_test_zzzzzzzzzzzzzzzzzzzzzz", "vrai_live_\u00e9"],
  };

  const warm = await runFuzz(server.url, { seed: SEED + 1, count: 300, keys, timeoutMs: 8000 });
  assert.deepEqual(warm.failures, []);
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  const report = await runFuzz(server.url, { seed: SEED, count: CASES, keys, timeoutMs: 8000 });
  gc();
  const heapAfter = process.memoryUsage().heapUsed;

  const statuses = Object.fromEntries([...report.byStatus].sort(([a], [b]) => a - b));
  t.diagnostic(
    `statuses ${JSON.stringify(statuses)} in ${Math.round(report.ms)} ms, slowest ${Math.round(report.slowestMs)} ms`,
  );
  assert.deepEqual(report.failures.slice(0, 10), [], `${report.failures.length} unacceptable answers`);
  assert.equal(report.byStatus.get(500) ?? 0, 0);
  assert.ok((report.byStatus.get(200) ?? 0) + (report.byStatus.get(202) ?? 0) > 50, "some cases succeed");
  assert.ok(report.slowestMs < 8000, "nothing hangs past its bound");
  const growth = (heapAfter - heapBefore) / 1024 / 1024;
  assert.ok(growth < 32, `heap grew ${growth.toFixed(1)} MiB over ${CASES} cases`);
});
