// test-scope: once
// The deploy/ recipe on loopback: HAProxy with deploy/haproxy.cfg in front of two API processes, one worker, one
// PostgreSQL. Calls and a bulk job go through the balancer while the processes are restarted in the order
// deploy/README.md gives: no call fails, no item is lost or answered twice, and the MX budget holds throughout.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { livePeersSkip } from "../email/peers.ts";
import { eventually } from "../helpers/eventually.ts";
import { ROOT, type ServerProcess } from "../helpers/process.ts";
import { BUSY, MAX_PER_MX, headersFor, startClusterWorld, submitBulk } from "./cluster_world.ts";

const HAPROXY = "/usr/sbin/haproxy";
const haproxyMissing =
  spawnSync(HAPROXY, ["-v"], { stdio: "ignore" }).status === 0
    ? false
    : "haproxy is not installed (apt-get install -y haproxy): the deploy recipe test is skipped";
const skip = livePeersSkip("the deploy recipe test over live peers (127.0.41.x)") || haproxyMissing;
/** This file's mail servers: loopback addresses no other test file binds. */
const PEERS = { busy: "127.0.41.30", catchAll: "127.0.41.31" };

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const portOf = (server: ServerProcess) => new URL(server.url).port;

/** The recipe's setting (deploy/vrai.env.example) that keeps a stopping API process serving until HAProxy takes it out. */
function recipeUnreadyMs(): string {
  const setting = /^STOP_UNREADY_MS=(\d+)$/m.exec(readFileSync(join(ROOT, "deploy/vrai.env.example"), "utf8"));
  assert.ok(setting, "deploy/vrai.env.example sets STOP_UNREADY_MS");
  return setting[1]!;
}

test("HAProxy, two API processes and a worker: a rolling restart fails no call and loses no item", {
  skip,
  timeout: 120_000,
}, async (t) => {
  const world = await startClusterWorld(t, { peers: PEERS, busyDelayMs: 20 });
  const headers = headersFor(world.key);
  const apiEnv = { STOP_UNREADY_MS: recipeUnreadyMs() };
  let [api1, api2, worker] = await Promise.all([
    world.start("api", apiEnv),
    world.start("api", apiEnv),
    world.start("worker"),
  ]);
  const listen = `127.0.0.1:${await freePort()}`;
  const balancer = spawn(HAPROXY, ["-db", "-f", join(ROOT, "deploy/haproxy.cfg")], {
    env: {
      ...process.env,
      VRAI_LISTEN: listen,
      VRAI_API_1: `127.0.0.1:${portOf(api1)}`,
      VRAI_API_2: `127.0.0.1:${portOf(api2)}`,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let balancerErrors = "";
  balancer.stderr!.on("data", (chunk) => (balancerErrors += chunk));
  // HAProxy's request log (one line a request, with its termination state): shown when a call failed.
  let balancerLog = "";
  balancer.stdout!.on("data", (chunk) => (balancerLog += chunk));
  t.after(() => {
    balancer.kill("SIGKILL");
  });
  const url = `http://${listen}`;
  await eventually("the balancer to reach a ready API process", async () => (await fetch(`${url}/readyz`)).status, {
    until: (s) => s === 200,
    timeoutMs: 20_000,
    describe: (s) => `${s} ${balancerErrors.slice(-300)}`,
  });

  const emails = Array.from({ length: 400 }, (_, i) => `${i % 5 === 4 ? "ghost" : "user"}${i}@${BUSY}`);
  const job_id = await submitBulk(url, world.key, emails);

  // Calls through the balancer the whole time, four at once, on pooled keep-alive connections as most clients keep
  // them. Before STOP_UNREADY_MS, about one run in twenty on a loaded machine lost a call here: HAProxy handed it to
  // the API process as it stopped, which closed the fresh connection unread, and HAProxy then closed the test's
  // connection without an answer (haproxy/haproxy#1109), which fetch does not send again for a POST.
  const outcomes: Array<string | number> = [];
  let calling = true;
  let n = 0;
  const lanes = Array.from({ length: 4 }, async () => {
    while (calling) {
      const i = n++;
      const outcome = await fetch(`${url}/v1/email`, {
        method: "POST",
        headers,
        body: JSON.stringify({ email: `user-call${i}@${BUSY}` }),
      }).then(
        async (r) => {
          const body = (await r.json()) as { verdict?: string };
          return r.status === 200 && body.verdict === "deliverable" ? 200 : `${r.status} ${JSON.stringify(body)}`;
        },
        (error: Error) => {
          const cause = error.cause as { message?: string; socket?: { localPort?: number } } | undefined;
          // The local port names the connection in HAProxy's log (its client address).
          return `failed: ${error.message} (${cause?.message}, from port ${cause?.socket?.localPort} at ${new Date().toISOString()})`;
        },
      );
      outcomes.push(outcome);
    }
  });

  // The rolling restart of deploy/README.md: each API process in turn, back in the balancer before the next, then
  // the worker.
  const restartApi = async (old: ServerProcess) => {
    old.child.kill("SIGTERM");
    assert.equal(await old.exited, 0);
    const fresh = await world.start("api", { ...apiEnv, PORT: portOf(old) });
    await eventually("the restarted process to be ready", async () => (await fetch(`${fresh.url}/readyz`)).status, {
      until: (s) => s === 200,
      timeoutMs: 20_000,
    });
    // HAProxy checks every second and takes a process back after one good check.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    return fresh;
  };
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const beforeRestarts = balancerErrors.length;
  api1 = await restartApi(api1);
  api2 = await restartApi(api2);
  worker.child.kill("SIGTERM");
  assert.equal(await worker.exited, 0);
  worker = await world.start("worker");
  await new Promise((resolve) => setTimeout(resolve, 1000));
  calling = false;
  await Promise.all(lanes);

  const failures = outcomes.filter((o) => o !== 200);
  t.diagnostic(`${outcomes.length} calls through the balancer during the restart, ${failures.length} failed`);
  if (failures.length > 0) t.diagnostic(`HAProxy's log:\n${balancerLog}`);
  assert.deepEqual(failures, [], "no call failed");
  assert.ok(outcomes.length >= 20, `calls kept flowing (${outcomes.length})`);
  // HAProxy took each stopping process out on its 503 (STOP_UNREADY_MS), and never found one gone while it still
  // sent it calls: that would be a check refused at layer 4, its listener closed first.
  const states = balancerErrors.slice(beforeRestarts);
  for (const api of ["api1", "api2"])
    assert.match(states, new RegExp(`${api} is DOWN, reason: Layer7 wrong status, code: 503`));
  assert.doesNotMatch(states, /is DOWN, reason: Layer4/);

  const job = await eventually(
    "the job to complete",
    async () => (await fetch(`${url}/v1/jobs/${job_id}`, { headers })).json(),
    { until: (job) => job.status === "completed", timeoutMs: 60_000, intervalMs: 1000 },
  );
  assert.deepEqual(
    (job.results as Array<{ email: string; verdict: string }>).map((r) => r.email),
    emails,
    "one answer per address, in order",
  );
  for (const r of job.results as Array<{ email: string; verdict: string }>)
    assert.equal(r.verdict, r.email.startsWith("ghost") ? "undeliverable" : "deliverable", r.email);
  assert.equal(await world.charged(), emails.length + outcomes.length, "each address and each call charged once");
  assert.ok(world.busy.maxConcurrent <= MAX_PER_MX, `at most ${MAX_PER_MX} at once, saw ${world.busy.maxConcurrent}`);

  for (const server of [api1, api2, worker]) server.child.kill("SIGTERM");
  await Promise.all([api1.exited, api2.exited, worker.exited]);
});
