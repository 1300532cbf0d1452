// Bulk for list cleaning over HTTP: CSV in on POST /v1/email/bulk, CSV out and pages on GET /v1/jobs/{id},
// and the summary on every read. No runner: the test finishes items itself through the job store, so a job is
// exactly as partial as each test needs.
import assert from "node:assert/strict";
import { test } from "node:test";
import { parse } from "csv-parse/sync";
import type { EmailVerification } from "../../src/email/types.ts";
import { allChecks } from "../../src/email/vocabulary.ts";
import { createJobStore } from "../../src/jobs/job_store.ts";
import { prefersCsv } from "../../src/http/routes/read_job.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { plansFile } from "../helpers/plans_file.ts";

const PLANS_FILE = plansFile({
  small: { quota: { email: 10, address: 10 }, rate: { per_minute: 6000, burst: 0 }, batch_max: 6 },
  big: { quota: null, rate: { per_minute: 6000, burst: 0 }, batch_max: 5000 },
});

const postCsv = (server: TestServer, key: string, csv: string | Uint8Array) =>
  fetch(`${server.url}/v1/email/bulk`, {
    method: "POST",
    headers: { "content-type": "text/csv; charset=utf-8", authorization: `Bearer ${key}` },
    body: csv,
  });

const getCsv = (server: TestServer, key: string, id: string) =>
  fetch(`${server.url}/v1/jobs/${id}`, { headers: { authorization: `Bearer ${key}`, accept: "text/csv" } });

/** A result whose verdict is read from the local part: "ok…" deliverable, "bad…" undeliverable, else unknown. */
function resultFor(email: string): EmailVerification {
  const local = email.slice(0, email.indexOf("@")).toLowerCase();
  const verdict = local.startsWith("ok") ? "deliverable" : local.startsWith("bad") ? "undeliverable" : "unknown";
  return {
    email,
    verdict,
    reasons:
      verdict === "undeliverable"
        ? ["mailbox_not_found"]
        : verdict === "unknown"
          ? ["catch_all_domain", "role_address"]
          : [],
    suggestion: verdict === "unknown" ? "x@example.org" : null,
    flags: { disposable: false, role: verdict === "unknown", catch_all: verdict === "unknown" ? true : null },
    checks: allChecks("pass"),
    duration_ms: 1,
  };
}

/** Finishes the job's items whose address passes `which` (all by default), as a worker would. */
async function finish(server: TestServer, which: (email: string) => boolean = () => true): Promise<void> {
  const store = createJobStore(server.core.db.sql);
  const items = await store.claim("test-worker", { limit: 10_000, leaseMs: 60_000 });
  for (const item of items) if (which(item.email)) await store.complete(item, { result: resultFor(item.email) });
  await store.release("test-worker");
}

async function start(t: Parameters<typeof startTestServer>[0]) {
  return startTestServer(t, { env: { PLANS_FILE } });
}

test("CSV in: comma separated, BOM, quoted fields and extra columns kept, CSV out in submission order", async (t) => {
  const server = await start(t);
  const key = await server.key({ plan: "small" });
  const csv = '\uFEFFname,Email,note\r\n"Doe, Jane",ok1@d.fr,"said ""hi"""\r\nBob,bad1@d.fr,"two\nlines"\r\n';
  const response = await postCsv(server, key, csv);
  assert.equal(response.status, 202);
  const accepted = await response.json();
  assert.equal(accepted.total, 2);
  await finish(server);
  const out = await getCsv(server, key, accepted.job_id);
  assert.equal(out.status, 200);
  assert.match(out.headers.get("content-type") ?? "", /^text\/csv/);
  assert.equal(out.headers.get("x-job-processed"), "2");
  assert.equal(out.headers.get("x-job-status"), "completed");
  assert.equal(out.headers.get("x-ratelimit-limit"), "60", "the read allowance of job reads");
  const rows = parse(await out.text()) as string[][];
  assert.deepEqual(rows, [
    ["name", "Email", "note", "verdict", "reasons", "suggestion", "disposable", "role", "catch_all"],
    ["Doe, Jane", "ok1@d.fr", 'said "hi"', "deliverable", "", "", "false", "false", ""],
    ["Bob", "bad1@d.fr", "two\nlines", "undeliverable", "mailbox_not_found", "", "false", "false", ""],
  ]);
  // The JSON read of the same job is the spec's, with the summary beside it.
  const json = await (await server.get(`/v1/jobs/${accepted.job_id}`, key)).json();
  assert.deepEqual(
    json.results.map((r: EmailVerification) => r.email),
    ["ok1@d.fr", "bad1@d.fr"],
  );
  assert.deepEqual(json.summary, {
    undeliverable: 1,
    risky: 0,
    unknown: 0,
    deliverable: 1,
    retrying: 0,
    next_retry_at: null,
  });
});

test("CSV in: semicolons, a header named E-MAIL or courriel in any case, and a column found by its addresses", async (t) => {
  const server = await start(t);
  const key = await server.key({ plan: "small" });
  for (const [csv, email] of [
    ["id;E-MAIL\n1;ok1@d.fr\n", "ok1@d.fr"],
    ["Courriel;ville\nok2@d.fr;Paris\n", "ok2@d.fr"],
    ["who,contact\nme,ok3@d.fr\nyou,not an address\nthem,bad3@d.fr\n", "ok3@d.fr"],
  ] as const) {
    const response = await postCsv(server, key, csv);
    assert.equal(response.status, 202, csv);
    const { job_id } = await response.json();
    const job = await (await server.get(`/v1/jobs/${job_id}`, key)).json();
    assert.equal(job.status, "queued");
    await finish(server);
    const rows = parse(await (await getCsv(server, key, job_id)).text()) as string[][];
    assert.equal(rows[1]!.includes(email), true, csv);
    assert.equal(rows[1]!.length, rows[0]!.length);
  }
});

test("CSV in: 400 invalid-request naming the line for an unreadable row or a file with no address column", async (t) => {
  const server = await start(t);
  const key = await server.key({ plan: "small" });
  const cases: Array<[string | Uint8Array, number, RegExp]> = [
    ["name,city\nJane,Paris\n", 1, /no address column/],
    ["email,name\na@b.fr,Jane\nc@d.fr\n", 3, /not as many fields/],
    ['email,name\na@b.fr,Jane\nc@d.fr,"Bob\n', 3, /never closed/],
    // Named where the quote opens, not where the file ends.
    ['email,name\na@b.fr,"Jane\nc@d.fr,Bob\nd@e.fr,Ann\n', 2, /never closed/],
    ["email\n", 1, /no rows/],
    [`email\na@b.fr\n${"a".repeat(321)}@b.fr\n`, 3, /longer than 320/],
    [new Uint8Array([...new TextEncoder().encode("email\na@b.fr\n"), 0xff, 0x40, 0x62, 0x0a]), 3, /UTF-8/],
    ["email,other\nok@d.fr,x\u0000y\n", 2, /NUL/],
  ];
  for (const [body, line, message] of cases) {
    const response = await postCsv(server, key, body);
    assert.equal(response.status, 400, String(body));
    const problem = await response.json();
    assert.match(problem.type, /\/errors\/invalid-request$/);
    assert.equal(problem.line, line, String(body));
    assert.match(problem.detail, new RegExp(`line ${line}: `));
    assert.match(problem.detail, message);
  }
  assert.equal((await server.get("/v1/jobs/00000000-0000-4000-8000-000000000000", key)).status, 404);
  // Nothing was charged for any of them; a plain-text body is still 415.
  const plain = await fetch(`${server.url}/v1/email/bulk`, {
    method: "POST",
    headers: { "content-type": "text/plain", authorization: `Bearer ${key}` },
    body: "email\na@b.fr\n",
  });
  assert.equal(plain.status, 415);
  const ok = await postCsv(server, key, "email\nok@d.fr\n");
  assert.equal(ok.headers.get("x-quota-remaining"), "9");
  // A single call does not read CSV.
  const single = await fetch(`${server.url}/v1/email`, {
    method: "POST",
    headers: { "content-type": "text/csv", authorization: `Bearer ${key}` },
    body: "email\nok@d.fr\n",
  });
  assert.equal(single.status, 415);
});

test("CSV in: the plan's batch_max and 5000 rows at most (413 with limit and received), counted before dedup", async (t) => {
  const server = await start(t);
  const small = await server.key({ plan: "small" });
  const rows = (n: number) => `email\n${Array.from({ length: n }, (_, i) => `u${i}@d.fr`).join("\n")}\n`;
  const seven = await postCsv(server, small, rows(7));
  assert.equal(seven.status, 413);
  const problem = await seven.json();
  assert.deepEqual([problem.limit, problem.received], [6, 7]);
  assert.equal(problem.detail, "Cannot accept batch: more than 6 rows, the plan allows 6 per job");
  const big = await server.key({ plan: "big" });
  const over = await postCsv(server, big, rows(5001));
  assert.equal(over.status, 413);
  assert.deepEqual(await over.json().then((p) => [p.limit, p.received]), [5000, 5001]);
  const full = await postCsv(server, big, rows(5000));
  assert.equal(full.status, 202);
  assert.equal((await full.json()).total, 5000);
});

test("CSV in: duplicates removed (trimmed, any case), the first row kept, quota charged per kept address at submission", async (t) => {
  const server = await start(t);
  const key = await server.key({ plan: "small" });
  const response = await postCsv(server, key, "email,n\nOk1@D.fr,1\n ok1@d.fr ,2\nbad@d.fr,3\nOK1@d.fr,4\n");
  assert.equal(response.status, 202);
  assert.equal(response.headers.get("x-quota-remaining"), "8");
  const { job_id, total } = await response.json();
  assert.equal(total, 2);
  await finish(server);
  const rows = parse(await (await getCsv(server, key, job_id)).text()) as string[][];
  assert.deepEqual(
    rows.slice(1).map((r) => r.slice(0, 3)),
    [
      ["Ok1@D.fr", "1", "deliverable"],
      ["bad@d.fr", "3", "undeliverable"],
    ],
  );
  // Over the quota left: 402, nothing charged.
  const refused = await postCsv(
    server,
    key,
    `email\n${Array.from({ length: 9 }, (_, i) => `z${i}@d.fr`).join("\n")}\n`,
  );
  assert.equal(refused.status, 413, "batch_max comes before the quota");
  const five = await postCsv(server, key, `email\n${Array.from({ length: 6 }, (_, i) => `z${i}@d.fr`).join("\n")}\n`);
  assert.equal(five.status, 202);
  const spent = await postCsv(server, key, "email\ny1@d.fr\ny2@d.fr\ny3@d.fr\n");
  assert.equal(spent.status, 402);
  assert.equal(spent.headers.get("x-quota-remaining"), "2");
});

test("CSV out of a partial job: finished rows only, in submission order, processed in a header; JSON jobs give email", async (t) => {
  const server = await start(t);
  const key = await server.key({ plan: "small" });
  const emails = ["ok1@d.fr", "wait1@d.fr", "bad1@d.fr", "wait2@d.fr", "ok2@d.fr"];
  const { job_id } = await (await server.post("/v1/email/bulk", key, { emails })).json();
  await finish(server, (email) => !email.startsWith("wait"));
  const partial = await getCsv(server, key, job_id);
  assert.equal(partial.headers.get("x-job-processed"), "3");
  assert.equal(partial.headers.get("x-job-total"), "5");
  assert.equal(partial.headers.get("x-job-status"), "running");
  const rows = parse(await partial.text()) as string[][];
  assert.deepEqual(rows[0], ["email", "verdict", "reasons", "suggestion", "disposable", "role", "catch_all"]);
  assert.deepEqual(
    rows.slice(1).map((r) => [r[0], r[1]]),
    [
      ["ok1@d.fr", "deliverable"],
      ["bad1@d.fr", "undeliverable"],
      ["ok2@d.fr", "deliverable"],
    ],
  );
  await finish(server);
  const done = parse(await (await getCsv(server, key, job_id)).text()) as string[][];
  assert.deepEqual(
    done.slice(1).map((r) => r[0]),
    emails,
  );
  assert.deepEqual(done[2]!.slice(1), [
    "unknown",
    "catch_all_domain|role_address",
    "x@example.org",
    "false",
    "true",
    "true",
  ]);
});

test("JSON reads: ?offset and ?limit page the results, the summary counts every result so far", async (t) => {
  const server = await start(t);
  const key = await server.key({ plan: "small" });
  const emails = ["ok1@d.fr", "bad1@d.fr", "x1@d.fr", "ok2@d.fr", "wait@d.fr"];
  const { job_id } = await (await server.post("/v1/email/bulk", key, { emails })).json();
  const queued = await (await server.get(`/v1/jobs/${job_id}`, key)).json();
  assert.deepEqual(queued.summary, {
    undeliverable: 0,
    risky: 0,
    unknown: 0,
    deliverable: 0,
    retrying: 0,
    next_retry_at: null,
  });
  await finish(server, (email) => email !== "wait@d.fr");
  const page = async (query: string) => (await server.get(`/v1/jobs/${job_id}${query}`, key)).json();
  const all = await page("");
  assert.equal(all.results.length, 4);
  assert.deepEqual(all.summary, {
    undeliverable: 1,
    risky: 0,
    unknown: 1,
    deliverable: 2,
    retrying: 0,
    next_retry_at: null,
  });
  const second = await page("?offset=1&limit=2");
  assert.deepEqual(
    second.results.map((r: EmailVerification) => r.email),
    ["bad1@d.fr", "x1@d.fr"],
  );
  assert.deepEqual(second.summary, all.summary, "the summary is the job's, not the page's");
  assert.equal(second.processed, 4);
  assert.deepEqual((await page("?offset=3")).results.length, 1);
  assert.deepEqual((await page("?limit=0")).results, []);
  assert.equal((await page("?offset=99")).results.length, 0);
  // Not whole numbers: ignored, never a 400 (the job read cannot answer 400).
  assert.equal((await page("?offset=-1&limit=abc")).results.length, 4);
});

test("CSV out keeps the job read's rules: one 404, its own allowance, JSON unless text/csv is preferred", async (t) => {
  const server = await start(t);
  const owner = await server.key({ plan: "small", account: "owner" });
  const stranger = await server.key({ plan: "small", account: "stranger" });
  const { job_id } = await (await postCsv(server, owner, "email\nok@d.fr\n")).json();
  const bodies = [];
  for (const response of [
    await getCsv(server, stranger, job_id),
    await getCsv(server, stranger, "00000000-0000-4000-8000-000000000000"),
    await getCsv(server, stranger, "not-a-uuid"),
  ]) {
    assert.equal(response.status, 404);
    assert.equal(response.headers.get("content-type"), "application/problem+json");
    bodies.push(await response.json());
  }
  for (const body of bodies) assert.deepEqual(body, bodies[0]);
  const unauthenticated = await fetch(`${server.url}/v1/jobs/${job_id}`, { headers: { accept: "text/csv" } });
  assert.equal(unauthenticated.status, 401);
  const json = await server.get(`/v1/jobs/${job_id}`, owner);
  assert.equal(json.headers.get("content-type"), "application/json");
  const remaining = Number(json.headers.get("x-ratelimit-remaining"));
  const csv = await getCsv(server, owner, job_id);
  assert.equal(Number(csv.headers.get("x-ratelimit-remaining")), remaining - 1, "a CSV read spends the read allowance");
  assert.equal(prefersCsv(null), false);
  assert.equal(prefersCsv("text/csv"), true);
  assert.equal(prefersCsv("application/json, text/csv"), false);
  assert.equal(prefersCsv("application/json;q=0.5, text/csv"), true);
  assert.equal(prefersCsv("*/*"), false);
  assert.equal(prefersCsv("text/csv;q=0"), false);
});

test("CSV in with a test key: reserved addresses answered offline, rows given back", async (t) => {
  const server = await start(t);
  const key = await server.key({ plan: "small", mode: "test" });
  const response = await postCsv(server, key, "ref;email\nA1;deliverable@vrai.test\nA2;undeliverable@vrai.test\n");
  assert.equal(response.status, 202);
  const { job_id, status } = await response.json();
  assert.equal(status, "completed");
  const rows = parse(await (await getCsv(server, key, job_id)).text()) as string[][];
  assert.deepEqual(
    rows.slice(1).map((r) => r.slice(0, 4)),
    [
      ["A1", "deliverable@vrai.test", "deliverable", ""],
      ["A2", "undeliverable@vrai.test", "undeliverable", "mailbox_not_found"],
    ],
  );
  const refused = await postCsv(server, key, "email\nsomeone@example.org\n");
  assert.equal(refused.status, 400);
});
