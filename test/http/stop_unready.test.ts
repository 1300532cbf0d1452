// A process behind a load balancer stops in two steps when STOP_UNREADY_MS is set: /readyz answers 503 at once while
// calls are still answered, so that the balancer takes the process out before its listener closes; then the usual
// stop, the whole within STOP_DRAIN_MS. Without it, the balancer could hand a call to a connection the stopping process
// then closed unread (docs/decisions.md, "Deployment recipe").
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadConfig } from "../../src/config.ts";
import { testDatabase } from "../helpers/database.ts";
import { eventually } from "../helpers/eventually.ts";
import { createKeyWithCli, startServerProcess } from "../helpers/process.ts";

const STOP_UNREADY_MS = 2000;
const STOP_DRAIN_MS = 6000;
/** What the exit may take beyond the drain time on a loaded machine (signal delivery, c8 writing coverage at exit). */
const SLACK_MS = 2500;

test("with STOP_UNREADY_MS a stopping server answers 503 on /readyz and goes on answering calls, then exits 0 within STOP_DRAIN_MS", async (t) => {
  const place = testDatabase("embedded");
  t.after(() => place.dispose());
  const env = {
    STATE_DIR: place.stateDir,
    STOP_UNREADY_MS: String(STOP_UNREADY_MS),
    STOP_DRAIN_MS: String(STOP_DRAIN_MS),
  };
  const server = await startServerProcess(t, env);
  const key = await createKeyWithCli(env, ["--account", "acme", "--mode", "test"]);
  const call = () =>
    fetch(`${server.url}/v1/email`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify({ email: "deliverable@vrai.test" }),
    });
  await eventually("the server to be ready", async () => (await fetch(`${server.url}/readyz`)).status, {
    until: (status) => status === 200,
    timeoutMs: 30_000,
  });
  assert.equal((await call()).status, 200);

  const began = Date.now();
  server.child.kill("SIGTERM");
  const ready = await eventually(
    "/readyz to say the process is stopping",
    async () => {
      const response = await fetch(`${server.url}/readyz`);
      return { status: response.status, body: (await response.json()) as { status: string; checks: object } };
    },
    { until: (r) => r.status === 503, timeoutMs: STOP_UNREADY_MS / 2 },
  );
  assert.equal(ready.body.status, "not ready");
  assert.match(String((ready.body.checks as { process?: string }).process), /^stopping/);
  // Taken out of the balancer, still serving: a call sent meanwhile is answered as before.
  const during = await call();
  assert.equal(during.status, 200, await during.clone().text());
  assert.equal(((await during.json()) as { verdict: string }).verdict, "deliverable");
  const servedFor = Date.now() - began;
  assert.ok(servedFor < STOP_UNREADY_MS, `the call was answered within the unready time (${servedFor} ms)`);

  assert.equal(await server.exited, 0);
  const took = Date.now() - began;
  assert.ok(took >= STOP_UNREADY_MS, `the listener stayed open for STOP_UNREADY_MS (exited after ${took} ms)`);
  assert.ok(took <= STOP_DRAIN_MS + SLACK_MS, `exited within STOP_DRAIN_MS (${took} ms)`);
  const stopping = server
    .output()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { msg: string; unready_ms?: number })
    .find((line) => line.msg === "stopping");
  assert.equal(stopping?.unready_ms, STOP_UNREADY_MS);
});

test("STOP_UNREADY_MS must leave part of STOP_DRAIN_MS to the rest of the stop", () => {
  assert.equal(
    loadConfig({}).stopUnreadyMs,
    0,
    "off unless set: a process that is not behind a balancer stops at once",
  );
  assert.equal(loadConfig({ STOP_UNREADY_MS: "3000" }).stopUnreadyMs, 3000);
  assert.throws(
    () => loadConfig({ STOP_UNREADY_MS: "9950", STOP_DRAIN_MS: "10000" }),
    /STOP_UNREADY_MS \(9950\) must leave at least 100 ms of STOP_DRAIN_MS \(10000\)/,
  );
  assert.throws(() => loadConfig({ STOP_UNREADY_MS: "-1" }), /STOP_UNREADY_MS must be an integer >= 0/);
});
