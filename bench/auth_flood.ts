// auth_flood: a legitimate caller's latency (POST /v1/email, test key, from 127.0.0.1) alone, then beside a flood of
// random well-formed keys at a fixed rate from 16 other addresses (127.0.1.x), in one run; then the same flood against
// a server without the failed-authentication limit (AUTH_FAILURES_PER_MINUTE=0), where every guess is a hash and a
// key lookup. One line: the caller beside the limited flood, the caller alone (alone_*), the flood's answered rate and
// answers (flood_*), the caller beside the unlimited flood (unlimited_*). And a caller behind the flood's own address
// (a shared NAT, nat_*): a valid key it never used before, called one call at a time during the limited flood: the
// share of its calls answered 200, and their latency.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Pool } from "undici";
import { generateApiKey } from "../src/auth/api_key.ts";
import { formatLoad, load, type LoadOptions } from "./lib/load.ts";
import { createKeyWithCli, startChildServer, type ServerProcess } from "../test/helpers/process.ts";
import { tempDir } from "../test/helpers/temp_dir.ts";

const durationMs = Number(process.env.BENCH_DURATION_MS ?? 3000);
const floodAddresses = 16;
/** Guessed keys a second: below what the server without the limit can look up on a small machine. */
const floodRate = Number(process.env.BENCH_FLOOD_RATE ?? 250);
/** AUTH_FAILURES_PER_MINUTE's default, which the limited server runs with. */
const allowancePerAddress = 30;
const floodLeadMs = Math.ceil(((floodAddresses * allowancePerAddress) / floodRate) * 1000) + 500;
const state = tempDir("vrai-bench-authflood-");
const plansFile = join(state.path, "plans.json");
const rate = { per_minute: 100_000_000, burst: 0 };
writeFileSync(plansFile, JSON.stringify({ plans: { bench: { quota: null, rate, batch_max: 5000 } } }));
const body = JSON.stringify({ email: "deliverable@vrai.test" });

interface Flood {
  /** Counts from now on only (the answers of the measured window). */
  mark(): void;
  stop(): Promise<{ requests: number; reqPerSec: number; byStatus: Map<number, number> }>;
}

/**
 * Guessed keys at a fixed rate (open loop: the attacker does not wait for answers, so both servers get the same
 * flood), round-robin over `floodAddresses` source addresses; at most 256 in flight.
 */
function flood(url: string): Flood {
  const pools = Array.from(
    { length: floodAddresses },
    (_, i) => new Pool(url, { connections: 4, pipelining: 1, localAddress: `127.0.1.${i + 1}` }),
  );
  const byStatus = new Map<number, number>();
  const inFlight = new Set<Promise<void>>();
  let requests = 0;
  let sent = 0;
  const started = performance.now();
  let counted = started;
  const send = () => {
    const pool = pools[sent++ % pools.length];
    const done = pool
      .request({
        method: "POST",
        path: "/v1/email",
        headers: { "content-type": "application/json", authorization: `Bearer ${generateApiKey("live")}` },
        body,
      })
      .then(async (response) => {
        await response.body.dump();
        requests++;
        byStatus.set(response.statusCode, (byStatus.get(response.statusCode) ?? 0) + 1);
      })
      .catch(() => {
        byStatus.set(0, (byStatus.get(0) ?? 0) + 1);
      })
      .finally(() => inFlight.delete(done));
    inFlight.add(done);
  };
  const timer = setInterval(() => {
    const due = Math.floor(((performance.now() - started) / 1000) * floodRate) - sent;
    for (let i = 0; i < due && inFlight.size < 256; i++) send();
  }, 5);
  return {
    mark() {
      counted = performance.now();
      requests = 0;
      byStatus.clear();
    },
    async stop() {
      clearInterval(timer);
      await Promise.all(inFlight);
      const elapsed = performance.now() - counted;
      await Promise.all(pools.map((pool) => pool.close()));
      return { requests, reqPerSec: (requests / elapsed) * 1000, byStatus };
    },
  };
}

async function serverWith(
  name: string,
  extra: Record<string, string>,
): Promise<{ api: ServerProcess; call: LoadOptions; natKey: string }> {
  const env = {
    STATE_DIR: join(state.path, name),
    PLANS_FILE: plansFile,
    BAN_DEPARTEMENTS: "",
    BAN_SOURCE: state.path,
    ...extra,
  };
  // A new embedded database takes its initdb first: slow on a loaded machine.
  const api = await startChildServer("src/main.ts", { env, keepOutput: false, timeoutMs: 240_000 });
  const key = await createKeyWithCli(env, ["--account", "bench", "--mode", "test", "--plan", "bench"]);
  // Another account's key, first used from behind the flood's address.
  const natKey = await createKeyWithCli(env, ["--account", "nat", "--mode", "test", "--plan", "bench"]);
  const call: LoadOptions = {
    url: api.url,
    method: "POST",
    path: "/v1/email",
    body,
    durationMs,
    connections: 8,
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
  };
  return { api, call, natKey };
}

/** `calls` calls one after the other from the flood's first address with `key`: statuses and latencies. */
async function behindNat(call: LoadOptions, key: string, calls: number) {
  const pool = new Pool(call.url, { connections: 1, pipelining: 1, localAddress: "127.0.1.1" });
  const byStatus = new Map<number, number>();
  const latencies: number[] = [];
  try {
    for (let i = 0; i < calls; i++) {
      const started = performance.now();
      const response = await pool.request({
        method: "POST",
        path: "/v1/email",
        headers: { ...call.headers, authorization: `Bearer ${key}` },
        body,
      });
      await response.body.dump();
      latencies.push(performance.now() - started);
      byStatus.set(response.statusCode, (byStatus.get(response.statusCode) ?? 0) + 1);
    }
  } finally {
    await pool.close();
  }
  latencies.sort((a, b) => a - b);
  return { byStatus, p50: latencies[Math.floor(latencies.length / 2)] ?? 0 };
}

async function besideFlood(call: LoadOptions, natKey?: string) {
  const attack = flood(call.url);
  // Long enough for every flooding address to spend its allowance: what a lasting flood looks like.
  await new Promise((r) => setTimeout(r, floodLeadMs));
  attack.mark();
  const result = await load(call);
  const nat = natKey === undefined ? undefined : await behindNat(call, natKey, 50);
  return { result, nat, flood: await attack.stop() };
}

const servers: ServerProcess[] = [];
try {
  const limited = await serverWith("limited", {});
  servers.push(limited.api);
  const alone = await load(limited.call);
  const beside = await besideFlood(limited.call, limited.natKey);
  await limited.api.stop();
  const unlimited = await serverWith("unlimited", { AUTH_FAILURES_PER_MINUTE: "0" });
  servers.push(unlimited.api);
  const open = await besideFlood(unlimited.call);
  const share = (status: number) =>
    `${(((beside.flood.byStatus.get(status) ?? 0) / Math.max(1, beside.flood.requests)) * 100).toFixed(1)}%`;
  console.log(
    formatLoad("auth_flood", beside.result, undefined, {
      alone_p50: `${alone.p50.toFixed(2)}ms`,
      alone_p99: `${alone.p99.toFixed(2)}ms`,
      flood_addresses: floodAddresses,
      flood_rate: floodRate,
      flood_req_s: Math.round(beside.flood.reqPerSec),
      flood_401: share(401),
      flood_429: share(429),
      unlimited_req_s: Math.round(open.result.reqPerSec),
      unlimited_p50: `${open.result.p50.toFixed(2)}ms`,
      unlimited_p99: `${open.result.p99.toFixed(2)}ms`,
      unlimited_flood_req_s: Math.round(open.flood.reqPerSec),
      nat_200: `${(((beside.nat?.byStatus.get(200) ?? 0) / 50) * 100).toFixed(0)}%`,
      nat_429: `${(((beside.nat?.byStatus.get(429) ?? 0) / 50) * 100).toFixed(0)}%`,
      nat_p50: `${(beside.nat?.p50 ?? 0).toFixed(2)}ms`,
    }),
  );
} finally {
  for (const api of servers) await api.stop();
  state.remove();
}
