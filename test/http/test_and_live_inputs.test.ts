// A test key answers the reserved test inputs only, a live key everything but them: an input of the other kind, on any
// endpoint that takes inputs (single calls, and both bulk endpoints in JSON and CSV), is a 400 request-failed whose
// detail names the first such row and why, with every such row in `errors`; nothing is verified and nothing charged.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { AddressVerifier } from "../../src/services.ts";
import { ROOT } from "../helpers/process.ts";
import type { EmailVerifier } from "../../src/email/verifier.ts";

/** Engines that answer anything and record what reached them: a refused input must never get there. */
function recordingEngines() {
  const reached: unknown[] = [];
  const email = {
    verify: async (address: string) => {
      reached.push(address);
      return { email: address, verdict: "unknown", reasons: ["domain_does_not_resolve"], duration_ms: 0 };
    },
  } as unknown as Pick<EmailVerifier, "verify">;
  const address: AddressVerifier = {
    ready: true,
    verify: async (input) => {
      reached.push(input);
      return { verdict: "unknown", reasons: ["postcode_not_covered"], normalized: null, duration_ms: 0 };
    },
  };
  return { reached, email, address };
}

interface Problem {
  type: string;
  status: number;
  detail: string;
  line?: number;
  errors?: Array<{ member: string; message: string }>;
}

async function refusal(response: Response): Promise<Problem> {
  assert.equal(response.status, 400);
  assert.equal(response.headers.get("content-type"), "application/problem+json");
  const problem = (await response.json()) as Problem;
  assert.match(problem.type, /\/errors\/request-failed$/);
  return problem;
}

/** What the README's section on test keys quotes: the test key's answer to a mixed list, the live key's to a test input. */
function readmeQuotes(): { testKeyList: string; liveKey: string } {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8").replace(/\s*\n\s*/g, " ");
  const testKeyList = /is told `(Cannot accept batch with a test key: [^`]*)`/.exec(readme)?.[1];
  const liveKey = /# 400 request-failed: (Cannot verify with a live key: .*?) ```/.exec(readme)?.[1];
  assert.ok(testKeyList && liveKey, "the README quotes both refusals");
  return { testKeyList, liveKey };
}

/** `text` with each part of `quoted` between its "…" in order: the README leaves out, never changes. */
function assertQuotes(text: string, quoted: string): void {
  let from = 0;
  for (const part of quoted.split("…")) {
    const at = text.indexOf(part, from);
    assert.ok(at >= 0, `the README's "${quoted}" is what the server says: "${text}"`);
    from = at + part.length;
  }
}

const csv = (server: TestServer, path: string, key: string, text: string) =>
  server.post(path, key, text, { "content-type": "text/csv" });

test("inputs of the other key mode are refused on every endpoint that takes inputs", async (t) => {
  // One server for all: test keys never reach the engines, and the live checks count what does.
  const engines = recordingEngines();
  const server = await startTestServer(t, { email: engines.email, address: engines.address });
  await t.test("a test key's list with real data names the first row that is not reserved, and lists each", () =>
    testKeyLists(server),
  );
  await t.test("a test key's single call with real data names the member and what is answered", () =>
    testKeySingleCalls(server),
  );
  await t.test(
    "a live key given a reserved test input says that test inputs need a test key, and verifies nothing",
    () => liveKeyTestInputs(server, engines.reached),
  );
});

async function testKeyLists(server: TestServer) {
  const key = await server.key({ mode: "test" });

  const quoted = await refusal(
    await server.post("/v1/email/bulk", key, { emails: ["deliverable@vrai.test", "jane@example.com"] }),
  );
  assertQuotes(quoted.detail, readmeQuotes().testKeyList);

  const emails = await refusal(
    await server.post("/v1/email/bulk", key, {
      emails: ["deliverable@vrai.test", "jane@example.com", "greylisted@vrai.test", "bob@example.org"],
    }),
  );
  assert.match(
    emails.detail,
    /^Cannot accept batch with a test key: emails\[1\] "jane@example\.com" is not a reserved/,
  );
  assert.match(emails.detail, /and 1 more row/);
  assert.match(emails.detail, /deliverable@vrai\.test, undeliverable@vrai\.test/, "the detail says what is answered");
  assert.match(emails.detail, /live key/, "the detail says what real data needs");
  assert.deepEqual(emails.errors, [
    { member: "emails[1]", message: '"jane@example.com" is not a reserved test input' },
    { member: "emails[3]", message: '"bob@example.org" is not a reserved test input' },
  ]);

  const many = await refusal(
    await server.post("/v1/email/bulk", key, { emails: Array.from({ length: 60 }, (_, i) => `user${i}@example.com`) }),
  );
  assert.match(many.detail, /emails\[0\] "user0@example\.com" .* \(and 59 more rows, the first 50 listed in errors\)/);
  assert.equal(many.errors?.length, 50);
  assert.equal(many.errors?.at(-1)?.member, "emails[49]");

  const emailCsv = await refusal(
    await csv(server, "/v1/email/bulk", key, "ref;email\nA1;deliverable@vrai.test\nA2;jane@example.com\n"),
  );
  assert.match(emailCsv.detail, /: line 3 "jane@example\.com" is not a reserved test input/);
  assert.equal(emailCsv.line, 3);
  assert.deepEqual(emailCsv.errors, [{ member: "line 3", message: '"jane@example.com" is not a reserved test input' }]);

  const addresses = await refusal(
    await server.post("/v1/address/bulk", key, {
      addresses: [
        "1 Rue Deliverable, 00000 Testville",
        { house_number: "12", street: "Rue de Rivoli", postcode: "75001", city: "Paris" },
      ],
    }),
  );
  assert.match(addresses.detail, /addresses\[1\] "12 Rue de Rivoli 75001 Paris" is not a reserved test input/);
  assert.match(addresses.detail, /00000 Testville/);
  assert.deepEqual(
    addresses.errors?.map((e) => e.member),
    ["addresses[1]"],
  );

  const addressCsv = await refusal(
    await csv(
      server,
      "/v1/address/bulk",
      key,
      'id;adresse\n1;1 Rue Corected, 00000 Testville\n2;"12 rue de rivoli\n75001 paris"\n3;Rue Deliverable, 00000 Testville\n',
    ),
  );
  assert.equal(addressCsv.line, 3, "a row starts on the line its quoted field opens");
  assert.deepEqual(
    addressCsv.errors?.map((e) => e.member),
    ["line 3"],
  );

  // The reserved rows alone are answered, as before.
  const reserved = await csv(server, "/v1/email/bulk", key, "ref;email\nA1;deliverable@vrai.test\n");
  assert.equal(reserved.status, 202);
}

async function testKeySingleCalls(server: TestServer) {
  const key = await server.key({ mode: "test" });
  const email = await refusal(await server.post("/v1/email", key, { email: "jane@example.com" }));
  assert.match(email.detail, /^Cannot verify with a test key: email "jane@example\.com" is not a reserved test input/);
  assert.deepEqual(email.errors, [{ member: "email", message: '"jane@example.com" is not a reserved test input' }]);

  const address = await refusal(await server.post("/v1/address", key, { line: "12 Rue de Rivoli, 75001 Paris" }));
  assert.match(address.detail, /: "12 Rue de Rivoli, 75001 Paris" is not a reserved test input/);
  assert.deepEqual(
    address.errors?.map((e) => e.member),
    ["(body)"],
  );

  const signup = await refusal(
    await server.post("/v1/signup", key, {
      email: "deliverable@vrai.test",
      address: { line: "12 Rue de Rivoli, 75001 Paris" },
    }),
  );
  assert.match(signup.detail, /address "12 Rue de Rivoli, 75001 Paris" is not a reserved test input/);
}

async function liveKeyTestInputs(server: TestServer, reached: unknown[]) {
  const key = await server.key({ mode: "live" });

  const email = await server.post("/v1/email", key, { email: "deliverable@vrai.test" });
  assert.equal(email.headers.get("x-quota-remaining"), "100", "nothing is charged");
  const problem = await refusal(email);
  assert.match(
    problem.detail,
    /^Cannot verify with a live key: email "deliverable@vrai\.test" is a reserved test input/,
  );
  assert.match(problem.detail, /test key \(vrai_test_…: npm run keys -- create --account NAME --mode test\)/);
  assert.equal(problem.detail, readmeQuotes().liveKey, "the README shows the answer word for word");
  assert.deepEqual(problem.errors, [{ member: "email", message: '"deliverable@vrai.test" is a reserved test input' }]);

  const address = await refusal(await server.post("/v1/address", key, { line: "1 Rue Deliverable, 00000 Testville" }));
  assert.match(address.detail, /"1 Rue Deliverable, 00000 Testville" is a reserved test input/);

  const signup = await refusal(
    await server.post("/v1/signup", key, {
      email: "greylisted@vrai.test",
      address: { house_number: "1", street: "Rue Unknown", postcode: "00000", city: "Testville" },
    }),
  );
  assert.match(signup.detail, /email "greylisted@vrai\.test" is a reserved test input/);

  const bulk = await refusal(
    await server.post("/v1/email/bulk", key, { emails: ["jane@example.com", "Deliverable@vrai.test "] }),
  );
  assert.match(bulk.detail, /^Cannot accept batch with a live key: emails\[1\] "Deliverable@vrai\.test" is a reserved/);

  const addressCsv = await refusal(
    await csv(
      server,
      "/v1/address/bulk",
      key,
      "adresse\n12 Rue de Rivoli 75001 Paris\n1 Rue Nonexistent 00000 Testville\n",
    ),
  );
  assert.equal(addressCsv.line, 3);
  assert.deepEqual(reached, [], "no refused input reached an engine");

  // Everything else still goes to the engines: another address at vrai.test is real data as far as the key goes.
  const other = await server.post("/v1/email", key, { email: "nobody@vrai.test" });
  assert.equal(other.status, 200);
  assert.equal(other.headers.get("x-quota-remaining"), "99");
  assert.deepEqual(reached, ["nobody@vrai.test"]);
}
