import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer } from "../helpers/server.ts";

const ALL_PASS = {
  syntax: "pass",
  provider_rules: "pass",
  typo: "pass",
  disposable: "pass",
  role: "pass",
  mx: "pass",
  smtp: "pass",
  catch_all: "pass",
};

test("test keys answer the reserved emails as the spec's table says", async (t) => {
  const server = await startTestServer(t);
  const key = await server.key({ mode: "test" });
  const cases = [
    {
      local: "deliverable",
      verdict: "deliverable",
      reasons: [],
      checks: ALL_PASS,
      flags: { disposable: false, role: false, catch_all: false },
    },
    {
      local: "undeliverable",
      verdict: "undeliverable",
      reasons: ["mailbox_not_found"],
      checks: { ...ALL_PASS, smtp: "fail", catch_all: "skipped" },
      flags: { disposable: false, role: false, catch_all: null },
    },
    {
      local: "catchall",
      verdict: "unknown",
      reasons: ["catch_all_domain"],
      checks: { ...ALL_PASS, catch_all: "fail" },
      flags: { disposable: false, role: false, catch_all: true },
    },
    {
      local: "disposable",
      verdict: "risky",
      reasons: ["disposable_domain"],
      checks: {
        ...ALL_PASS,
        disposable: "fail",
        role: "skipped",
        mx: "skipped",
        smtp: "skipped",
        catch_all: "skipped",
      },
      flags: { disposable: true, role: null, catch_all: null },
    },
    {
      local: "greylisted",
      verdict: "unknown",
      reasons: ["greylisted"],
      checks: { ...ALL_PASS, smtp: "inconclusive", catch_all: "skipped" },
      flags: { disposable: false, role: false, catch_all: null },
    },
  ];
  for (const c of cases) {
    const response = await server.post("/v1/email", key, { email: `${c.local}@vrai.test` });
    assert.equal(response.status, 200, c.local);
    assert.equal(response.headers.get("x-quota-limit"), null, "test keys send no quota headers");
    assert.ok(response.headers.get("x-ratelimit-limit"));
    const body = await response.json();
    assert.equal(body.email, `${c.local}@vrai.test`);
    assert.equal(body.verdict, c.verdict, c.local);
    assert.deepEqual(body.reasons, c.reasons, c.local);
    assert.deepEqual(body.checks, c.checks, c.local);
    assert.deepEqual(body.flags, c.flags, c.local);
    assert.equal(body.suggestion, null);
    assert.equal(typeof body.duration_ms, "number");
  }
  const other = await server.post("/v1/email", key, { email: "jane@example.com" });
  assert.equal(other.status, 400);
  const problem = await other.json();
  assert.match(problem.type, /\/errors\/request-failed$/);
  assert.match(problem.detail, /deliverable@vrai\.test/);
});

test("test keys answer the reserved addresses as the spec's table says", async (t) => {
  const server = await startTestServer(t);
  const key = await server.key({ mode: "test" });
  const cases: Array<[unknown, string, string[], string | null]> = [
    [{ line: "1 Rue Deliverable, 00000 Testville" }, "deliverable", [], "1 Rue Deliverable, 00000 Testville"],
    [{ line: "1 Deliverable 00000 Testville" }, "deliverable", [], "1 Deliverable, 00000 Testville"],
    [
      { house_number: "1", street: "Rue Deliverable", postcode: "00000", city: "Testville" },
      "deliverable",
      [],
      "1 Rue Deliverable, 00000 Testville",
    ],
    [
      { line: "1 Rue Corected, 00000 Testville" },
      "corrected",
      ["street_corrected"],
      "1 Rue Corrected, 00000 Testville",
    ],
    [{ line: "1 rue nonexistent 00000 testville" }, "nonexistent", ["street_not_found"], null],
    [{ line: "1 Rue Unknown, 00000 Testville", country: "FR" }, "unknown", ["postcode_not_covered"], null],
    [
      { line: "Rue Deliverable, 00000 Testville" },
      "incomplete",
      ["missing_house_number"],
      "Rue Deliverable, 00000 Testville",
    ],
  ];
  for (const [input, verdict, reasons, line] of cases) {
    const response = await server.post("/v1/address", key, input);
    assert.equal(response.status, 200, JSON.stringify(input));
    const body = await response.json();
    assert.equal(body.verdict, verdict, JSON.stringify(input));
    assert.deepEqual(body.reasons, reasons);
    assert.equal(body.normalized?.line ?? null, line, JSON.stringify(input));
    if (body.normalized) {
      assert.equal(body.normalized.postcode, "00000");
      assert.equal(body.normalized.city, "Testville");
      assert.equal(body.normalized.country, "FR");
    }
  }
  const other = await server.post("/v1/address", key, { line: "12 Rue de Rivoli, 75001 Paris" });
  assert.equal(other.status, 400);
  assert.match((await other.json()).detail, /00000 Testville/);
});

test("test keys combine reserved inputs in signup and answer reserved bulk offline", async (t) => {
  const server = await startTestServer(t);
  const key = await server.key({ mode: "test" });
  const signup = await server.post("/v1/signup", key, {
    email: "deliverable@vrai.test",
    address: { line: "1 Rue Corected, 00000 Testville" },
  });
  assert.equal(signup.status, 200);
  assert.deepEqual(await signup.json().then(({ duration_ms, ...rest }) => rest), {
    verdict: "risky",
    reasons: ["address.street_corrected"],
    signals: {
      email: { verdict: "deliverable", reasons: [], suggestion: null },
      address: { verdict: "corrected", reasons: ["street_corrected"], normalized: "1 Rue Corrected, 00000 Testville" },
    },
  });
  const emailOnly = await (await server.post("/v1/signup", key, { email: "undeliverable@vrai.test" })).json();
  assert.equal(emailOnly.verdict, "undeliverable");
  assert.deepEqual(Object.keys(emailOnly.signals), ["email"]);
  assert.equal((await server.post("/v1/signup", key, { email: "jane@example.com" })).status, 400);

  const bulk = await server.post("/v1/email/bulk", key, {
    emails: ["deliverable@vrai.test", "Greylisted@vrai.test", "DELIVERABLE@vrai.test "],
  });
  assert.equal(bulk.status, 202);
  const accepted = await bulk.json();
  assert.equal(accepted.total, 2);
  assert.equal(bulk.headers.get("location"), accepted.poll);
  const job = await (await server.get(`/v1/jobs/${accepted.job_id}`, key)).json();
  assert.equal(job.status, "completed");
  assert.deepEqual(
    job.results.map((r: { email: string; verdict: string }) => [r.email, r.verdict]),
    [
      ["deliverable@vrai.test", "deliverable"],
      ["Greylisted@vrai.test", "unknown"],
    ],
  );
  assert.equal(
    (await server.post("/v1/email/bulk", key, { emails: ["deliverable@vrai.test", "jane@example.com"] })).status,
    400,
  );
});
