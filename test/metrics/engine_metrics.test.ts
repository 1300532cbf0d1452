// What an operator scraping GET /metrics sees of the engine's work: `npm start`'s program (src/main.ts, ROLE=all on
// PostgreSQL) against dnsmasq and SMTP peers on 127.0.61.x:25. SMTP dialogues and DNS queries by outcome,
// the per-MX connection gauges while probes are in flight, and the bulk counters of a job. Lease expiries are counted
// by the job runner's store, driven here with a dead worker's claim on a real database.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { TestContext } from "node:test";
import { livePeersSkip, startDnsmasq, startFastSmtpPeer, startSmtpPeer } from "../email/peers.ts";
import { readyzOk, startServerProcess, type ServerProcess } from "../helpers/process.ts";
import { eventually } from "../helpers/eventually.ts";
import { createAccount, openTestDatabase, testDatabase, urlWithSchema } from "../helpers/database.ts";
import { createKey } from "../../src/auth/key_store.ts";
import { openDatabase } from "../../src/store/db.ts";
import { createJobStore } from "../../src/jobs/job_store.ts";
import { startJobRunner } from "../../src/jobs/runner.ts";
import { silentLogger } from "../../src/log.ts";
import { createMetrics } from "../../src/metrics/metrics.ts";
import { createFakeVerifier } from "../jobs/fake_verifier.ts";
import { waitForJob } from "../jobs/wait_for_job.ts";
import { parseMetrics, sampleSum, type Sample } from "./scrape.ts";

const skip = livePeersSkip("engine metrics over live peers (127.0.61.x)");

const SHOP_MX = "mx.shop.vrai-metrics.net";
const SLOW_MX = "mx.slow.vrai-metrics.net";
const BULK_MX = "mx.bulk.vrai-metrics.net";
/** The slow peer holds every RCPT TO reply this long: dialogues are in flight long enough to be scraped. */
const RCPT_DELAY_MS = 1000;
const PROBE_TIMEOUT_MS = 5000;

interface Live {
  server: ServerProcess;
  key: string;
}

/** dnsmasq and three SMTP peers, then the real program pointed at them, with an unmetered live key. */
async function startLive(t: TestContext): Promise<Live> {
  const dns = await startDnsmasq({
    zones: ["vrai-metrics.net"],
    mx: [
      { domain: "shop.vrai-metrics.net", exchange: SHOP_MX, priority: 10 },
      { domain: "slow.vrai-metrics.net", exchange: SLOW_MX, priority: 10 },
      { domain: "bulk.vrai-metrics.net", exchange: BULK_MX, priority: 10 },
    ],
    hosts: [
      { name: SHOP_MX, address: "127.0.61.10" },
      { name: SLOW_MX, address: "127.0.61.11" },
      { name: BULK_MX, address: "127.0.61.12" },
    ],
  });
  const shop = await startSmtpPeer({ host: "127.0.61.10", mailboxes: ["jane"] });
  const slow = await startFastSmtpPeer({ host: "127.0.61.11", mailboxes: [], rcptDelayMs: RCPT_DELAY_MS });
  const bulk = await startSmtpPeer({ host: "127.0.61.12", mailboxes: ["ann", "bob", "cat"] });
  t.after(async () => {
    await shop.stop();
    await slow.stop();
    await bulk.stop();
    await dns.stop();
  });
  // PostgreSQL rather than the embedded database: the program starts in a second, not ten.
  const db = testDatabase("postgres");
  const setup = await openDatabase({ databaseUrl: db.databaseUrl, stateDir: "" }, { schema: db.schema });
  const { key } = await createKey(setup.sql, { account: "metrics", plan: "unmetered", knownPlans: ["unmetered"] });
  await setup.close();
  const server = await startServerProcess(t, {
    DATABASE_URL: urlWithSchema(db.schema!),
    DNS_SERVERS: dns.server,
    PROBE_ALLOW_CIDRS: "127.0.0.0/8",
    PROBE_TIMEOUT_MS: String(PROBE_TIMEOUT_MS),
  });
  t.after(async () => {
    await server.stop();
    await db.dispose();
  });
  // The program listens before its database is ready, and answers 503 meanwhile.
  await readyzOk(server.url, 30_000);
  return { server, key };
}

async function scrape(server: ServerProcess): Promise<Sample[]> {
  const response = await fetch(`${server.url}/metrics`);
  assert.equal(response.status, 200);
  return parseMetrics(await response.text());
}

function post(live: Live, path: string, body: unknown): Promise<Response> {
  return fetch(live.server.url + path, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${live.key}` },
    body: JSON.stringify(body),
  });
}

async function verify(live: Live, email: string): Promise<{ verdict: string; reasons: string[] }> {
  const response = await post(live, "/v1/email", { email });
  assert.equal(response.status, 200);
  return response.json();
}

/** How far each sample moved between two scrapes. */
function mover(before: Sample[], after: Sample[]) {
  return (name: string, labels: Record<string, string> = {}) =>
    sampleSum(after, name, labels) - sampleSum(before, name, labels);
}

const DIALOGUES = "vrai_smtp_dialogue_duration_seconds";
const DNS = "vrai_dns_lookup_duration_seconds";

test("a live verification moves the SMTP dialogue histogram by its outcome and the DNS histogram by query", {
  skip,
}, async (t) => {
  const live = await startLive(t);

  let before = await scrape(live.server);
  const jane = await verify(live, "jane@shop.vrai-metrics.net");
  assert.deepEqual([jane.verdict, jane.reasons], ["deliverable", []]);
  let after = await scrape(live.server);
  let moved = mover(before, after);
  // One probe: the catch-all recipient is asked on the same session, so it is not a dialogue of its own.
  assert.equal(moved(`${DIALOGUES}_count`, { outcome: "accepted" }), 1);
  assert.equal(moved(`${DIALOGUES}_bucket`, { outcome: "accepted", le: "+Inf" }), 1);
  assert.equal(moved(`${DIALOGUES}_count`), 1, "no dialogue under another outcome");
  const seconds = moved(`${DIALOGUES}_sum`, { outcome: "accepted" });
  assert.ok(seconds > 0 && seconds < PROBE_TIMEOUT_MS / 1000, `dialogue time in seconds: ${seconds}`);
  // The domain's MX query, then the address query of its one MX host.
  assert.equal(moved(`${DNS}_count`, { type: "mx", outcome: "ok" }), 1);
  assert.equal(moved(`${DNS}_count`, { type: "address", outcome: "ok" }), 1);
  assert.equal(moved(`${DNS}_count`), 2, "no other DNS query");
  assert.equal(moved(`${DNS}_bucket`, { le: "+Inf" }), 2);
  assert.equal(moved("vrai_email_answers_total", { verdict: "deliverable", mode: "live" }), 1);

  // A refused recipient at the same domain: its own outcome, and no DNS query (the MX answer is cached).
  before = after;
  const ghost = await verify(live, "ghost.user@shop.vrai-metrics.net");
  assert.deepEqual([ghost.verdict, ghost.reasons], ["undeliverable", ["mailbox_not_found"]]);
  after = await scrape(live.server);
  moved = mover(before, after);
  assert.equal(moved(`${DIALOGUES}_count`, { outcome: "mailbox_not_found" }), 1);
  assert.equal(moved(`${DIALOGUES}_count`, { outcome: "accepted" }), 0);
  assert.equal(moved(`${DNS}_count`), 0);
  assert.equal(moved("vrai_email_answer_reasons_total", { reason: "mailbox_not_found", mode: "live" }), 1);

  // A name that does not exist: the MX query is counted under the DNS error code, and no dialogue starts.
  before = after;
  const missing = await verify(live, "jane@missing.vrai-metrics.net");
  assert.deepEqual([missing.verdict, missing.reasons], ["undeliverable", ["domain_does_not_resolve"]]);
  after = await scrape(live.server);
  moved = mover(before, after);
  assert.equal(moved(`${DNS}_count`, { type: "mx", outcome: "DNS_NXDOMAIN" }), 1);
  assert.equal(moved(`${DNS}_count`), 1);
  assert.equal(moved(`${DIALOGUES}_count`), 0);
});

test("the per-MX gauges show the slow MX's busy connections and waiting probes in flight, and drop it after", {
  skip,
}, async (t) => {
  const live = await startLive(t);
  const series = (samples: Sample[]) => ({
    busy: sampleSum(samples, "vrai_smtp_mx_connections", { mx: SLOW_MX, state: "busy" }),
    idle: sampleSum(samples, "vrai_smtp_mx_connections", { mx: SLOW_MX, state: "idle" }),
    waiting: sampleSum(samples, "vrai_smtp_mx_waiting", { mx: SLOW_MX }),
    totalBusy: sampleSum(samples, "vrai_smtp_connections", { state: "busy" }),
    totalWaiting: sampleSum(samples, "vrai_smtp_waiting"),
    mxSeries: samples.filter((s) => s.labels.mx === SLOW_MX).length,
  });
  const before = await scrape(live.server);
  assert.equal(series(before).mxSeries, 0, "no series for an MX not probed yet");

  // Four single calls at once against an MX that holds each RCPT reply: the engine opens 3 connections per MX at
  // most (src/email/engine.ts), so 3 dialogues are busy and the fourth call waits for a slot.
  const emails = ["a", "b", "c", "d"].map((local) => `${local}@slow.vrai-metrics.net`);
  const answers = Promise.all(emails.map((email) => verify(live, email)));
  const inFlight = await eventually(
    "3 busy connections and 1 waiting probe at the slow MX",
    async () => series(await scrape(live.server)),
    { until: (s) => s.busy === 3 && s.waiting === 1, timeoutMs: 10_000 },
  );
  assert.deepEqual(inFlight, { busy: 3, idle: 0, waiting: 1, totalBusy: 3, totalWaiting: 1, mxSeries: 3 });

  for (const answer of await answers)
    assert.deepEqual([answer.verdict, answer.reasons], ["undeliverable", ["mailbox_not_found"]]);
  // Single calls QUIT their connection when done: once every one is closed, the host's series disappear.
  const quiet = await eventually("the slow MX's series to disappear", async () => series(await scrape(live.server)), {
    until: (s) => s.mxSeries === 0,
    timeoutMs: 10_000,
  });
  assert.deepEqual(quiet, { busy: 0, idle: 0, waiting: 0, totalBusy: 0, totalWaiting: 0, mxSeries: 0 });

  const moved = mover(before, await scrape(live.server));
  assert.equal(moved(`${DIALOGUES}_count`, { outcome: "mailbox_not_found" }), 4);
  // Each dialogue waited RCPT_DELAY_MS for its reply (the fourth waited for a slot too): recorded in seconds.
  const seconds = moved(`${DIALOGUES}_sum`, { outcome: "mailbox_not_found" });
  assert.ok(seconds >= (4 * RCPT_DELAY_MS) / 1000 && seconds < (4 * PROBE_TIMEOUT_MS) / 1000, `${seconds} s`);
  assert.equal(moved(`${DIALOGUES}_bucket`, { outcome: "mailbox_not_found", le: "0.5" }), 0);
  // The four calls shared one MX lookup.
  assert.equal(moved(`${DNS}_count`, { type: "mx" }), 1);
});

test("a bulk job moves the queued, claimed and done counters by its deduplicated items", { skip }, async (t) => {
  const live = await startLive(t);
  const emails = ["ann", "bob", "cat", "ghost1", "ghost2", "ann"].map((local) => `${local}@bulk.vrai-metrics.net`);
  const before = await scrape(live.server);
  const submitted = await post(live, "/v1/email/bulk", { emails });
  assert.equal(submitted.status, 202);
  const { job_id, total } = await submitted.json();
  assert.equal(total, 5, "the repeated address is kept once");
  const headers = { authorization: `Bearer ${live.key}` };
  const job = await eventually(
    "the job to complete",
    async () => (await fetch(`${live.server.url}/v1/jobs/${job_id}`, { headers })).json(),
    { until: (job) => job.status === "completed", timeoutMs: 20_000, intervalMs: 100 },
  );
  assert.deepEqual([job.summary.deliverable, job.summary.undeliverable], [3, 2]);
  // The runner counts an item done once its answer is written, which the poll may see a moment before.
  const after = await eventually("the done counter to count the 5 answers", () => scrape(live.server), {
    until: (after) => mover(before, after)("vrai_bulk_items_done_total") >= 5,
    describe: (after) => `${mover(before, after)("vrai_bulk_items_done_total")} done`,
  });
  const moved = mover(before, after);
  assert.equal(moved("vrai_bulk_items_queued_total"), 5);
  assert.equal(moved("vrai_bulk_items_claimed_total"), 5);
  assert.equal(moved("vrai_bulk_items_done_total", { verdict: "deliverable" }), 3);
  assert.equal(moved("vrai_bulk_items_done_total", { verdict: "undeliverable" }), 2);
  assert.equal(moved("vrai_bulk_items_done_total"), 5);
  assert.equal(moved("vrai_bulk_lease_expiries_total"), 0);
  // Each accepted recipient is one accepted dialogue (catch-all probes of a random recipient are refused here).
  assert.equal(moved(`${DIALOGUES}_count`, { outcome: "accepted" }), 3);
  assert.ok(moved(`${DIALOGUES}_count`, { outcome: "mailbox_not_found" }) >= 2);
  assert.equal(moved("vrai_email_answers_total", { mode: "live" }), 5);
});

test("the job runner counts items whose lease ran out in vrai_bulk_lease_expiries_total", async (t) => {
  const db = await openTestDatabase("postgres");
  t.after(() => db.close());
  const store = createJobStore(db.sql);
  const account = await createAccount(db.sql);
  const { jobId } = await store.submit(account, ["a@one.test", "b@one.test", "bad@one.test"]);
  // A worker claims the three items and dies: nobody renews its 50 ms leases.
  assert.equal((await store.claim("dead-worker", { limit: 10, leaseMs: 50 })).length, 3);
  await new Promise((resolve) => setTimeout(resolve, 100));

  const metrics = createMetrics({ defaults: false });
  const runner = startJobRunner({
    sql: db.sql,
    verifier: createFakeVerifier(),
    log: silentLogger,
    pollMs: 10,
    metrics,
  });
  const job = await waitForJob(store, { account, jobId }).finally(() => runner.stop());
  assert.equal(job.status, "completed");
  // stop() has waited for the runner's writes: every count is in.
  const samples = parseMetrics(await metrics.scrape());
  assert.equal(sampleSum(samples, "vrai_bulk_lease_expiries_total"), 3);
  assert.equal(sampleSum(samples, "vrai_bulk_items_claimed_total"), 3);
  assert.equal(sampleSum(samples, "vrai_bulk_items_done_total", { verdict: "deliverable" }), 2);
  assert.equal(sampleSum(samples, "vrai_bulk_items_done_total", { verdict: "undeliverable" }), 1);
});
