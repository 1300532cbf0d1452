// test-scope: once
// (Answers over the Paris file, which no runtime changes: CI runs this file on its recommended runtime only.)
// POST /v1/address/bulk over HTTP, as a client uses it, on the real Paris BAN file: JSON and CSV in, the job read in
// pages and with its summary, CSV out with the answer's columns, test keys, the quota and the row limit, and
// Idempotency-Key. The index is imported once for the file; each test runs its own server and runner over it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parse } from "csv-parse/sync";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { createAddressService } from "../../src/address/service.ts";
import { importBan } from "../../src/address/index/import.ts";
import { startAddressJobRunner } from "../../src/jobs/address_runner.ts";
import { silentLogger } from "../../src/log.ts";
import { copyCachedReference } from "../helpers/reference_cache.ts";
import { plansFile } from "../helpers/plans_file.ts";

const PARIS = resolve("../shared/data/ban/adresses-75.csv.gz");
const skip = existsSync(PARIS) ? false : `real Paris BAN file absent at ${PARIS}: bulk address HTTP tests skipped`;

const PLANS_FILE = plansFile({
  small: {
    quota: { email: 10, address: 5 },
    rate: { per_minute: 6000, burst: 0 },
    batch_max: 10,
    address_batch_max: 8,
  },
  big: { quota: null, rate: { per_minute: 6000, burst: 0 }, batch_max: 5000 },
});

let indexDir = "";
before(async () => {
  if (skip) return;
  indexDir = mkdtempSync(join(tmpdir(), "vrai-bulk-ban-"));
  copyCachedReference(indexDir);
  await importBan(PARIS, { banSource: dirname(PARIS), indexDir });
});
after(() => {
  if (indexDir) rmSync(indexDir, { recursive: true, force: true });
});

async function bulkServer(t: Parameters<typeof startTestServer>[0]): Promise<TestServer> {
  const server = await startTestServer(t, {
    env: { PLANS_FILE, BAN_SOURCE: dirname(PARIS), BAN_DEPARTEMENTS: "75", BAN_INDEX_DIR: indexDir, WORKERS: "1" },
    engines: async (_core, config) => ({ address: await createAddressService(config, { watch: false }) }),
  });
  const address = server.services.address as unknown as Parameters<typeof startAddressJobRunner>[0]["verifier"] & {
    close(): Promise<void>;
  };
  const runner = startAddressJobRunner({ sql: server.core.db.sql, verifier: address, log: silentLogger, pollMs: 50 });
  server.onClose(() => address.close());
  server.onClose(() => runner.stop());
  return server;
}

async function finished(server: TestServer, key: string, id: string) {
  for (let i = 0; i < 400; i++) {
    const job = await (await server.get(`/v1/jobs/${id}`, key)).json();
    if (job.status === "completed" || job.status === "failed") return job;
    await sleep(50);
  }
  throw new Error("job did not finish");
}

function postCsv(server: TestServer, key: string, text: string, headers: Record<string, string> = {}) {
  return fetch(`${server.url}/v1/address/bulk`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "text/csv", ...headers },
    body: text,
  });
}

function getCsv(server: TestServer, key: string, id: string) {
  return fetch(`${server.url}/v1/jobs/${id}`, { headers: { authorization: `Bearer ${key}`, accept: "text/csv" } });
}

test("a JSON list is verified as a job: every row answered in input order, equal rows verified and charged once", {
  skip,
}, async (t) => {
  const server = await bulkServer(t);
  const key = await server.key({ plan: "small" });
  const addresses = [
    { line: "150 rue de rivoli 75001 paris" },
    "12 rue des Zorglubs Imaginaires, 75001 Paris",
    { house_number: "150", street: "R DE RIVOLI", postcode: "75001", city: "PARIS" },
    { line: " 150 Rue de Rivoli  75001 PARIS" },
    { line: "150 Rue de Rivili, 75001 Paris" },
  ];
  const response = await server.post("/v1/address/bulk", key, { addresses });
  assert.equal(response.status, 202, await response.clone().text());
  const accepted = await response.json();
  assert.equal(accepted.total, 5);
  assert.equal(response.headers.get("location"), accepted.poll);
  // Four distinct rows: the fourth is the first one again.
  assert.equal(response.headers.get("x-quota-remaining"), "1");
  const job = await finished(server, key, accepted.job_id);
  assert.equal(job.status, "completed");
  assert.equal(job.processed, 5);
  assert.deepEqual(
    job.results.map((r: { row: number; verdict: string }) => [r.row, r.verdict]),
    [
      [1, "deliverable"],
      [2, "nonexistent"],
      [3, "deliverable"],
      [4, "deliverable"],
      [5, "corrected"],
    ],
  );
  assert.deepEqual(job.summary, { unknown: 0, nonexistent: 1, incomplete: 0, corrected: 1, deliverable: 3 });
  const first = job.results[0];
  assert.equal(first.normalized.line, "150 Rue de Rivoli, 75001 Paris");
  assert.equal(first.normalized.insee_code, "75101");
  assert.match(first.normalized.ban_id, /^75101_[a-z0-9]+_00150$/);
  assert.equal(first.normalized.postal_line_4, "150 RUE DE RIVOLI");
  assert.equal(first.normalized.postal_line_6, "75001 PARIS");
  assert.deepEqual(job.results[3], { ...first, row: 4 });

  // Pages: offset and limit over the finished rows, in input order.
  const page = await (await server.get(`/v1/jobs/${accepted.job_id}?offset=3&limit=2`, key)).json();
  assert.deepEqual(
    page.results.map((r: { row: number }) => r.row),
    [4, 5],
  );
  assert.equal(page.summary.deliverable, 3);
});

test("a CSV file with field columns comes back as CSV: the user's columns, then the answer's", { skip }, async (t) => {
  const server = await bulkServer(t);
  const key = await server.key({ plan: "big" });
  const file =
    "\uFEFFClient;Numéro;Voie;CP;Ville;Complement\r\n" +
    '42;150;"Rue de Rivoli";75001;Paris;"Bât. B; 2e étage"\r\n' +
    "43;2;Rue des Prêtres Saint-Germain l'Auxerrois;75001;Paris;\r\n" +
    "44;1;Rue Imaginaire du Zorglub;75001;Paris;\r\n";
  const response = await postCsv(server, key, file);
  assert.equal(response.status, 202, await response.clone().text());
  const { job_id: id } = await response.json();
  await finished(server, key, id);
  const csv = await getCsv(server, key, id);
  assert.equal(csv.status, 200);
  assert.match(csv.headers.get("content-type") ?? "", /^text\/csv/);
  assert.equal(csv.headers.get("x-job-status"), "completed");
  const [header, ...rows] = parse(await csv.text()) as string[][];
  assert.deepEqual(header, [
    "Client",
    "Numéro",
    "Voie",
    "CP",
    "Ville",
    "Complement",
    "verdict",
    "reasons",
    "normalized_line",
    "normalized_house_number",
    "normalized_house_number_suffix",
    "normalized_street",
    "normalized_postcode",
    "normalized_city",
    "latitude",
    "longitude",
    "insee_code",
    "ban_id",
    "postal_line_4",
    "postal_line_6",
  ]);
  const byColumn = rows.map((row) => Object.fromEntries(header!.map((h, i) => [h, row[i]])));
  assert.deepEqual(
    byColumn.map((r) => [r.Client, r.Complement, r.verdict]),
    [
      ["42", "Bât. B; 2e étage", "deliverable"],
      ["43", "", "deliverable"],
      ["44", "", "nonexistent"],
    ],
  );
  assert.equal(byColumn[0]!.insee_code, "75101");
  assert.equal(byColumn[0]!.postal_line_4, "150 RUE DE RIVOLI");
  assert.equal(byColumn[0]!.postal_line_6, "75001 PARIS");
  assert.ok(Number(byColumn[0]!.latitude) > 48.8 && Number(byColumn[0]!.longitude) > 2.3);
  // 43 characters written out: shortened to 38 at most by BAN's own rules.
  assert.equal(byColumn[1]!.postal_line_4, "2 RUE PRETRES ST GERMAIN L AUXERROIS");
  assert.equal(byColumn[2]!.ban_id, "");
  assert.equal(byColumn[2]!.reasons, "street_not_found");
});

test("a CSV file with one address column, comma separated, and a file with no address column", { skip }, async (t) => {
  const server = await bulkServer(t);
  const key = await server.key({ plan: "big" });
  const good = await postCsv(
    server,
    key,
    'id,ADRESSE\n1,"150 rue de Rivoli, 75001 Paris"\n2,"9999 rue de Rivoli 75001 Paris"\n',
  );
  assert.equal(good.status, 202, await good.clone().text());
  const { job_id: id } = await good.json();
  await finished(server, key, id);
  const [header, ...rows] = parse(await (await getCsv(server, key, id)).text()) as string[][];
  assert.deepEqual(header!.slice(0, 3), ["id", "ADRESSE", "verdict"]);
  assert.deepEqual(
    rows.map((r) => [r[0], r[2], r[3]]),
    [
      ["1", "deliverable", ""],
      ["2", "nonexistent", "house_number_out_of_range"],
    ],
  );

  const none = await postCsv(server, key, "name,phone\nJane,0102030405\n");
  assert.equal(none.status, 400);
  const problem = await none.json();
  assert.equal(problem.line, 1);
  assert.match(problem.detail, /no address column/);
});

test("test keys answer the reserved addresses offline and refuse any other", { skip }, async (t) => {
  const server = await bulkServer(t);
  const key = await server.key({ plan: "small", mode: "test" });
  const response = await server.post("/v1/address/bulk", key, {
    addresses: ["1 Rue Deliverable, 00000 Testville", { line: "1 Rue Nonexistent, 00000 Testville" }],
  });
  assert.equal(response.status, 202);
  const accepted = await response.json();
  assert.equal(accepted.status, "completed");
  const job = await (await server.get(`/v1/jobs/${accepted.job_id}`, key)).json();
  assert.deepEqual(
    job.results.map((r: { verdict: string }) => r.verdict),
    ["deliverable", "nonexistent"],
  );
  assert.equal(job.results[0].normalized.postal_line_6, "00000 TESTVILLE");
  const refused = await server.post("/v1/address/bulk", key, { addresses: ["150 rue de Rivoli 75001 Paris"] });
  assert.equal(refused.status, 400);
  assert.match((await refused.json()).detail, /00000 Testville/);
});

test("the quota is charged per distinct row or not at all, and the plan's row limit is a 413 naming it", {
  skip,
}, async (t) => {
  const server = await bulkServer(t);
  const key = await server.key({ plan: "small" });
  const nine = Array.from({ length: 9 }, (_, i) => `${i + 1} rue de Rivoli 75001 Paris`);
  const tooMany = await server.post("/v1/address/bulk", key, { addresses: nine });
  assert.equal(tooMany.status, 413);
  const problem = await tooMany.json();
  assert.equal(problem.limit, 8);
  assert.equal(problem.received, 9);
  assert.match(problem.detail, /8 per address job/);
  // Six distinct rows against a quota of five: refused, nothing charged.
  const six = await server.post("/v1/address/bulk", key, { addresses: nine.slice(0, 6) });
  assert.equal(six.status, 402);
  assert.equal(six.headers.get("x-quota-remaining"), "5");
  // Five distinct rows in eight: accepted, the quota spent.
  const five = await server.post("/v1/address/bulk", key, { addresses: [...nine.slice(0, 5), ...nine.slice(0, 3)] });
  assert.equal(five.status, 202);
  assert.equal(five.headers.get("x-quota-remaining"), "0");
});

test("Idempotency-Key: the same list sent again is the same job, charged once; another list under it is refused", {
  skip,
}, async (t) => {
  const server = await bulkServer(t);
  const key = await server.key({ plan: "small" });
  const body = { addresses: ["150 rue de Rivoli 75001 Paris", "1 rue de Rivoli 75001 Paris"] };
  const headers = { "idempotency-key": "file-2026-11-29" };
  const first = await server.post("/v1/address/bulk", key, body, headers);
  assert.equal(first.status, 202);
  assert.equal(first.headers.get("x-quota-remaining"), "3");
  const again = await server.post("/v1/address/bulk", key, body, headers);
  assert.equal(again.status, 202);
  assert.equal(again.headers.get("idempotent-replayed"), "true");
  assert.equal((await again.json()).job_id, (await first.json()).job_id);
  assert.equal(again.headers.get("x-quota-remaining"), "3");
  const other = await server.post("/v1/address/bulk", key, { addresses: ["2 rue de Rivoli 75001 Paris"] }, headers);
  assert.equal(other.status, 400);
});
