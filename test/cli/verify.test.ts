// `npm run verify` end to end, as a user runs it: the real server as a child process (embedded database, a plans
// file with small limits), keys made with `npm run keys`, and the command as another child process. Test keys answer
// the reserved @vrai.test addresses offline; live keys are given addresses the pipeline settles without the network
// (bad syntax, a typo of a known domain), because only live keys are charged.
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createServer as createHttpServer } from "node:http";
import { type AddressInfo, createServer } from "node:net";
import { PassThrough } from "node:stream";
import { after, before, test } from "node:test";
import { parse } from "csv-parse/sync";
import { createApiClient, retryAfterSeconds } from "../../src/cli/verify/api_client.ts";
import { fingerprint, newJobState, pendingRanges } from "../../src/cli/verify/job_state.ts";
import { createProgress, describeRetries } from "../../src/cli/verify/progress.ts";
import { eventually } from "../helpers/eventually.ts";
import { createKeyWithCli, type ServerProcess, startChildServer } from "../helpers/process.ts";
import { tempDir } from "../helpers/temp_dir.ts";
import { runVerifyCli, SCRIPT, startVerifyCli } from "./verify_cli.ts";

const temp = tempDir("vrai-verify-cli-");
const dir = temp.path;
const fast = { per_minute: 6000, burst: 0 };
const plansFile = join(dir, "plans.json");
writeFileSync(
  plansFile,
  JSON.stringify({
    plans: {
      wide: { quota: null, rate: fast, batch_max: 5000 },
      small: { quota: null, rate: fast, batch_max: 2 },
      metered: { quota: { email: 4, address: 4 }, rate: fast, batch_max: 2 },
      // One submission a minute after the first three: the command waits on a 429, long enough to be killed.
      slow: { quota: { email: 6, address: 6 }, rate: { per_minute: 1, burst: 2 }, batch_max: 2 },
      // The same quota at full speed, for the resumed run: a chunk sent twice would not fit in it.
      slow_lifted: { quota: { email: 6, address: 6 }, rate: fast, batch_max: 2 },
    },
  }),
);
const serverEnv = { STATE_DIR: join(dir, "state"), PLANS_FILE: plansFile };
let server: ServerProcess;

before(async () => {
  server = await startChildServer("src/main.ts", {
    env: { ...serverEnv, BAN_DEPARTEMENTS: "", BAN_SOURCE: join(import.meta.dirname, "../..") },
  });
});

after(async () => {
  await server?.stop();
  temp.remove();
});

const key = (account: string, plan: string, mode: "live" | "test") =>
  createKeyWithCli(serverEnv, ["--account", account, "--plan", plan, "--mode", mode]);

/** Options every run shares: the server, the key, and a short poll so that the tests do not wait for 2 s. */
const connect = (apiKey: string) => ["--url", server.url, "--key", apiKey, "--poll", "0.05"];

const VERDICT_HEADER = ["verdict", "reasons", "suggestion", "disposable", "role", "catch_all"];
const ANSWERS: Record<string, string[]> = {
  deliverable: ["deliverable", "", "", "false", "false", "false"],
  undeliverable: ["undeliverable", "mailbox_not_found", "", "false", "false", ""],
  catchall: ["unknown", "catch_all_domain", "", "false", "false", "true"],
  disposable: ["risky", "disposable_domain", "", "true", "", ""],
  greylisted: ["unknown", "greylisted", "", "false", "false", ""],
};

/** The input rows of `name,Email,note`: a quoted comma, a line break in a field, a duplicate in another case. */
const PEOPLE = [
  ["Doe, Jane", "deliverable@vrai.test", "first"],
  ["Bob", "undeliverable@vrai.test", "two\nlines"],
  ["Cat", "catchall@vrai.test", 'said "hi"'],
  ["Dan", "Deliverable@VRAI.test", "same address as Jane"],
  ["Eve", "disposable@vrai.test", ""],
];
const PEOPLE_CSV = `name,Email,note\n${PEOPLE.map((row) => row.map((cell) => `"${cell.replaceAll('"', '""')}"`).join(",")).join("\n")}\n`;
const PEOPLE_OUT = [
  ["name", "Email", "note", ...VERDICT_HEADER],
  ...PEOPLE.map((row) => [...row, ...ANSWERS[row[1]!.split("@")[0]!.toLowerCase()]!]),
];

function readJobs(path: string): { batch: number; jobs: Array<{ start: number; end: number; job_id: string }> } {
  return JSON.parse(readFileSync(path, "utf8"));
}

test("verify: a CSV on stdin comes back on stdout with the verdict columns, every row in input order", async () => {
  const apiKey = await key("stdin", "wide", "test");
  const run = await runVerifyCli(["-", "--out", "-", ...connect(apiKey)], { stdin: PEOPLE_CSV });
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(parse(run.stdout), PEOPLE_OUT);
  // A line break inside a field is quoted, so that a spreadsheet reads one row, not two.
  assert.match(run.stdout, /,"two\nlines",/);
  // Not a terminal: plain progress lines on stderr, no bar drawing.
  assert.match(run.stderr, /^verify: 4\/4 addresses \(100%\), [\d.]+\/s$/m, "4 distinct addresses");
  assert.doesNotMatch(run.stderr, /[\r\u001b]/);
  assert.match(run.stderr, /^Done: 5 rows written to stdout$/m);
});

test("verify: a file larger than the plan's batch_max is split into jobs of that size, results in input order", async () => {
  const apiKey = await key("split", "small", "test");
  const input = join(dir, "split.csv");
  const out = join(dir, "split-results.csv");
  writeFileSync(input, PEOPLE_CSV);
  const run = await runVerifyCli([input, "--out", out, ...connect(apiKey)]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /^The plan allows 2 addresses per job: sending 2 rows per job$/m);
  assert.deepEqual(parse(readFileSync(out, "utf8")), PEOPLE_OUT);
  assert.equal(run.stdout, "", "nothing on stdout when the results go to a file");
  const state = readJobs(`${out}.jobs.json`);
  assert.deepEqual(
    state.jobs.map(({ start, end }) => [start, end]),
    [
      [0, 2],
      [2, 4],
      [4, 5],
    ],
  );
  // Each is a job of the server's, with the rows of its slice.
  for (const [i, job] of state.jobs.entries()) {
    const read = await fetch(`${server.url}/v1/jobs/${job.job_id}`, { headers: { authorization: `Bearer ${apiKey}` } });
    const body: any = await read.json();
    assert.equal(body.status, "completed");
    assert.deepEqual(
      body.results.map((r: { email: string }) => r.email),
      PEOPLE.slice(job.start, job.end).map((row) => row[1]),
      `job ${i + 1}`,
    );
  }
  // The same command again would pay twice: it refuses, says what exists and how to go on.
  const again = await runVerifyCli([input, "--out", out, ...connect(apiKey)]);
  assert.equal(again.code, 1);
  assert.equal(
    again.stderr,
    `Cannot start over: ${out}.jobs.json records a finished run of this file (3 jobs (5 of its 5 rows), results ` +
      `written to ${out}): add --force to verify every row again (charged again), give another --out, or add ` +
      "--resume to write the same results again without charge (the server keeps its jobs 48 hours)\n",
  );
  // Each way on works: another output starts a run of its own, --force starts over with new jobs.
  const elsewhere = join(dir, "split-results-2.csv");
  const second = await runVerifyCli([input, "--out", elsewhere, ...connect(apiKey)]);
  assert.equal(second.code, 0, second.stderr);
  assert.deepEqual(parse(readFileSync(elsewhere, "utf8")), PEOPLE_OUT);
  const forced = await runVerifyCli([input, "--out", out, "--force", ...connect(apiKey)]);
  assert.equal(forced.code, 0, forced.stderr);
  assert.deepEqual(parse(readFileSync(out, "utf8")), PEOPLE_OUT);
  const renewed = readJobs(`${out}.jobs.json`);
  assert.equal(renewed.jobs.length, 3);
  assert.deepEqual(
    renewed.jobs.filter((job) => state.jobs.some((old) => old.job_id === job.job_id)),
    [],
    "--force made new jobs",
  );
  const both = await runVerifyCli([input, "--out", out, "--force", "--resume", ...connect(apiKey)]);
  assert.equal(both.code, 2);
  assert.match(both.stderr, /^Cannot verify: --resume goes on from the recorded jobs, --force forgets them/);
});

test("verify: a submission the server refuses leaves no job behind; the run goes again once the cause is fixed", async () => {
  // A key that may not call the email endpoints: the server refuses the submission (403) and makes no job, as it does
  // for a 400. The command must not then claim that jobs were submitted.
  const addressOnly = await createKeyWithCli(serverEnv, [
    "--account",
    "refused",
    "--plan",
    "wide",
    "--mode",
    "test",
    "--endpoints",
    "address",
  ]);
  const input = join(dir, "refused.csv");
  const out = join(dir, "refused-results.csv");
  writeFileSync(input, "email\ndeliverable@vrai.test\nundeliverable@vrai.test\n");
  for (const attempt of ["first", "same command again"]) {
    const refused = await runVerifyCli([input, "--out", out, ...connect(addressOnly)]);
    assert.equal(refused.code, 1, attempt);
    assert.match(
      refused.stderr,
      /^Cannot submit a job: HTTP 403 .*\(no job was made for rows 1-2: once corrected, run the same command again\)$/m,
      attempt,
    );
    assert.doesNotMatch(refused.stderr, /Cannot start/, attempt);
  }
  const fixed = await runVerifyCli([input, "--out", out, ...connect(await key("refused", "wide", "test"))]);
  assert.equal(fixed.code, 0, fixed.stderr);
  assert.deepEqual(
    parse(readFileSync(out, "utf8")).map((row: string[]) => row[1]),
    ["verdict", "deliverable", "undeliverable"],
  );
});

test("verify: a semicolon-separated file with a BOM comes back with semicolons and its BOM", async () => {
  const apiKey = await key("excel", "wide", "test");
  const input = join(dir, "excel.csv");
  const out = join(dir, "excel-results.csv");
  writeFileSync(input, `\uFEFFnom;courriel\r\n"Doe; Jane";deliverable@vrai.test\r\nBob;undeliverable@vrai.test\r\n`);
  const run = await runVerifyCli([input, "--out", out, ...connect(apiKey)]);
  assert.equal(run.code, 0, run.stderr);
  const written = readFileSync(out, "utf8");
  assert.ok(written.startsWith("\uFEFFnom;courriel;verdict;reasons;"), JSON.stringify(written.slice(0, 40)));
  assert.deepEqual(parse(written, { bom: true, delimiter: ";" }), [
    ["nom", "courriel", ...VERDICT_HEADER],
    ["Doe; Jane", "deliverable@vrai.test", ...ANSWERS.deliverable!],
    ["Bob", "undeliverable@vrai.test", ...ANSWERS.undeliverable!],
  ]);
});

test("verify: a job already finished when its results are first read costs one read of the allowance", async () => {
  // Test-mode jobs are answered at submission: three jobs of two rows, three reads (the CSV, whose headers say the job
  // is complete), not a poll and then a read for each.
  const apiKey = await key("one-read", "small", "test");
  const input = join(dir, "one-read.csv");
  writeFileSync(input, PEOPLE_CSV);
  const run = await runVerifyCli([input, "--out", join(dir, "one-read-results.csv"), ...connect(apiKey)]);
  assert.equal(run.code, 0, run.stderr);
  const calls = () =>
    server
      .output()
      .split("\n")
      .filter((line) => line.includes('"msg":"request"') && line.includes('"account":"one-read"'))
      .map((line) => JSON.parse(line) as { method: string; route: string; status: number })
      .map(({ method, route, status }) => `${method} ${route} ${status}`);
  // The server's log lines reach this process a moment after the command's exit.
  await eventually("the request lines of the run", calls, { until: (lines) => lines.length >= 7 });
  assert.deepEqual(calls(), [
    "POST /v1/email/bulk 413", // the first try is 5000 rows: the 413 tells the plan's limit
    ...Array(3).fill("POST /v1/email/bulk 202"),
    ...Array(3).fill("GET /v1/jobs/:id 200"),
  ]);
});

/** Live addresses the pipeline answers without the network: bad syntax and typos of known domains. */
const OFFLINE = [
  ["1", "nobody", "undeliverable", "invalid_syntax", ""],
  ["2", "jane@gmial.com", "undeliverable", "domain_typo", "jane@gmail.com"],
  ["3", "bad@@x.fr", "undeliverable", "invalid_syntax", ""],
  ["4", "joe@yaho.com", "undeliverable", "domain_typo", "joe@yahoo.com"],
  ["5", "x@y", "undeliverable", "invalid_syntax", ""],
  ["6", "ann@gmial.com", "undeliverable", "domain_typo", "ann@gmail.com"],
];
const OFFLINE_CSV = `id,email\n${OFFLINE.map(([id, email]) => `${id},${email}`).join("\n")}\n`;
const offlineRows = (n: number) => [
  ["id", "email", ...VERDICT_HEADER],
  ...OFFLINE.slice(0, n).map(([id, email, verdict, reason, suggestion]) => [
    id!,
    email!,
    verdict!,
    reason!,
    suggestion!,
    "",
    "",
    "",
  ]),
];

test("verify: a 402 mid-file stops cleanly, writes the rows verified so far and exits with 3", async () => {
  const apiKey = await key("quota", "metered", "live");
  const input = join(dir, "quota.csv");
  const out = join(dir, "quota-results.csv");
  writeFileSync(input, OFFLINE_CSV);
  const run = await runVerifyCli([input, "--out", out, ...connect(apiKey)]);
  assert.equal(run.code, 3, run.stderr);
  const quotaLines = run.stderr.split("\n").filter((line) => /quota/i.test(line));
  assert.equal(quotaLines.length, 1, run.stderr);
  assert.match(
    quotaLines[0]!,
    /^Quota spent: 4 of 6 rows verified and written to .*quota-results\.csv; run again with --resume/,
  );
  assert.deepEqual(parse(readFileSync(out, "utf8")), offlineRows(4));
  assert.equal(readJobs(`${out}.jobs.json`).jobs.length, 2, "the refused third job is not recorded");
});

test("verify --resume after a SIGKILL mid-run sends only the rows no recorded job covers", async () => {
  const apiKey = await key("resume", "slow", "live");
  const input = join(dir, "resume.csv");
  const out = join(dir, "resume-results.csv");
  const jobsFile = `${out}.jobs.json`;
  writeFileSync(input, OFFLINE_CSV);
  const first = startVerifyCli([input, "--out", out, ...connect(apiKey)]);
  // The 413 that tells the batch size and two jobs take the three tokens; the third job waits a minute.
  await eventually("the first run to wait on a 429 after two jobs", () => first.stderr(), {
    until: (stderr) => /The server is rate limited: waiting \d+ s/.test(stderr),
    timeoutMs: 30_000,
  });
  first.child.kill("SIGKILL");
  assert.equal((await first.done).signal, "SIGKILL");
  const recorded = readJobs(jobsFile);
  assert.deepEqual(
    recorded.jobs.map(({ start, end }) => [start, end]),
    [
      [0, 2],
      [2, 4],
    ],
  );
  assert.equal(existsSync(out), false, "no results file from a killed run");

  // Same account, lifted rate, same quota of 6: 4 are spent, so a chunk sent again would end in a 402 (exit 3).
  const lifted = await key("resume", "slow_lifted", "live");
  const resumed = await runVerifyCli([input, "--out", out, "--resume", ...connect(lifted)]);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.deepEqual(parse(readFileSync(out, "utf8")), offlineRows(6));
  const state = readJobs(jobsFile);
  assert.deepEqual(
    state.jobs.map((job) => job.job_id).slice(0, 2),
    recorded.jobs.map((job) => job.job_id),
    "the recorded jobs are read, not submitted again",
  );
  assert.deepEqual(
    state.jobs.map(({ start, end }) => [start, end]),
    [
      [0, 2],
      [2, 4],
      [4, 6],
    ],
  );
  // And the account's quota holds exactly the 6 rows: one more address is refused.
  const extra = await fetch(`${server.url}/v1/email`, {
    method: "POST",
    headers: { authorization: `Bearer ${lifted}`, "content-type": "application/json" },
    body: JSON.stringify({ email: "nobody" }),
  });
  assert.equal(extra.status, 402);
});

test("verify --resume after a kill between the server's 202 and its record gets that job back, not a second one paid again", async () => {
  // Quota of 6 for the file's 6 rows: the first two paid twice would leave the last two refused (exit 3).
  const apiKey = await key("lost-202", "slow_lifted", "live");
  const input = join(dir, "lost-202.csv");
  const out = join(dir, "lost-202-results.csv");
  const jobsFile = `${out}.jobs.json`;
  writeFileSync(input, OFFLINE_CSV);
  // What the killed run left: the first range written down with its key, and sent; the 202 came, the record did not.
  const key202 = "lost-202-first-range";
  const [header, ...rows] = OFFLINE_CSV.trim().split("\n");
  const sent = await fetch(`${server.url}/v1/email/bulk`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "text/csv", "idempotency-key": key202 },
    body: [header, ...rows.slice(0, 2)].join("\n"),
  });
  assert.equal(sent.status, 202);
  const { job_id: lostJob } = await sent.json();
  const state = newJobState(fingerprint(readFileSync(input)), rows.length);
  writeFileSync(jobsFile, JSON.stringify({ ...state, batch: 2, pending: { start: 0, end: 2, key: key202 } }));

  const resumed = await runVerifyCli([input, "--out", out, "--resume", ...connect(apiKey)]);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.deepEqual(parse(readFileSync(out, "utf8")), offlineRows(6));
  const recorded = readJobs(jobsFile);
  assert.equal(recorded.jobs[0]?.job_id, lostJob, "the job the lost 202 named is the first range's");
  assert.equal((recorded as { pending?: unknown }).pending, undefined);
  const extra = await fetch(`${server.url}/v1/email`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ email: "nobody" }),
  });
  assert.equal(extra.status, 402, "exactly the file's 6 rows were charged");
});

/** `http://127.0.0.1:<port>` of a port that was listening a moment ago and no longer is. */
async function freedPort(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return `http://127.0.0.1:${port}`;
}

test("verify: --help, usage errors (exit 2), an unreadable file and an unreachable server (exit 1)", async () => {
  const help = await runVerifyCli(["--help"]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: npm run verify -- FILE\.csv --out RESULTS\.csv/);

  for (const [args, message] of [
    [[], /no input file/],
    [["a.csv"], /--out is missing/],
    [["a.csv", "--out", "b.csv"], /no API key/],
    [["a.csv", "--out", "b.csv", "--key", "k", "--url", "ftp://x"], /--url must be http or https/],
    [["a.csv", "--out", "-", "--key", "k", "--resume"], /give --state FILE/],
  ] as const) {
    const run = await runVerifyCli([...args]);
    assert.equal(run.code, 2, args.join(" "));
    assert.match(run.stderr, message);
    assert.match(run.stderr, /Usage: npm run verify/);
  }
  // A wrong option is one line that names it and the help to read.
  const colour = await runVerifyCli(["a.csv", "--out", "b.csv", "--key", "k", "--colour"]);
  assert.equal(colour.code, 2);
  assert.equal(
    colour.stderr,
    "Cannot run verify: unknown option --colour (npm run verify -- --help lists the options)\n",
  );

  const noColumn = await runVerifyCli(["-", "--out", "-", "--key", "k", "--url", "http://127.0.0.1:9"], {
    stdin: "name,city\nJane,Paris\n",
  });
  assert.equal(noColumn.code, 1);
  assert.match(noColumn.stderr, /^Cannot read the CSV file: line 1: no address column/);

  // A port nobody listens on (one just freed): one line naming the server and the cause, after the quiet retries.
  const closedUrl = await freedPort();
  const closed = await runVerifyCli(["-", "--out", "-", "--key", "k", "--url", closedUrl], {
    stdin: "email\ndeliverable@vrai.test\n",
  });
  assert.equal(closed.code, 1);
  assert.equal(closed.stderr, `Cannot reach ${closedUrl}: ECONNREFUSED\n`);
  assert.equal(closed.stdout, "");
});

test("createProgress() draws a bar with a rate and an ETA when the stream is a terminal", () => {
  const stream = Object.assign(new PassThrough(), { isTTY: true, columns: 100 }) as unknown as NodeJS.WriteStream;
  let drawn = "";
  (stream as unknown as PassThrough).on("data", (chunk) => (drawn += chunk));
  const progress = createProgress({ stream });
  progress.start(10);
  progress.update(4);
  progress.note("a note for the user");
  progress.stop();
  assert.match(drawn, /4\/10 addresses \| [\d.]+\/s \| ETA /);
  assert.match(drawn, /a note for the user/);
});

test("createProgress() says how many addresses wait for a retry, at once when they start waiting", () => {
  const stream = new PassThrough() as unknown as NodeJS.WriteStream;
  let written = "";
  (stream as unknown as PassThrough).on("data", (chunk) => (written += chunk));
  let now = 1_000_000;
  const progress = createProgress({ stream, everyMs: 5000, now: () => now });
  progress.start(3);
  now += 1000;
  // Within the 5 s between two lines, but news: the count stands still because these wait.
  progress.update(0, { waiting: 3, nextAt: now + 45_000 });
  now += 1000;
  progress.update(0, { waiting: 3, nextAt: now + 44_000 });
  now += 45_000;
  progress.update(3);
  progress.stop();
  assert.deepEqual(written.trim().split("\n"), [
    "verify: 0/3 addresses (0%), 0.0/s",
    "verify: 0/3 addresses (0%), 0.0/s, 3 waiting for a retry, next in 45s",
    "verify: 3/3 addresses (100%), 0.1/s",
  ]);
  // Once due, a retry waits for one of the server's workers.
  assert.equal(describeRetries({ waiting: 1, nextAt: now - 500 }, now), "1 waiting for a retry, due now");

  const tty = Object.assign(new PassThrough(), { isTTY: true, columns: 120 }) as unknown as NodeJS.WriteStream;
  let drawn = "";
  (tty as unknown as PassThrough).on("data", (chunk) => (drawn += chunk));
  const bar = createProgress({ stream: tty });
  bar.start(10);
  bar.update(4, { waiting: 2, nextAt: Date.now() + 30_000 });
  bar.stop();
  assert.match(drawn, /4\/10 addresses \| [\d.]+\/s \| ETA .* \| 2 waiting for a retry, next in (29|30)s/);
});

test("pendingRanges() cuts the rows no recorded job covers into batches, in input order", () => {
  const state = newJobState("x", 11);
  state.batch = 3;
  state.jobs = [
    { start: 3, end: 5, job_id: "a", total: 2 },
    { start: 8, end: 9, job_id: "b", total: 1 },
  ];
  assert.deepEqual(
    pendingRanges(state).map(({ start, end }) => [start, end]),
    [
      [0, 3],
      [5, 8],
      [9, 11],
    ],
  );
  assert.equal(newJobState("x", 12_000).batch, 5000, "the first try is the server's hard cap");
});

test("the API client tells the first of a run of 429 waits, then stays quiet for a minute", async (t) => {
  let calls = 0;
  const limited = createHttpServer((_request, response) => {
    calls++;
    if (calls <= 2) response.writeHead(429, { "retry-after": "1" }).end();
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => limited.listen(0, "127.0.0.1", resolve));
  t.after(() => limited.close());
  const told: string[] = [];
  const client = createApiClient({
    url: `http://127.0.0.1:${(limited.address() as AddressInfo).port}`,
    key: "k",
    timeoutMs: 5000,
    onWait: (message) => told.push(message),
  });
  assert.equal(await client.progress("a-job"), undefined, "answered 404 after two waits");
  assert.equal(calls, 3);
  assert.deepEqual(told, ["The server is rate limited: waiting 1 s as its Retry-After says"]);
});

test("the API client asks the server to hold a progress read (Prefer: wait), below its own time limit", async (t) => {
  const asked: Array<string | undefined> = [];
  const holding = createHttpServer((request, response) => {
    const prefer = request.headers.prefer as string | undefined;
    asked.push(prefer);
    response
      .writeHead(200, { "content-type": "application/json", ...(prefer ? { "preference-applied": prefer } : {}) })
      .end('{"status":"running","total":2,"processed":1}');
  });
  await new Promise<void>((resolve) => holding.listen(0, "127.0.0.1", resolve));
  t.after(() => holding.close());
  const url = `http://127.0.0.1:${(holding.address() as AddressInfo).port}`;
  const client = createApiClient({ url, key: "k", timeoutMs: 30_000 });
  assert.equal((await client.progress("a-job", { waitS: 2 }))?.held, true);
  assert.equal((await client.progress("a-job"))?.held, false);
  // A hold must end before the exchange's limit: 1.5 s leaves no whole second to wait, so none is asked.
  const hasty = createApiClient({ url, key: "k", timeoutMs: 1500 });
  assert.equal((await hasty.progress("a-job", { waitS: 2 }))?.held, false);
  assert.deepEqual(asked, ["wait=2", undefined, undefined]);
});

test("the API client sends a submission whose connection dropped again, under the same Idempotency-Key", async (t) => {
  const keys: Array<string | undefined> = [];
  const dropping = createHttpServer((request, response) => {
    request.resume();
    request.on("end", () => {
      keys.push(request.headers["idempotency-key"] as string | undefined);
      // The first one arrived and may have made a job: its answer is lost with the connection.
      if (keys.length === 1) request.socket.destroy();
      else response.writeHead(202, { "content-type": "application/json" }).end('{"job_id":"j-1","total":1}');
    });
  });
  await new Promise<void>((resolve) => dropping.listen(0, "127.0.0.1", resolve));
  t.after(() => dropping.close());
  const client = createApiClient({
    url: `http://127.0.0.1:${(dropping.address() as AddressInfo).port}`,
    key: "k",
    timeoutMs: 5000,
    retryDelayMs: 10,
  });
  assert.deepEqual(await client.submit("email\na@b.fr\n", "key-1"), { kind: "accepted", jobId: "j-1", total: 1 });
  assert.deepEqual(keys, ["key-1", "key-1"]);
});

test("retryAfterSeconds() reads seconds and HTTP dates, at least 1 s", () => {
  const now = Date.parse("2026-11-25T08:00:00Z");
  for (const [value, seconds] of [
    ["7", 7],
    ["0", 1],
    [null, 1],
    ["soon", 1],
    ["Wed, 25 Nov 2026 08:00:30 GMT", 30],
  ] as const) {
    assert.equal(retryAfterSeconds(value, now), seconds, String(value));
  }
});

test("verify on a terminal: the progress is a bar with the count, a rate and an ETA, and the results still go to --out", {
  skip: SCRIPT === undefined && "util-linux `script` is not installed: no pseudo-terminal to run the command on",
}, async () => {
  // Two rows per job: three jobs, so the bar moves (Jane and Dan, one address in two cases, sit in different jobs).
  const apiKey = await key("terminal", "small", "test");
  const input = join(dir, "terminal.csv");
  const out = join(dir, "terminal-results.csv");
  writeFileSync(input, PEOPLE_CSV);
  const terminal = await runVerifyCli([input, "--out", out, ...connect(apiKey)], { terminal: true });
  assert.equal(terminal.code, 0, terminal.stdout);
  assert.match(terminal.stdout, /100% \| 5\/5 addresses \| [\d.]+\/s \| ETA /, "the bar at its end");
  assert.match(terminal.stdout, /\u001b\[/, "drawn with terminal control sequences");
  assert.doesNotMatch(terminal.stdout, /^verify: \d+\/\d+ addresses/m, "no plain progress lines on a terminal");
  assert.match(terminal.stdout, /The plan allows 2 addresses per job/, "notes still reach the user");
  assert.deepEqual(parse(readFileSync(out, "utf8")), PEOPLE_OUT);
});
