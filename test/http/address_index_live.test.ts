// The street index of a running server. It listens at once: during a first import (no index at
// all) /healthz answers 200, /readyz 503 with Retry-After and the import's progress, address and signup calls 503
// service-unavailable with Retry-After, and progress lines say département, rows and percent; then it answers without
// a restart. An index written later by `npm run ban -- import` is taken up on SIGHUP and by the directory watch: an
// address there goes from unknown (postcode_not_covered) to a real verdict. The BAN download is a loopback server
// that holds the file three quarters through until the test lets it go.
import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { banCsvGz, COMMUNES } from "../address/ban_rows.ts";
import { eventually } from "../helpers/eventually.ts";
import { copyCachedReference } from "../helpers/reference_cache.ts";
import { readyzOk, runBanImportCli, runKeysCli, startChildServer, type ServerProcess } from "../helpers/process.ts";
import { tempDir, type TempDir } from "../helpers/temp_dir.ts";

/** 25 streets of 1200 numbers: 30,000 rows, so that progress is reported (every 16,384 rows) before the hold. */
const HELD_NUMBERS = 1200;
const LINES = {
  ambérieu: "12 Rue des Lilas, 01500 Ambérieu-en-Bugey",
  ajaccio: "12 Rue des Lilas, 20000 Ajaccio",
  saintDenis: "12 Rue des Lilas, 97400 Saint-Denis",
};

interface LogLine {
  msg: string;
  [field: string]: unknown;
}

/** The first log line of `server` with this message and département, once there is one. */
function lineOf(server: ServerProcess, msg: string, departement: string): Promise<LogLine> {
  return eventually(
    `a "${msg}" line for ${departement}`,
    () => logLines(server).find((l) => l.msg === msg && l.departement === departement),
    { timeoutMs: 60_000, intervalMs: 100 },
  ) as Promise<LogLine>;
}

function logLines(server: ServerProcess): LogLine[] {
  return server
    .output()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as LogLine);
}

/** `npm run ban -- import FILE` into `indexDir`, as an operator runs it beside the server. */
async function banImport(file: string, indexDir: string): Promise<void> {
  const { code, output } = await runBanImportCli(file, indexDir);
  assert.equal(code, 0, output);
}

describe("the street index of a running server", () => {
  let temp: TempDir;
  let ban: Server;
  let server: ServerProcess;
  let indexDir: string;
  let key: string;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const env: Record<string, string> = {};

  const post = (path: string, body: unknown) =>
    fetch(server.url + path, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify(body),
    });
  const verdictOf = async (line: string) => {
    const answer = await post("/v1/address", { line });
    assert.equal(answer.status, 200, await answer.clone().text());
    const { verdict, reasons } = await answer.json();
    return [verdict, reasons];
  };

  before(async () => {
    temp = tempDir("vrai-index-live-");
    indexDir = join(temp.path, "index");
    mkdirSync(indexDir);
    // The commune reference only (no street index), copied when an earlier start left it, so that this start does
    // not compile it again (run alone, the server compiles it).
    copyCachedReference(indexDir);
    // Département 01 is served three quarters through, then held; 2A and 974 are not there (404).
    const held = banCsvGz(COMMUNES.ambérieu, HELD_NUMBERS);
    ban = createServer((req, res) => {
      if (req.url !== "/adresses-01.csv.gz") return void res.writeHead(404).end();
      res.writeHead(200, { "content-length": held.length });
      const cut = Math.floor(held.length * 0.75);
      res.write(held.subarray(0, cut));
      void released.then(() => res.end(held.subarray(cut)));
    });
    ban.listen(0, "127.0.0.1");
    await once(ban, "listening");
    Object.assign(env, { STATE_DIR: join(temp.path, "state") });
    server = await startChildServer("src/main.ts", {
      env: {
        ...env,
        BAN_DEPARTEMENTS: "01,2A,974",
        BAN_SOURCE: `http://127.0.0.1:${(ban.address() as AddressInfo).port}`,
        BAN_INDEX_DIR: indexDir,
        WORKERS: "1",
      },
      timeoutMs: 120_000,
    });
    const created = await runKeysCli(env, ["create", "--account", "index-live", "--json"]);
    assert.equal(created.code, 0, created.stderr);
    key = JSON.parse(created.stdout).key;
  });
  after(async () => {
    release();
    await server?.stop();
    ban?.close();
    temp?.remove();
  });

  test("during a first import it answers /healthz, refuses with 503 and Retry-After, and logs progress", async () => {
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
    const progress = await lineOf(server, "address index import progress", "01");
    assert.ok(typeof progress.rows === "number" && progress.rows > 0, JSON.stringify(progress));
    assert.ok(typeof progress.percent === "number" && progress.percent > 0 && progress.percent < 100);

    const ready = await fetch(`${server.url}/readyz`);
    assert.equal(ready.status, 503);
    assert.ok(Number(ready.headers.get("retry-after")) > 0, "503 without Retry-After");
    const index = (await ready.json()).checks.address_index;
    assert.equal(index.status, "importing");
    assert.deepEqual(index.departements, ["01", "2A", "974"]);
    assert.equal(index.progress.departement, "01");
    assert.ok(index.progress.rows > 0 && index.progress.percent > 0, JSON.stringify(index));

    for (const [path, body] of [
      ["/v1/address", { line: LINES.ambérieu }],
      ["/v1/signup", { email: "jane.doe@gmial.com", address: { line: LINES.ambérieu } }],
    ] as const) {
      const refused = await post(path, body);
      assert.equal(refused.status, 503, `${path}: ${await refused.clone().text()}`);
      assert.ok(Number(refused.headers.get("retry-after")) > 0, `${path}: 503 without Retry-After`);
      const problem = await refused.json();
      assert.match(problem.type, /\/errors\/service-unavailable$/);
      assert.match(problem.detail, /being imported/);
    }
  });

  test("once the import is over it is ready and answers, without a restart", async () => {
    release();
    const ready = await readyzOk(server.url);
    // 2A and 974 are not at BAN_SOURCE: missing, with the fix, and not a reason to be unready.
    assert.equal(ready.body.checks.address_index.status, "missing");
    assert.deepEqual(ready.body.checks.address_index.departements, ["2A", "974"]);
    assert.deepEqual(await verdictOf(LINES.ambérieu), ["deliverable", []]);
    assert.deepEqual(await verdictOf(LINES.ajaccio), ["unknown", ["postcode_not_covered"]]);
    assert.ok(logLines(server).some((l) => l.msg === "address index imported" && l.departement === "01"));
  });

  test("an index imported beside it is taken up on SIGHUP", async () => {
    // Imported elsewhere, then renamed into the index directory and signalled at once: the watch waits for quiet
    // before it reads the directory, so the SIGHUP is what takes it up.
    const staging = join(temp.path, "staging");
    const file = join(temp.path, "adresses-2A.csv.gz");
    writeFileSync(file, banCsvGz(COMMUNES.ajaccio));
    await banImport(file, staging);
    renameSync(join(staging, "ban-2A.idx"), join(indexDir, "ban-2A.idx"));
    server.child.kill("SIGHUP");
    const taken = await lineOf(server, "address index taken up", "2A");
    assert.equal(taken.trigger, "SIGHUP");
    assert.equal(taken.addresses, 500);
    assert.deepEqual(await verdictOf(LINES.ajaccio), ["deliverable", []]);
    assert.deepEqual(await verdictOf(LINES.ambérieu), ["deliverable", []]);
  });

  test("an index imported into its directory is taken up by the watch, and /readyz shows it", async () => {
    assert.deepEqual(await verdictOf(LINES.saintDenis), ["unknown", ["postcode_not_covered"]]);
    const file = join(temp.path, "adresses-974.csv.gz");
    writeFileSync(file, banCsvGz(COMMUNES.saintDenis));
    await banImport(file, indexDir);
    const taken = await lineOf(server, "address index taken up", "974");
    assert.equal(taken.trigger, "watch");
    assert.deepEqual(await verdictOf(LINES.saintDenis), ["deliverable", []]);
    const ready = await fetch(`${server.url}/readyz`);
    assert.equal(ready.status, 200);
    assert.equal((await ready.json()).checks.address_index, true);
    assert.equal(logLines(server).filter((l) => l.msg === "address index taken up").length, 2);
  });
});
