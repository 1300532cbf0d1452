// POST /v1/address/bulk holds no file whole: the rows of an upload are written to its job, chunk after chunk, while
// the body is still arriving, and the job stays invisible (404) until the upload is answered 202. An upload that ends
// in anything else (the client gone, a 413 at the first row too many, a 400 for a bad row, a 402) leaves no job and no
// chunk behind and charges nothing. On the embedded database and on the local PostgreSQL.
import { test } from "node:test";
import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { eventually } from "../helpers/eventually.ts";
import { plansFile } from "../helpers/plans_file.ts";
import type { DatabaseKind } from "../helpers/database.ts";

const PLANS_FILE = plansFile({
  rows: {
    quota: { email: 100, address: 5000 },
    rate: { per_minute: 6000, burst: 0 },
    batch_max: 100,
    address_batch_max: 6000,
  },
});

/** Distinct address lines. */
const lines = (from: number, n: number) => Array.from({ length: n }, (_, i) => `${from + i} rue de Rivoli 75001 Paris`);
/** Those lines as items of a JSON list, comma-separated (no brackets). */
const jsonRows = (from: number, n: number) =>
  lines(from, n)
    .map((l) => JSON.stringify(l))
    .join(",");
/** Those lines as rows of an `id;adresse` CSV file, one per line (no header). */
const csvRows = (from: number, n: number) =>
  lines(from, n)
    .map((l, i) => `${i};${l}`)
    .join("\n");

interface Upload {
  response: Promise<{ status: number; body: string }>;
  /** Sends more of the body. */
  send(text: string): Promise<void>;
  /** Ends the body. */
  end(text?: string): void;
  /** Goes away mid-upload. */
  abort(): void;
}

/** A POST whose body the test sends piece by piece. */
function upload(server: TestServer, key: string, type: string): Upload {
  const url = new URL("/v1/address/bulk", server.url);
  const req = httpRequest({
    host: url.hostname,
    port: url.port,
    path: url.pathname,
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": type, "transfer-encoding": "chunked" },
  });
  req.on("error", () => {});
  const response = new Promise<{ status: number; body: string }>((resolve) => {
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
    });
  });
  return {
    response,
    send: (text) => new Promise((resolve, reject) => req.write(text, (error) => (error ? reject(error) : resolve()))),
    end: (text) => req.end(text),
    abort: () => req.destroy(),
  };
}

async function stored(server: TestServer) {
  const sql = server.core.db.sql;
  const [jobs] = await sql`select count(*)::int as n from jobs`;
  const [chunks] = await sql`select count(*)::int as n from address_job_chunks`;
  return { jobs: jobs!.n as number, chunks: chunks!.n as number };
}

/** The job being uploaded, once its first chunks are in the database. */
async function uploadingJob(server: TestServer): Promise<{ id: string; status: string; chunks: number }> {
  const job = await eventually(
    "chunks of the upload in the database while it is still sent",
    async () => {
      const [row] = await server.core.db.sql`
        select j.id, j.status, (select count(*)::int from address_job_chunks c where c.job_id = j.id) as chunks
        from jobs j`;
      return row as { id: string; status: string; chunks: number } | undefined;
    },
    { until: (row) => (row?.chunks ?? 0) > 0, timeoutMs: 20_000 },
  );
  return job!;
}

async function quotaLeft(server: TestServer, key: string): Promise<string | null> {
  // A refused single call (400) charges nothing and shows what is left.
  const answer = await server.post("/v1/address", key, {});
  return answer.headers.get("x-quota-remaining");
}

for (const database of ["embedded", "postgres"] as DatabaseKind[]) {
  test(`on the ${database} database, an upload's rows are written while it arrives, invisible until its 202`, {
    timeout: 120_000,
  }, async (t) => {
    const server = await startTestServer(t, { database, env: { PLANS_FILE } });
    const key = await server.key({ plan: "rows" });
    const sending = upload(server, key, "application/json");
    await sending.send(`{"addresses": [${jsonRows(1, 4500)},`);
    const job = await uploadingJob(server);
    assert.equal(job.status, "uploading");
    assert.ok(job.chunks >= 4, `whole chunks written before the end of the body: ${job.chunks}`);
    const early = await server.get(`/v1/jobs/${job.id}`, key);
    assert.equal(early.status, 404, "a job still uploading is no job yet");

    await sending.send(`${jsonRows(4501, 499)},`);
    sending.end(`"1 RUE DE RIVOLI 75001 PARIS"]}`);
    const answer = await sending.response;
    assert.equal(answer.status, 202, answer.body);
    const accepted = JSON.parse(answer.body);
    assert.equal(accepted.job_id, job.id);
    assert.equal(accepted.total, 5000);
    assert.equal(await quotaLeft(server, key), "1", "4999 distinct rows charged");
    const read = await (await server.get(`/v1/jobs/${job.id}?limit=1`, key)).json();
    assert.equal(read.status, "queued");
    assert.equal(read.total, 5000);
    assert.deepEqual(await stored(server), { jobs: 1, chunks: 5 });
  });

  test(`on the ${database} database, an upload refused or broken off mid-way leaves nothing and charges nothing`, {
    timeout: 120_000,
  }, async (t) => {
    const server = await startTestServer(t, { database, env: { PLANS_FILE } });
    const key = await server.key({ plan: "rows" });
    const nothingLeft = async (what: string) => {
      await eventually(`nothing stored after ${what}`, () => stored(server), {
        until: (s) => s.jobs === 0 && s.chunks === 0,
        timeoutMs: 10_000,
      });
      assert.equal(await quotaLeft(server, key), "5000", `nothing charged after ${what}`);
    };

    // The client goes away.
    const gone = upload(server, key, "text/csv");
    await gone.send(`id;adresse\n${csvRows(1, 4500)}\n`);
    await uploadingJob(server);
    gone.abort();
    await nothingLeft("the client went away");

    // The first row past the plan's 6000: 413.
    const long = upload(server, key, "text/csv");
    await long.send(`id;adresse\n${csvRows(1, 4500)}\n`);
    await uploadingJob(server);
    await long.send(`${csvRows(4501, 1501)}\n`);
    const tooMany = await long.response;
    assert.equal(tooMany.status, 413, tooMany.body);
    long.abort();
    await nothingLeft("a 413");

    // A bad row after 4500 good ones: 400 once the body has ended.
    const bad = upload(server, key, "application/json");
    await bad.send(`{"addresses": [${jsonRows(1, 4500)},`);
    await uploadingJob(server);
    bad.end(`{"line": 5}]}`);
    const refused = await bad.response;
    assert.equal(refused.status, 400, refused.body);
    assert.match(JSON.parse(refused.body).detail, /addresses\[4500\]/);
    await nothingLeft("a 400");

    // More distinct rows than the 5000 left: 402.
    const dear = upload(server, key, "application/json");
    await dear.send(`{"addresses": [${jsonRows(1, 4500)},`);
    await uploadingJob(server);
    dear.end(`${jsonRows(4501, 501)}]}`);
    const unpaid = await dear.response;
    assert.equal(unpaid.status, 402, unpaid.body);
    await nothingLeft("a 402");
  });
}
