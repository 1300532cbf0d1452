// How bulk uploads are read, through the real server, on both bulk routes: after the caller is admitted (a 401 comes
// before the body has arrived), as the body arrives (a 413 comes as soon as the first row past the plan's limit has
// arrived, while the client is still sending), as JSON, CSV or a form with one CSV file part (multipart/form-data, as
// an HTML upload form sends it), with a 415 listing every accepted type; and the CSV results are sent as a stream.
import { test } from "node:test";
import assert from "node:assert/strict";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { parse } from "csv-parse/sync";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { RESERVED_ADDRESS_LINES } from "../../src/testmode/address.ts";
import { RESERVED_EMAILS } from "../../src/testmode/email.ts";
import { plansFile } from "../helpers/plans_file.ts";

const PLANS_FILE = plansFile({
  small: {
    quota: { email: 100, address: 100 },
    rate: { per_minute: 6000, burst: 0 },
    batch_max: 6,
    address_batch_max: 8,
  },
});

const ACCEPTED = ["application/json", "text/csv", "multipart/form-data"];

interface Open {
  response: Promise<{ status: number; body: string; headers: IncomingMessage["headers"] }>;
  /** Bytes written so far (the request is never ended by the test). */
  written: () => number;
  close(): void;
}

/** A POST that sends `head` and then stays open, as a large upload still on its way: the answer comes before its end. */
function openUpload(server: TestServer, path: string, headers: Record<string, string>, head: string): Open {
  const url = new URL(path, server.url);
  let written = 0;
  const req = httpRequest({
    host: url.hostname,
    port: url.port,
    path: url.pathname,
    method: "POST",
    // A 40 MiB file announced: the server must answer without waiting for it.
    headers: { ...headers, "content-length": String(40 * 1024 * 1024) },
  });
  req.on("error", () => {});
  const response = new Promise<{ status: number; body: string; headers: IncomingMessage["headers"] }>(
    (resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no answer while the upload was still open")), 10_000);
      req.on("response", (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8"), headers: res.headers });
        });
      });
    },
  );
  req.write(head, () => {
    written += Buffer.byteLength(head);
  });
  return { response, written: () => written, close: () => req.destroy() };
}

async function start(t: Parameters<typeof startTestServer>[0]) {
  const server = await startTestServer(t, { env: { PLANS_FILE } });
  return { server, key: await server.key({ plan: "small" }) };
}

test("an upload without a valid key is answered 401 before its body has arrived", async (t) => {
  const { server } = await start(t);
  for (const path of ["/v1/email/bulk", "/v1/address/bulk"]) {
    const open = openUpload(server, path, { "content-type": "text/csv" }, "adresse\n1 rue de Rivoli 75001 Paris\n");
    t.after(() => open.close());
    const answer = await open.response;
    assert.equal(answer.status, 401, path);
    assert.equal(answer.headers.connection, "close", "the rest of the body is not read");
  }
});

test("a 413 names the plan's limit as soon as the first row past it has arrived, the upload still open", async (t) => {
  const { server, key } = await start(t);
  const auth = { authorization: `Bearer ${key}` };
  const cases: Array<[string, string, string, number]> = [
    [
      "/v1/address/bulk",
      "text/csv",
      `id;adresse\n${Array.from({ length: 9 }, (_, i) => `${i};${i + 1} rue de Rivoli 75001 Paris`).join("\n")}\n`,
      8,
    ],
    [
      "/v1/address/bulk",
      "application/json",
      `{"addresses": [${Array.from({ length: 9 }, (_, i) => `"${i + 1} rue de Rivoli 75001 Paris"`).join(",")},`,
      8,
    ],
    ["/v1/email/bulk", "application/json", `{"emails": [${Array.from({ length: 7 }, (_, i) => `"u${i}@d.fr"`)},`, 6],
    ["/v1/email/bulk", "text/csv", `email\n${Array.from({ length: 7 }, (_, i) => `u${i}@d.fr`).join("\n")}\n`, 6],
  ];
  for (const [path, type, head, limit] of cases) {
    const open = openUpload(server, path, { ...auth, "content-type": type }, head);
    t.after(() => open.close());
    const answer = await open.response;
    assert.equal(answer.status, 413, `${path} ${type}: ${answer.body}`);
    const problem = JSON.parse(answer.body);
    assert.equal(problem.type, `${server.url}/errors/batch-too-large`);
    assert.equal(problem.limit, limit);
    assert.equal(problem.received, limit + 1, "refused at the first row too many");
    assert.match(problem.detail, new RegExp(`more than ${limit} (rows|addresses), the plan allows ${limit}`));
    assert.ok(open.written() < 4096, "a few rows sent of a 40 MiB upload");
  }
  // Nothing was charged.
  const ok = await server.post("/v1/email/bulk", key, { emails: ["a@gmial.com"] });
  assert.equal(ok.headers.get("x-quota-remaining"), "99");
});

test("a form upload with one CSV file part is read as the CSV body, on both bulk routes", async (t) => {
  const { server, key } = await start(t);
  const testKey = await server.key({ plan: "small", mode: "test", account: "sandbox" });
  const postForm = (path: string, k: string, form: FormData, query = "") =>
    fetch(`${server.url}${path}${query}`, { method: "POST", headers: { authorization: `Bearer ${k}` }, body: form });

  // An address file, as an upload form sends it (a test key answers the reserved rows offline).
  const addressFile = `id;adresse\n${RESERVED_ADDRESS_LINES.map((line, i) => `c${i};${line}`).join("\n")}\n`;
  const form = new FormData();
  form.append("note", "sent from the back office");
  form.append("file", new Blob([addressFile], { type: "text/csv" }), "customers.csv");
  const accepted = await postForm("/v1/address/bulk", testKey, form);
  assert.equal(accepted.status, 202, await accepted.clone().text());
  const { job_id, total } = await accepted.json();
  assert.equal(total, RESERVED_ADDRESS_LINES.length);
  const csv = await fetch(`${server.url}/v1/jobs/${job_id}`, {
    headers: { authorization: `Bearer ${testKey}`, accept: "text/csv" },
  });
  assert.equal(csv.status, 200);
  assert.equal(csv.headers.get("content-length"), null, "the results are sent as a stream");
  assert.equal(csv.headers.get("transfer-encoding"), "chunked");
  const rows = parse(await csv.text()) as string[][];
  assert.deepEqual(rows[0]!.slice(0, 3), ["id", "adresse", "verdict"]);
  assert.deepEqual(
    rows.slice(1).map((r) => r[0]),
    RESERVED_ADDRESS_LINES.map((_, i) => `c${i}`),
  );

  // An email file; its form's callback_url field is judged as the query parameter is.
  const emails = new FormData();
  emails.append("file", new Blob([`name,email\n${RESERVED_EMAILS.map((e, i) => `P${i},${e}`).join("\n")}\n`]), "l.csv");
  const emailJob = await postForm("/v1/email/bulk", testKey, emails);
  assert.equal(emailJob.status, 202, await emailJob.clone().text());
  assert.equal((await emailJob.json()).total, RESERVED_EMAILS.length);
  const refusedHook = new FormData();
  refusedHook.append("callback_url", "https://10.0.0.1/hook");
  refusedHook.append("file", new Blob(["email\na@gmial.com\n"]), "l.csv");
  const hook = await postForm("/v1/email/bulk", key, refusedHook);
  assert.equal(hook.status, 400);
  assert.match((await hook.json()).detail, /10\.0\.0\.1 is a private address/);

  // Too many rows in a form: the same 413.
  const big = new FormData();
  big.append("file", new Blob([`email\n${Array.from({ length: 7 }, (_, i) => `u${i}@d.fr`).join("\n")}\n`]), "l.csv");
  const tooMany = await postForm("/v1/email/bulk", key, big);
  assert.equal(tooMany.status, 413);
  assert.equal((await tooMany.json()).limit, 6);

  // A form without a file, or with two, is a 400 that says what to send; a broken line names it.
  const none = new FormData();
  none.append("adresse", "1 rue de Rivoli");
  const two = new FormData();
  two.append("a", new Blob(["adresse\nx\n"]), "a.csv");
  two.append("b", new Blob(["adresse\ny\n"]), "b.csv");
  const broken = new FormData();
  broken.append("file", new Blob(['adresse,n\n"1 rue de Rivoli,1\n']), "a.csv");
  const cases: Array<[FormData, RegExp]> = [
    [none, /holds no file; send the list as one CSV file part/],
    [two, /holds several files; send one CSV file/],
    [broken, /line 2: a quoted field is never closed/],
  ];
  for (const [body, detail] of cases) {
    const response = await postForm("/v1/address/bulk", key, body);
    assert.equal(response.status, 400, String(detail));
    const problem = await response.json();
    assert.equal(problem.type, `${server.url}/errors/invalid-request`);
    assert.match(problem.detail, detail);
  }
  const noBoundary = await fetch(`${server.url}/v1/address/bulk`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "multipart/form-data" },
    body: "adresse\nx\n",
  });
  assert.equal(noBoundary.status, 400);
  assert.match((await noBoundary.json()).detail, /^Cannot read the form: /);
});

test("a 415 on either bulk route lists every accepted type", async (t) => {
  const { server, key } = await start(t);
  for (const path of ["/v1/email/bulk", "/v1/address/bulk"]) {
    const response = await fetch(`${server.url}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/x-www-form-urlencoded" },
      body: "adresse=1+rue+de+Rivoli",
    });
    assert.equal(response.status, 415, path);
    const problem = await response.json();
    assert.deepEqual(problem.accepted, ACCEPTED);
    assert.equal(
      problem.detail,
      "Cannot read body: content type application/x-www-form-urlencoded is not one of " +
        "application/json, text/csv, multipart/form-data",
    );
  }
  // A single call still reads JSON only.
  const single = await fetch(`${server.url}/v1/email`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "text/csv" },
    body: "email\na@b.fr\n",
  });
  assert.equal(single.status, 415);
  assert.deepEqual((await single.json()).accepted, ["application/json"]);
});

test("a JSON body that gives its list member twice is a 400 naming it, and leaves no job", async (t) => {
  const { server, key } = await start(t);
  // JSON.parse would keep the last list; the rows of the first may be written away already: neither is taken.
  const bodies = {
    "/v1/email/bulk": ['{"emails": ["jane@example.com"], "emails": ["john@example.com"]}'],
    "/v1/address/bulk": [
      '{"addresses": ["1 rue de Rivoli 75001 Paris"], "addresses": ["2 rue de Rivoli 75001 Paris"]}',
      '{"addresses": ["1 rue de Rivoli 75001 Paris"], "addresses": []}',
    ],
  };
  for (const [path, sent] of Object.entries(bodies)) {
    const member = path === "/v1/email/bulk" ? "emails" : "addresses";
    for (const body of sent) {
      const response = await server.post(path, key, body);
      assert.equal(response.status, 400, `${path} ${body}`);
      const problem = await response.json();
      assert.match(problem.type, /\/errors\/invalid-request$/);
      assert.equal(problem.detail, `Cannot read body: the member "${member}" is given more than once; send one list`);
      assert.deepEqual(problem.errors, [{ member, message: "given more than once" }]);
    }
  }
  assert.equal((await server.core.db.sql`select count(*)::int as n from jobs`)[0]!.n, 0);
  // The same list given once is a job.
  const once = await server.post("/v1/address/bulk", key, { addresses: ["1 rue de Rivoli 75001 Paris"] });
  assert.equal(once.status, 202, await once.clone().text());
});
