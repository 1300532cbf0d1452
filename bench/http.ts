// HTTP stack benches, each against the bare node:http baseline measured in the same run:
//   http_baseline     bare handler
//   email_testmode    POST /v1/email with a test key (auth, rate limit, validation, test answer)
//   address_testmode  POST /v1/address with a test key
//   email_offline     POST /v1/email, live unmetered key, answers settled before DNS (syntax, typo, disposable)
//   metered           the same with a live metered key: quota charged in the database on every call
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { formatLoad, load } from "./lib/load.ts";
import { createKeyWithCli, startChildServer } from "../test/helpers/process.ts";
import { tempDir } from "../test/helpers/temp_dir.ts";
import { measureBaseline } from "./lib/baseline.ts";

const durationMs = Number(process.env.BENCH_DURATION_MS ?? 3000);

const baseline = await measureBaseline(
  {
    path: "/v1/email",
    body: JSON.stringify({ email: "deliverable@vrai.test" }),
    headers: { "content-type": "application/json", authorization: "Bearer vrai_test_0123456789abcdefghijkl" },
  },
  durationMs,
);
console.log(formatLoad("http_baseline", baseline));

const state = tempDir("vrai-bench-");
const plansFile = join(state.path, "plans.json");
const rate = { per_minute: 100_000_000, burst: 0 };
writeFileSync(
  plansFile,
  JSON.stringify({
    plans: {
      bench_metered: { quota: { email: 1_000_000_000, address: 1_000_000_000 }, rate, batch_max: 5000 },
      bench_unmetered: { quota: null, rate, batch_max: 5000 },
    },
  }),
);
const env = {
  STATE_DIR: join(state.path, "state"),
  PLANS_FILE: plansFile,
  BAN_DEPARTEMENTS: "",
  BAN_SOURCE: state.path,
};
const api = await startChildServer("src/main.ts", { env, keepOutput: false });
try {
  const testKey = await createKeyWithCli(env, [
    "--account",
    "bench-test",
    "--plan",
    "bench_unmetered",
    "--mode",
    "test",
  ]);
  const liveKey = await createKeyWithCli(env, ["--account", "bench-live", "--plan", "bench_unmetered"]);
  const meteredKey = await createKeyWithCli(env, ["--account", "bench-metered", "--plan", "bench_metered"]);
  const call = (key: string, path: string, body: string | string[]) => ({
    url: api.url,
    method: "POST" as const,
    path,
    body,
    durationMs,
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    serverPid: api.child.pid,
  });
  console.log(
    formatLoad(
      "email_testmode",
      await load(call(testKey, "/v1/email", JSON.stringify({ email: "deliverable@vrai.test" }))),
      baseline,
    ),
  );
  console.log(
    formatLoad(
      "address_testmode",
      await load(call(testKey, "/v1/address", JSON.stringify({ line: "1 Rue Deliverable, 00000 Testville" }))),
      baseline,
    ),
  );
  // Settled before any DNS query: malformed, a typo of a popular domain, a disposable domain.
  const offline = ["not-an-email", "jane@gmial.com", "jane@mailinator.com", "a..b@example.com"].map((email) =>
    JSON.stringify({ email }),
  );
  console.log(formatLoad("email_offline", await load(call(liveKey, "/v1/email", offline)), baseline));
  console.log(formatLoad("metered", await load(call(meteredKey, "/v1/email", offline)), baseline));
} finally {
  await api.stop();
  state.remove();
}
