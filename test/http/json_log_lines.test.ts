// The server's output is JSON lines only, as a log collector reads it: a bulk job over a dozen domains behind a DNS
// server that never answers (a UDP socket that reads and stays silent) runs in the real server process, under heap
// pressure, and every line it writes, on stdout and on stderr, parses as JSON. Node's listener-leak warning used to
// come out here in plain text: its cause (one abort listener per waiting DNS query on one shared signal) is gone, and
// any process warning is a JSON log line.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { TestContext } from "node:test";
import { openDatabase } from "../../src/store/db.ts";
import { createKey } from "../../src/auth/key_store.ts";
import { startSilentDns } from "../email/peers.ts";
import { testDatabase, urlWithSchema } from "../helpers/database.ts";
import { ROOT, startChildServer, type ServerProcess } from "../helpers/process.ts";
import { eventually } from "../helpers/eventually.ts";

const PROBE_TIMEOUT_MS = 1000;
const DOMAINS = 12;
/** A 1 MB young generation and a full collection twice a second: timers and listeners under a real load's GC. */
const HEAP_PRESSURE = [
  "--max-semi-space-size=1",
  "--expose-gc",
  "--import",
  "data:text/javascript,setInterval(() => globalThis.gc(), 500).unref()",
];

/**
 * The real server on a PostgreSQL schema of its own (which starts in seconds even on a loaded machine, where a new
 * embedded database takes its initdb), with a key for it; killed at the end of the test.
 */
async function serverWithKey(
  t: TestContext,
  env: Record<string, string>,
  nodeFlags: string[],
): Promise<{ server: ServerProcess; key: string }> {
  const place = testDatabase("postgres");
  t.after(() => place.dispose());
  const setup = await openDatabase({ databaseUrl: place.databaseUrl, stateDir: "" }, { schema: place.schema });
  const { key } = await createKey(setup.sql, {
    account: "logs",
    plan: "unmetered",
    mode: "live",
    knownPlans: ["unmetered"],
  });
  await setup.close();
  const server = await startChildServer("src/main.ts", {
    env: {
      BAN_DEPARTEMENTS: "",
      BAN_SOURCE: ROOT,
      DATABASE_URL: urlWithSchema(place.schema!),
      STATE_DIR: place.stateDir,
      ...env,
    },
    nodeFlags,
    readyPath: "/readyz",
    timeoutMs: 150_000,
  });
  t.after(() => {
    if (server.child.exitCode === null) server.child.kill("SIGKILL");
  });
  return { server, key };
}

/** Every complete line written to `stream` from now on. */
function linesOf(stream: NodeJS.ReadableStream): string[] {
  const lines: string[] = [];
  let pending = "";
  stream.on("data", (chunk: Buffer) => {
    pending += chunk.toString();
    const parts = pending.split("\n");
    pending = parts.pop()!;
    lines.push(...parts);
  });
  return lines;
}

function notJson(lines: readonly string[]): string[] {
  return lines.filter((line) => {
    if (line.trim() === "") return false;
    try {
      return typeof JSON.parse(line) !== "object";
    } catch {
      return true;
    }
  });
}

test("a bulk job of a dozen domains behind a silent DNS: every line the server writes is JSON, and none is a listener-leak warning", {
  timeout: 180_000,
}, async (t) => {
  const dns = await startSilentDns();
  t.after(() => dns.stop());
  const env = {
    DNS_SERVERS: dns.server,
    PROBE_TIMEOUT_MS: String(PROBE_TIMEOUT_MS),
    EMAIL_DEADLINE_MS: "2000",
  };
  const { server, key } = await serverWithKey(t, env, HEAP_PRESSURE);
  const stdout = linesOf(server.child.stdout!);
  const stderr = linesOf(server.child.stderr!);
  const headers = { "content-type": "application/json", authorization: `Bearer ${key}` };

  const emails = Array.from({ length: DOMAINS }, (_, i) => `someone@silent-${i}.example.org`);
  const submitted = await fetch(`${server.url}/v1/email/bulk`, {
    method: "POST",
    headers,
    body: JSON.stringify({ emails }),
  });
  assert.equal(submitted.status, 202, await submitted.clone().text());
  // A single call to another silent domain meanwhile, as a signup form would make.
  const single = await fetch(`${server.url}/v1/email`, {
    method: "POST",
    headers,
    body: JSON.stringify({ email: "someone@silent-single.example.org" }),
  });
  assert.equal(single.status, 200, await single.clone().text());
  assert.deepEqual((await single.json()).reasons, ["probe_timeout"]);
  // Every lookup of the job has started and timed out by now (each is bounded by PROBE_TIMEOUT_MS).
  await new Promise((resolve) => setTimeout(resolve, 2 * PROBE_TIMEOUT_MS + 1000));
  // The two request lines (the bulk submission, the single call) and whatever the lookups made the server write.
  await eventually("the server to log the request lines", () => stdout.length, { until: (n) => n >= 2 });
  assert.equal(server.child.exitCode, null, "the server exited");

  assert.deepEqual(notJson(stdout), [], `stdout has lines that are not JSON:\n${stdout.join("\n")}`);
  assert.deepEqual(notJson(stderr), [], `stderr has lines that are not JSON:\n${stderr.join("\n")}`);
  const warnings = [...stdout, ...stderr].filter((line) => /MaxListenersExceeded/.test(line));
  assert.deepEqual(warnings, [], "abort listeners still pile up on a shared signal");
});

test("a process warning is written as a JSON log line, not as node's plain text", { timeout: 180_000 }, async (t) => {
  // A warning emitted while the server runs (on SIGUSR2, sent once it listens): what node prints in plain text.
  const onSignal =
    "data:text/javascript,process.on('SIGUSR2', () => process.emitWarning('something odd', { code: 'VRAI_TEST' }))";
  const { server } = await serverWithKey(t, {}, ["--import", onSignal]);
  const stdout = linesOf(server.child.stdout!);
  const stderr = linesOf(server.child.stderr!);
  server.child.kill("SIGUSR2");
  const line = await eventually("the warning's log line", () => stdout.find((l) => l.includes("something odd")), {
    until: (found) => found !== undefined,
    timeoutMs: 10_000,
  });
  const fields = JSON.parse(line!);
  assert.equal(fields.level, "warn");
  assert.equal(fields.msg, "process warning");
  assert.equal(fields.code, "VRAI_TEST");
  assert.equal(fields.warning, "something odd");
  assert.deepEqual(notJson([...stdout, ...stderr]), [], [...stdout, ...stderr].join("\n"));
});
