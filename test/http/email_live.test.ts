// POST /v1/email with a live key over real sockets: dnsmasq answers the MX records, smtp-server peers on 127.0.6.x:25
// play the mailboxes. The scale-out roles are covered too: an API process and a worker process sharing PostgreSQL.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer } from "../helpers/server.ts";
import { createEmailEngine } from "../../src/email/engine.ts";
import { livePeersSkip, startDnsmasq, startSmtpPeer } from "../email/peers.ts";
import { openDatabase } from "../../src/store/db.ts";
import { createKey } from "../../src/auth/key_store.ts";
import { testDatabase, urlWithSchema } from "../helpers/database.ts";
import { readyzOk, startServerProcess } from "../helpers/process.ts";
import { eventually } from "../helpers/eventually.ts";

const skip = livePeersSkip("HTTP tests over live peers");

async function peers(t: { after(fn: () => unknown): void }) {
  const dns = await startDnsmasq({
    zones: ["vrai-http.net"],
    mx: [
      { domain: "shop.vrai-http.net", exchange: "mx.shop.vrai-http.net", priority: 10 },
      { domain: "any.vrai-http.net", exchange: "mx.any.vrai-http.net", priority: 10 },
    ],
    hosts: [
      { name: "mx.shop.vrai-http.net", address: "127.0.6.10" },
      { name: "mx.any.vrai-http.net", address: "127.0.6.11" },
    ],
  });
  const shop = await startSmtpPeer({ host: "127.0.6.10", mailboxes: ["jane", "john"] });
  const any = await startSmtpPeer({ host: "127.0.6.11", mailboxes: ["*"] });
  t.after(async () => {
    await shop.stop();
    await any.stop();
    await dns.stop();
  });
  return { dns, shop, any };
}

test("POST /v1/email probes real DNS and SMTP peers on loopback", { skip }, async (t) => {
  const { dns, shop } = await peers(t);
  const env = { DNS_SERVERS: dns.server, PROBE_ALLOW_CIDRS: "127.0.0.0/8", PROBE_TIMEOUT_MS: "3000" };
  const server = await startTestServer(t, {
    env,
    engines: async (_core, config) => ({ email: createEmailEngine(config) }),
  });
  const key = await server.key({ plan: "unmetered" });
  const verify = async (email: string) => (await server.post("/v1/email", key, { email })).json();

  const jane = await verify("jane@shop.vrai-http.net");
  assert.equal(jane.verdict, "deliverable");
  assert.deepEqual(Object.values(jane.checks), Array(8).fill("pass"));
  assert.deepEqual(jane.flags, { disposable: false, role: false, catch_all: false });
  assert.ok(shop.recipients.includes("jane@shop.vrai-http.net"));

  const nobody = await verify("ghost.user@shop.vrai-http.net");
  assert.deepEqual(
    [nobody.verdict, nobody.reasons, nobody.checks.smtp, nobody.checks.catch_all],
    ["undeliverable", ["mailbox_not_found"], "fail", "skipped"],
  );

  const catchAll = await verify("pat.smith@any.vrai-http.net");
  assert.deepEqual(
    [catchAll.verdict, catchAll.reasons, catchAll.flags.catch_all],
    ["unknown", ["catch_all_domain"], true],
  );

  const nxdomain = await verify("jane@missing.vrai-http.net");
  assert.deepEqual([nxdomain.verdict, nxdomain.reasons], ["undeliverable", ["domain_does_not_resolve"]]);

  // The same loopback MX is refused without PROBE_ALLOW_CIDRS: no probing of internal networks.
  const guarded = await startTestServer(t, {
    env: { DNS_SERVERS: dns.server },
    engines: async (_core, config) => ({ email: createEmailEngine(config) }),
  });
  const guardedKey = await guarded.key({ plan: "unmetered" });
  const before = shop.connections;
  const refused = await (await guarded.post("/v1/email", guardedKey, { email: "jane@shop.vrai-http.net" })).json();
  assert.deepEqual([refused.verdict, refused.reasons], ["unknown", ["probe_unavailable"]]);
  assert.equal(shop.connections, before, "no connection was made");
});

test("ROLE=api and ROLE=worker processes share one PostgreSQL: the API accepts a job, the worker completes it", {
  skip,
}, async (t) => {
  const { dns } = await peers(t);
  const db = testDatabase("postgres");
  t.after(() => db.dispose());
  const setup = await openDatabase({ databaseUrl: db.databaseUrl, stateDir: "" }, { schema: db.schema });
  const { key } = await createKey(setup.sql, { account: "scale", plan: "unmetered", knownPlans: ["unmetered"] });
  await setup.close();
  const env = {
    DATABASE_URL: urlWithSchema(db.schema!),
    DNS_SERVERS: dns.server,
    PROBE_ALLOW_CIDRS: "127.0.0.0/8",
    PROBE_TIMEOUT_MS: "3000",
  };
  const api = await startServerProcess(t, { ...env, ROLE: "api" });
  const worker = await startServerProcess(t, { ...env, ROLE: "worker" });
  // The API listens before its database is ready and answers 503 meanwhile.
  await readyzOk(api.url);
  const emails = ["jane@shop.vrai-http.net", "nobody@shop.vrai-http.net", "x@any.vrai-http.net", "bad@@address"];
  const submitted = await fetch(`${api.url}/v1/email/bulk`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify({ emails }),
  });
  assert.equal(submitted.status, 202);
  // The Location's origin is PUBLIC_URL, which by default names the configured port (0 here), not the one the
  // process got: its path is read against the process's own URL.
  const poll = new URL(new URL(submitted.headers.get("location")!).pathname, api.url);
  const job = await eventually(
    "the worker to complete the job",
    async () => (await fetch(poll, { headers: { authorization: `Bearer ${key}` } })).json(),
    { until: (job) => job.status === "completed", timeoutMs: 20_000, intervalMs: 200 },
  );
  assert.equal(job.status, "completed", JSON.stringify(job));
  assert.deepEqual(
    job.results.map((r: { email: string; verdict: string }) => [r.email, r.verdict]),
    [
      ["jane@shop.vrai-http.net", "deliverable"],
      ["nobody@shop.vrai-http.net", "undeliverable"],
      ["x@any.vrai-http.net", "unknown"],
      ["bad@@address", "undeliverable"],
    ],
  );
  worker.child.kill("SIGTERM");
  api.child.kill("SIGTERM");
  assert.deepEqual(await Promise.all([worker.exited, api.exited]), [0, 0]);
});
