// slowloris: a well-behaved client's latency (POST /v1/email, test key) alone, then beside 200 slow connections (100
// trickling their headers a line a second, 100 their body a byte a second, each reopened as soon as it is cut off),
// in one run. Also how long the server let a slow connection live (median, and how many were cut in the window:
// the header limit cuts within it; the request limit, 30 s by default, may not).
import { writeFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { formatLoad, load } from "./lib/load.ts";
import { createKeyWithCli, startChildServer } from "../test/helpers/process.ts";
import { tempDir } from "../test/helpers/temp_dir.ts";

const durationMs = Number(process.env.BENCH_DURATION_MS ?? 3000);
const slowCount = 200;
const state = tempDir("vrai-bench-slow-");
const plansFile = join(state.path, "plans.json");
const rate = { per_minute: 100_000_000, burst: 0 };
writeFileSync(plansFile, JSON.stringify({ plans: { bench: { quota: null, rate, batch_max: 5000 } } }));
const env = {
  STATE_DIR: join(state.path, "state"),
  PLANS_FILE: plansFile,
  BAN_DEPARTEMENTS: "",
  BAN_SOURCE: state.path,
};
const api = await startChildServer("src/main.ts", { env, keepOutput: false });
const { hostname, port } = new URL(api.url);
const sockets = new Set<Socket>();
const held = { headers: [] as number[], body: [] as number[] };
let running = true;

function slowClient(kind: "headers" | "body"): void {
  if (!running) return;
  const opened = performance.now();
  const socket = connect(Number(port), hostname);
  sockets.add(socket);
  let step = 0;
  const timer = setInterval(() => {
    if (kind === "headers") socket.write(step === 0 ? "POST /v1/email HTTP/1.1\r\n" : `X-Slow-${step}: 1\r\n`);
    else if (step === 0) {
      socket.write(
        "POST /v1/email HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n",
      );
    } else socket.write("{");
    step++;
  }, 1000);
  socket.on("error", () => {});
  socket.on("close", () => {
    clearInterval(timer);
    sockets.delete(socket);
    if (!running) return;
    held[kind].push(performance.now() - opened);
    slowClient(kind); // an attacker reconnects at once
  });
}

try {
  const key = await createKeyWithCli(env, ["--account", "bench", "--mode", "test", "--plan", "bench"]);
  const call = {
    url: api.url,
    method: "POST" as const,
    path: "/v1/email",
    body: JSON.stringify({ email: "deliverable@vrai.test" }),
    durationMs,
    connections: 8,
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
  };
  const alone = await load(call);
  for (let i = 0; i < slowCount; i++) slowClient(i % 2 === 0 ? "headers" : "body");
  await new Promise((r) => setTimeout(r, 1000));
  // Long enough for the header limit (10 s by default) to cut the first wave of slow connections.
  const beside = await load({ ...call, durationMs: Math.max(durationMs, 15_000) });
  running = false;
  for (const socket of sockets) socket.destroy();
  const median = (values: number[]) =>
    values.length === 0
      ? "none"
      : `${(values.sort((a, b) => a - b)[Math.floor(values.length / 2)] / 1000).toFixed(1)}s`;
  console.log(
    formatLoad("slowloris", beside, undefined, {
      slow: slowCount,
      alone_p50: `${alone.p50.toFixed(2)}ms`,
      alone_p99: `${alone.p99.toFixed(2)}ms`,
      cut_headers: median(held.headers),
      cut_headers_n: held.headers.length,
      cut_body: median(held.body),
      cut_body_n: held.body.length,
    }),
  );
} finally {
  running = false;
  for (const socket of sockets) socket.destroy();
  await api.stop();
  state.remove();
}
