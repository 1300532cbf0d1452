// Completion callbacks through the real server, on the embedded database and on PostgreSQL: a bulk job submitted with
// a callback_url is POSTed to a loopback receiver when it ends, signed under the account's secret, retried after a
// 500 and after a receiver that never answers, and never sent to a private or loopback address the operator did not
// allow (refused at submission for an address written in the URL, at delivery for a name that resolves to one).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { setTimeout as sleep } from "node:timers/promises";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import type { DatabaseKind } from "../helpers/database.ts";
import { openDatabase } from "../../src/store/db.ts";
import { createEmailEngine } from "../../src/email/engine.ts";
import { startJobRunner } from "../../src/jobs/runner.ts";
import { silentLogger } from "../../src/log.ts";
import { startCallbackDeliverer } from "../../src/callbacks/deliverer.ts";
import { callbackPolicy } from "../../src/callbacks/callback_target.ts";
import { createDnsResolver } from "../../src/email/net/mx_resolver.ts";
import { verifySignature } from "../../src/callbacks/signature.ts";
import type { CallbackRetryPolicy } from "../../src/callbacks/retry_delay.ts";
import { startReceiver } from "./receiver.ts";
import { RESERVED_EMAILS } from "../../src/testmode/email.ts";

const require = createRequire(import.meta.url);
const dns2 = require("dns2") as {
  createServer(options: { udp: boolean; handle(request: DnsRequest, send: (response: unknown) => void): void }): {
    listen(options: { udp: { port: number; address: string } }): Promise<void>;
    addresses(): { udp: { port: number } };
    close(): Promise<void>;
  };
  Packet: {
    TYPE: { A: number };
    CLASS: { IN: number };
    createResponseFromRequest(request: DnsRequest): { answers: unknown[] };
  };
};
interface DnsRequest {
  questions: Array<{ name: string; type: number }>;
}

/** Loopback, allowed for the receiver: what an operator with its own receivers would set. */
const ALLOW_LOOPBACK = { CALLBACK_ALLOW_CIDRS: "127.0.0.0/8", CALLBACK_ALLOW_HTTP_HOSTS: "127.0.0.1" };
/** Settled offline by the real engine (typo domains): the job ends without any network check. */
const EMAILS = ["jane@gmial.com", "bob@gmial.com", "not-an-email"];

interface Started {
  server: TestServer;
  key: string;
}

interface ServerOptions {
  retry?: Partial<CallbackRetryPolicy>;
  /** Deliverers sharing the database (on PostgreSQL, each with its own connection pool). */
  deliverers?: number;
  tlsCa?: string;
}

async function startServer(
  t: Parameters<typeof startTestServer>[0],
  kind: DatabaseKind,
  env: Record<string, string>,
  options: ServerOptions = {},
): Promise<Started> {
  const { retry = { firstDelayMs: 200 }, deliverers = 1, tlsCa } = options;
  const server = await startTestServer(t, {
    database: kind,
    env,
    engines: async (_core, config) => ({ email: createEmailEngine(config) }),
  });
  const runner = startJobRunner({
    sql: server.core.db.sql,
    verifier: server.services.email as never,
    log: silentLogger,
    pollMs: 50,
  });
  server.onClose(() => runner.stop());
  const { config } = server.services;
  for (let i = 0; i < deliverers; i++) {
    // On PostgreSQL each further deliverer has a connection pool of its own, as another process would.
    let sql = server.core.db.sql;
    if (i > 0 && kind === "postgres") {
      const [{ schema }] = await sql`select current_schema() as schema`;
      const peer = await openDatabase(config, { schema: schema as string });
      server.onClose(() => peer.close());
      sql = peer.sql;
    }
    const deliverer = startCallbackDeliverer({
      sql,
      log: silentLogger,
      policy: callbackPolicy({ allowCidrs: config.callbackAllowCidrs, allowHttpHosts: config.callbackAllowHttpHosts }),
      resolver: createDnsResolver({ servers: config.dnsServers, timeoutMs: 2000 }),
      publicUrl: () => config.publicUrl,
      timeoutMs: config.callbackTimeoutMs,
      pollMs: 50,
      retry,
      tlsCa,
    });
    server.onClose(() => deliverer.stop());
  }
  return { server, key: await server.key() };
}

async function receiverFor(
  t: Parameters<typeof startTestServer>[0],
  script?: Array<number | "silent">,
  tls?: { key: string; cert: string },
) {
  const receiver = await startReceiver(script, { tls });
  t.after(() => receiver.close());
  return receiver;
}

async function submit(started: Started, callbackUrl: string) {
  const response = await started.server.post("/v1/email/bulk", started.key, {
    emails: EMAILS,
    callback_url: callbackUrl,
  });
  assert.equal(response.status, 202, await response.clone().text());
  return (await response.json()).job_id as string;
}

async function readJob(started: Started, id: string) {
  const response = await started.server.get(`/v1/jobs/${id}`, started.key);
  assert.equal(response.status, 200);
  return response.json();
}

/** The job read once its callback is no longer pending (delivered or failed). */
async function settledCallback(started: Started, id: string, timeoutMs = 15_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const job = await readJob(started, id);
    if (job.callback && job.callback.state !== "pending") return job;
    if (Date.now() > until) throw new Error(`callback still pending: ${JSON.stringify(job.callback)}`);
    await sleep(50);
  }
}

async function secretOf(started: Started): Promise<string> {
  const response = await started.server.get("/v1/account/callback-secret", started.key);
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("cache-control"), "no-store");
  const { secret } = await response.json();
  assert.match(secret, /^vrai_whsec_[A-Za-z0-9_-]{43}$/);
  return secret;
}

async function startDns(t: Parameters<typeof startTestServer>[0], name: string, address: string) {
  const server = dns2.createServer({
    udp: true,
    handle(request, send) {
      const response = dns2.Packet.createResponseFromRequest(request);
      const [question] = request.questions;
      if (question?.name === name && question.type === dns2.Packet.TYPE.A) {
        response.answers.push({ name, type: dns2.Packet.TYPE.A, class: dns2.Packet.CLASS.IN, ttl: 60, address });
      }
      send(response);
    },
  });
  await server.listen({ udp: { port: 0, address: "127.0.0.1" } });
  t.after(() => server.close());
  return `127.0.0.1:${server.addresses().udp.port}`;
}

for (const kind of ["embedded", "postgres"] as const) {
  test(`${kind}: a job's end is POSTed once to its callback_url, signed under the account's secret`, async (t) => {
    const started = await startServer(t, kind, ALLOW_LOOPBACK);
    const receiver = await receiverFor(t);
    const secret = await secretOf(started);
    const id = await submit(started, `${receiver.url}/hooks/vrai?source=bulk`);
    const job = await settledCallback(started, id);
    assert.equal(job.status, "completed");
    assert.equal(job.results.length, 3, "polling answers as before");
    assert.equal(job.callback.url, `${receiver.url}/hooks/vrai?source=bulk`);
    assert.equal(job.callback.state, "delivered");
    assert.equal(job.callback.attempts, 1);
    assert.equal(job.callback.last_status, 200);
    assert.equal(job.callback.last_error, null);
    assert.equal(job.callback.next_attempt_at, null);
    assert.ok(Date.parse(job.callback.delivered_at) <= Date.now());

    const [call] = receiver.calls;
    assert.equal(receiver.calls.length, 1);
    assert.equal(call!.path, "/hooks/vrai?source=bulk");
    assert.equal(call!.headers["content-type"], "application/json");
    const signature = String(call!.headers["vrai-signature"]);
    assert.match(signature, /^t=\d+,v1=[0-9a-f]{64}$/);
    assert.ok(verifySignature(signature, call!.body, secret), "the receiver verifies it with the account's secret");
    assert.ok(!verifySignature(signature, call!.body.replace("completed", "failed"), secret), "a changed body fails");
    assert.ok(!verifySignature(signature, call!.body, `${secret}x`), "another secret fails");
    assert.ok(!verifySignature(signature, call!.body, secret, { now: Math.floor(Date.now() / 1000) + 600 }), "late");

    const notice = JSON.parse(call!.body);
    assert.deepEqual(Object.keys(notice).sort(), [
      "created_at",
      "expires_at",
      "job_id",
      "poll",
      "processed",
      "status",
      "summary",
      "total",
    ]);
    assert.equal(notice.job_id, id);
    assert.equal(notice.status, "completed");
    assert.equal(notice.total, 3);
    assert.equal(notice.processed, 3);
    assert.deepEqual(notice.summary, job.summary);
    assert.equal(notice.poll, `${started.server.url}/v1/jobs/${id}`);
    await sleep(300);
    assert.equal(receiver.calls.length, 1, "delivered once, not again");
  });

  test(`${kind}: a callback answered 500 is tried again with back-off until a 200`, async (t) => {
    const started = await startServer(t, kind, ALLOW_LOOPBACK, { retry: { firstDelayMs: 300 } });
    const receiver = await receiverFor(t, [500, 503, 200]);
    const secret = await secretOf(started);
    const id = await submit(started, `${receiver.url}/hook`);
    const job = await settledCallback(started, id);
    assert.equal(job.callback.state, "delivered");
    assert.equal(job.callback.attempts, 3);
    assert.equal(job.callback.last_status, 200);
    assert.equal(receiver.calls.length, 3);
    // Each wait doubles: 300 ms, then 600 ms (the polls add a little).
    const [first, second, third] = receiver.calls.map((c) => c.at) as [number, number, number];
    assert.ok(second - first >= 300, `first wait ${second - first} ms`);
    assert.ok(third - second >= 600, `second wait ${third - second} ms`);
    const bodies = new Set(receiver.calls.map((c) => c.body));
    assert.equal(bodies.size, 1, "every attempt carries the same notice");
    for (const call of receiver.calls)
      assert.ok(verifySignature(String(call.headers["vrai-signature"]), call.body, secret));
  });

  test(`${kind}: a receiver that never answers is given up on at CALLBACK_TIMEOUT_MS and tried again`, async (t) => {
    const started = await startServer(
      t,
      kind,
      { ...ALLOW_LOOPBACK, CALLBACK_TIMEOUT_MS: "400" },
      { retry: { firstDelayMs: 1500 } },
    );
    const receiver = await receiverFor(t, ["silent", 200]);
    const id = await submit(started, `${receiver.url}/hook`);
    await receiver.received(1);
    // Between the two attempts, the job read says why the first failed and when the next comes.
    let waiting: { callback: Record<string, unknown> } | undefined;
    for (let i = 0; i < 100 && waiting === undefined; i++) {
      const job = await readJob(started, id);
      if (job.callback.state === "pending" && job.callback.last_error !== null) waiting = job;
      else await sleep(20);
    }
    assert.ok(waiting, "the failed attempt is recorded");
    assert.equal(waiting.callback.attempts, 1);
    assert.equal(waiting.callback.last_status, null);
    assert.equal(waiting.callback.last_error, "no answer within 400 ms");
    assert.ok(Date.parse(String(waiting.callback.next_attempt_at)) > Date.now(), "the next attempt is ahead");
    const job = await settledCallback(started, id);
    assert.equal(job.callback.state, "delivered");
    assert.equal(job.callback.attempts, 2);
    assert.equal(receiver.calls.length, 2);
    assert.ok(receiver.calls[1]!.at - receiver.calls[0]!.at >= 1500 + 400 - 50, "the wait came after the time-out");
  });

  test(`${kind}: a callback is given up a day after its first attempt (a shorter day here)`, async (t) => {
    const started = await startServer(t, kind, ALLOW_LOOPBACK, {
      retry: { firstDelayMs: 100, giveUpAfterMs: 1000 },
    });
    const receiver = await receiverFor(t, [500]);
    const id = await submit(started, `${receiver.url}/hook`);
    const job = await settledCallback(started, id);
    assert.equal(job.callback.state, "failed");
    assert.equal(job.callback.last_status, 500);
    assert.equal(job.callback.last_error, "the receiver answered 500");
    assert.equal(job.callback.next_attempt_at, null);
    // 100, 200, 400 ms between attempts while they fit in the "day" (how many depends on the machine's pace; the
    // store test counts them on a clock of its own): several attempts, each one a call, none after the day.
    assert.ok(job.callback.attempts >= 2, `${job.callback.attempts} attempts`);
    assert.equal(receiver.calls.length, job.callback.attempts);
    await sleep(500);
    assert.equal(receiver.calls.length, job.callback.attempts, "no call once failed");
  });

  test(`${kind}: callback targets that are private, loopback or not https are refused at submission`, async (t) => {
    const started = await startServer(t, kind, {});
    const { server, key } = started;
    const before = (await server.post("/v1/email/bulk", key, { emails: ["first@gmial.com"] })).headers;
    const remaining = before.get("x-quota-remaining");
    const cases: Array<[string, RegExp]> = [
      ["https://127.0.0.1/hook", /private or loopback address \(127\.0\.0\.1 is a loopback address\)/],
      ["https://10.1.2.3/hook", /10\.1\.2\.3 is a private address/],
      ["https://[::1]:8443/hook", /::1 is a loopback address/],
      ["https://[::ffff:192.168.1.1]/hook", /private or loopback/],
      ["https://169.254.169.254/latest/meta-data", /linkLocal/],
      ["https://2130706433/hook", /127\.0\.0\.1 is a loopback address/],
      ["https://localhost:9000/hook", /this machine/],
      ["https://api.localhost/hook", /this machine/],
      ["http://hooks.example.com/hook", /must be an https URL/],
      ["ftp://hooks.example.com/hook", /must be an https URL/],
      ["https://user:pass@hooks.example.com/hook", /user name or password/],
      ["/relative/hook", /not an absolute URL/],
    ];
    for (const [url, detail] of cases) {
      const response = await server.post("/v1/email/bulk", key, { emails: EMAILS, callback_url: url });
      assert.equal(response.status, 400, url);
      assert.equal(response.headers.get("content-type"), "application/problem+json", url);
      const problem = await response.json();
      assert.equal(problem.type, `${server.url}/errors/invalid-request`);
      assert.match(problem.detail, detail, url);
      assert.deepEqual(
        problem.errors.map((e: { member: string }) => e.member),
        ["callback_url"],
        url,
      );
      assert.equal(response.headers.get("x-quota-remaining"), remaining, `${url}: nothing charged`);
    }
    // A CSV upload names it in the query, under the same rules.
    const csv = await fetch(`${server.url}/v1/email/bulk?callback_url=${encodeURIComponent("https://10.0.0.1/")}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "text/csv" },
      body: "email\njane@gmial.com\n",
    });
    assert.equal(csv.status, 400);
    assert.match((await csv.json()).detail, /10\.0\.0\.1 is a private address/);
    // A public https URL is accepted as written (its name is resolved when the job ends).
    const ok = await server.post("/v1/email/bulk", key, {
      emails: EMAILS,
      callback_url: "https://hooks.example.com/x",
    });
    assert.equal(ok.status, 202);
  });

  test(`${kind}: a name that resolves to a loopback address is refused at delivery, and sent to once allowed`, async (t) => {
    const receiver = await receiverFor(t);
    const name = "hooks.vrai-callbacks.test";
    const dns = await startDns(t, name, "127.0.0.1");
    // Plain http to that name is allowed, its address range is not: the URL passes at submission, not at delivery.
    const refusing = await startServer(t, kind, { DNS_SERVERS: dns, CALLBACK_ALLOW_HTTP_HOSTS: name });
    const refusedId = await submit(refusing, `http://${name}:${receiver.port}/hook`);
    const refused = await settledCallback(refusing, refusedId);
    assert.equal(refused.callback.state, "failed", "refused once, not retried for a day");
    assert.equal(refused.callback.attempts, 1);
    assert.equal(refused.callback.last_status, null);
    assert.equal(
      refused.callback.last_error,
      "refused: hooks.vrai-callbacks.test resolves to 127.0.0.1 is a loopback address",
    );
    await sleep(300);
    assert.equal(receiver.calls.length, 0, "nothing reached the receiver");

    // With loopback allowed by the operator, the same name is delivered to the address it resolved to.
    const allowing = await startServer(t, kind, {
      DNS_SERVERS: dns,
      CALLBACK_ALLOW_HTTP_HOSTS: name,
      CALLBACK_ALLOW_CIDRS: "127.0.0.0/8",
    });
    const id = await submit(allowing, `http://${name}:${receiver.port}/hook`);
    const job = await settledCallback(allowing, id);
    assert.equal(job.callback.state, "delivered");
    assert.equal(receiver.calls.length, 1);
    assert.equal(receiver.calls[0]!.headers.host, `${name}:${receiver.port}`, "the Host header names the URL's host");
  });

  test(`${kind}: three deliverers on one database send each callback once`, async (t) => {
    const started = await startServer(t, kind, ALLOW_LOOPBACK, { deliverers: 3 });
    const receiver = await receiverFor(t);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const response = await started.server.post("/v1/email/bulk", started.key, {
        emails: [`user${i}@gmial.com`],
        callback_url: `${receiver.url}/hook/${i}`,
      });
      ids.push((await response.json()).job_id);
    }
    for (const id of ids) assert.equal((await settledCallback(started, id)).callback.attempts, 1);
    await sleep(300);
    assert.deepEqual(receiver.calls.map((c) => c.path).sort(), ids.map((_, i) => `/hook/${i}`).sort());
  });
}

test("a rotated secret signs beside the new one for a day; test keys' jobs call back too, CSV uploads by query", async (t) => {
  const started = await startServer(t, "embedded", ALLOW_LOOPBACK);
  const receiver = await receiverFor(t);
  const old = await secretOf(started);
  assert.equal(await secretOf(started), old, "reading does not change it");
  const rotation = await started.server.post("/v1/account/callback-secret", started.key, "");
  assert.equal(rotation.status, 200);
  const rotated = await rotation.json();
  assert.notEqual(rotated.secret, old);
  const overlap = Date.parse(rotated.previous_expires_at) - Date.now();
  assert.ok(Math.abs(overlap - 24 * 3600_000) < 60_000, "the old secret signs for 24 hours more");
  assert.equal(await secretOf(started), rotated.secret);

  const csv = await fetch(
    `${started.server.url}/v1/email/bulk?callback_url=${encodeURIComponent(`${receiver.url}/csv`)}`,
    {
      method: "POST",
      headers: { authorization: `Bearer ${started.key}`, "content-type": "text/csv" },
      body: "name,email\nJane,jane@gmial.com\n",
    },
  );
  assert.equal(csv.status, 202);
  const [call] = await receiver.received(1);
  const header = String(call!.headers["vrai-signature"]);
  assert.match(header, /^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
  assert.ok(verifySignature(header, call!.body, rotated.secret), "the new secret");
  assert.ok(verifySignature(header, call!.body, old), "the one it replaced, during the overlap");

  // The callback URL is part of what an Idempotency-Key names: the same list to another URL is another request.
  const keyed = (url: string) =>
    started.server.post(
      "/v1/email/bulk",
      started.key,
      { emails: ["idem@gmial.com"], callback_url: url },
      { "idempotency-key": "callbacks-1" },
    );
  const first = await keyed(`${receiver.url}/idem`);
  assert.equal(first.status, 202);
  const again = await keyed(`${receiver.url}/idem`);
  assert.equal(again.status, 202);
  assert.equal(again.headers.get("idempotent-replayed"), "true");
  assert.equal((await again.json()).job_id, (await first.json()).job_id);
  const otherUrl = await keyed(`${receiver.url}/other`);
  assert.equal(otherUrl.status, 400);
  assert.equal((await otherUrl.json()).type, `${started.server.url}/errors/request-failed`);
  await receiver.received(2);

  const testKey = await started.server.key({ account: "sandbox", mode: "test" });
  const sandbox = await started.server.post("/v1/email/bulk", testKey, {
    emails: [RESERVED_EMAILS[0]!],
    callback_url: `${receiver.url}/test`,
  });
  assert.equal(sandbox.status, 202, await sandbox.clone().text());
  const calls = await receiver.received(3);
  const notice = JSON.parse(calls[2]!.body);
  assert.equal(notice.status, "completed");
  assert.equal(calls[2]!.path, "/test");
  assert.deepEqual(calls.map((c) => c.path).sort(), ["/csv", "/idem", "/test"], "the replay called back once");
});

/** A self-signed certificate for `name` (openssl), or null when openssl is missing. */
function selfSigned(name: string): { key: string; cert: string } | null {
  const dir = mkdtempSync(join(tmpdir(), "vrai-cert-"));
  try {
    const made = spawnSync(
      "openssl",
      ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1"]
        .concat(["-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"), "-subj", `/CN=${name}`])
        .concat(["-addext", `subjectAltName=DNS:${name}`]),
      { stdio: "ignore" },
    );
    if (made.status !== 0) return null;
    return { key: readFileSync(join(dir, "key.pem"), "utf8"), cert: readFileSync(join(dir, "cert.pem"), "utf8") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("https: the receiver's certificate is checked against the URL's name, on the address the name resolved to", async (t) => {
  const name = "hooks.vrai-callbacks.test";
  const certificate = selfSigned(name);
  if (certificate === null) return t.skip("openssl is not installed");
  const receiver = await receiverFor(t, [200], certificate);
  const dns = await startDns(t, name, "127.0.0.1");
  const started = await startServer(
    t,
    "embedded",
    { DNS_SERVERS: dns, CALLBACK_ALLOW_CIDRS: "127.0.0.0/8" },
    { tlsCa: certificate.cert, retry: { firstDelayMs: 60_000 } },
  );
  const secret = await secretOf(started);
  const id = await submit(started, `https://${name}:${receiver.port}/hook`);
  const job = await settledCallback(started, id);
  assert.equal(job.callback.state, "delivered");
  const [call] = receiver.calls;
  assert.equal(call!.headers.host, `${name}:${receiver.port}`);
  assert.ok(verifySignature(String(call!.headers["vrai-signature"]), call!.body, secret));

  // The same receiver by its address: the certificate does not name it, so nothing is sent.
  const byAddress = await submit(started, `https://127.0.0.1:${receiver.port}/hook`);
  for (let i = 0; i < 200; i++) {
    const read = await readJob(started, byAddress);
    if (read.callback.attempts === 1 && read.callback.last_error !== null) {
      assert.equal(read.callback.state, "pending", "tried again later");
      assert.equal(read.callback.last_error, "cannot reach the receiver (ERR_TLS_CERT_ALTNAME_INVALID)");
      assert.equal(receiver.calls.length, 1, "no request reached the receiver");
      return;
    }
    await sleep(50);
  }
  assert.fail("the attempt was not recorded");
});
