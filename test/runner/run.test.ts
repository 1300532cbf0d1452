// The test runner over fixture test files written here: a file killed by a signal once is run again and the run
// passes; a file killed every time, a failed test, or a failed test beside a crash fails the run, with no second try
// of the failed file. The fixtures kill themselves with SIGKILL (as a crash would with SIGABRT, without a core file).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { availableParallelism } from "node:os";
import { filesForThisRun, ONCE_MARKER, sortFailures, testConcurrency } from "./run.ts";
import { tempDir } from "../helpers/temp_dir.ts";

const RUNNER = fileURLToPath(new URL("./run.ts", import.meta.url));

const FIXTURES = {
  // Passes its tests, then dies, unless the marker file exists; makes the marker first.
  "crash_once.test.mjs": `
    import { test } from "node:test";
    import { existsSync, readFileSync, writeFileSync } from "node:fs";
    const marker = process.env.CRASH_MARKER;
    test("passes", () => {});
    test("dies the first time", async () => {
      if (existsSync(marker)) return;
      writeFileSync(marker, "");
      process.kill(process.pid, "SIGKILL");
      await new Promise(() => {});
    });`,
  "crash_always.test.mjs": `
    import { test } from "node:test";
    test("dies", async () => { process.kill(process.pid, "SIGKILL"); await new Promise(() => {}); });`,
  "fails.test.mjs": `
    import { test } from "node:test";
    import assert from "node:assert/strict";
    test("fails", () => assert.equal(1, 2));`,
  "passes.test.mjs": `
    import { test } from "node:test";
    test("passes", () => {});`,
};

async function run(
  files: Array<keyof typeof FIXTURES>,
  extraEnv: Record<string, string> = {},
): Promise<{ status: number; out: string; marker: string }> {
  const dir = tempDir("vrai-runner-");
  for (const [name, text] of Object.entries(FIXTURES)) writeFileSync(join(dir.path, name), text);
  const marker = join(dir.path, "crashed-once");
  try {
    // Not inside this test's own node:test context (NODE_TEST_CONTEXT), nor its coverage, nor the failures file of
    // the run around it (the fixtures' failures are not the suite's): a runner of its own.
    const { NODE_TEST_CONTEXT: _, NODE_V8_COVERAGE: __, TEST_FAILURES_FILE: ___, ...env } = process.env;
    const child = spawn(process.execPath, ["--import", "tsx", RUNNER, ...files.map((f) => join(dir.path, f))], {
      env: { ...env, ...extraEnv, CRASH_MARKER: marker },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.stderr.on("data", (chunk) => (out += chunk));
    const status = await new Promise<number>((resolve) => child.on("close", (code) => resolve(code ?? 1)));
    return { status, out, marker: existsSync(marker) ? "made" : "absent" };
  } finally {
    dir.remove();
  }
}

test("a file killed by a signal once is run again, said so, and the run passes", async () => {
  const { status, out, marker } = await run(["passes.test.mjs", "crash_once.test.mjs"]);
  assert.equal(marker, "made", out);
  assert.match(out, /crash_once\.test\.mjs \(killed by SIGKILL\): the test process died from a signal/);
  assert.match(out, /the second run of \S*crash_once\.test\.mjs passed; the suite passes/);
  assert.equal(status, 0, out);
});

test("a file killed by a signal on the second run too fails the run", async () => {
  const { status, out } = await run(["crash_always.test.mjs"]);
  assert.match(out, /running that file once more/);
  assert.match(out, /the second run of \S*crash_always\.test\.mjs failed too; the suite fails/);
  assert.notEqual(status, 0);
});

test("a failed test fails the run at once, even beside a crash: no second run", async () => {
  for (const files of [["fails.test.mjs"], ["fails.test.mjs", "crash_once.test.mjs"]] as const) {
    const { status, out } = await run([...files]);
    assert.notEqual(status, 0, files.join(" "));
    assert.doesNotMatch(out, /once more/, files.join(" "));
  }
});

test("a failed run ends with its failures and their messages, also appended to TEST_FAILURES_FILE", async () => {
  const dir = tempDir("vrai-runner-failures-");
  try {
    const file = join(dir.path, "failures.txt");
    writeFileSync(file, "an earlier runtime's lines\n");
    const { status, out } = await run(["passes.test.mjs", "fails.test.mjs"], { TEST_FAILURES_FILE: file });
    assert.notEqual(status, 0);
    const summary = out.slice(out.lastIndexOf("=== test runner: 1 failures on Node"));
    assert.match(summary, /^=== test runner: 1 failures on Node v\d+/, out);
    assert.match(summary, /\n {2}\S*fails\.test\.mjs: fails\n {6}Expected values to be strictly equal/);
    assert.doesNotMatch(summary, /passes/);
    const written = readFileSync(file, "utf8");
    assert.ok(written.startsWith("an earlier runtime's lines\n=== test runner: 1 failures on Node"), written);
    assert.match(written, /fails\.test\.mjs: fails\n {6}Expected values to be strictly equal/);
  } finally {
    dir.remove();
  }
});

test("sortFailures() counts a file as crashed only when a signal is its only failure", () => {
  const cwd = process.cwd();
  assert.deepEqual(
    sortFailures([
      { file: join(cwd, "a.test.ts"), name: "a.test.ts", signal: "SIGABRT" },
      { file: join(cwd, "b.test.ts"), name: "fails", signal: null },
      { file: join(cwd, "b.test.ts"), name: "b.test.ts", signal: "SIGSEGV" },
      { file: "c.test.ts", name: "c.test.ts", signal: "SIGTRAP" },
    ]),
    {
      crashed: [
        { file: "a.test.ts", signal: "SIGABRT" },
        { file: "c.test.ts", signal: "SIGTRAP" },
      ],
      failed: ["b.test.ts: fails", "b.test.ts: killed by SIGSEGV"],
    },
  );
});

test("files marked test-scope once are left out only where TESTS_ONCE_ELSEWHERE names the runtime that runs them", () => {
  const dir = tempDir("vrai-once-");
  const once = join(dir.path, "once.test.mjs");
  const every = join(dir.path, "every.test.mjs");
  writeFileSync(once, `// A file about data.\n${ONCE_MARKER}\nimport "node:test";\n`);
  writeFileSync(every, `import "node:test";\n// mentions ${ONCE_MARKER} inside a line, which is no marker\n`);
  assert.deepEqual(filesForThisRun([once, every], undefined), { run: [once, every], left: [] });
  assert.deepEqual(filesForThisRun([once, every], ""), { run: [once, every], left: [] });
  try {
    assert.deepEqual(filesForThisRun([once, every], "Node 24"), { run: [every], left: [once] });
  } finally {
    dir.remove();
  }
});

test("two test files run at once unless TEST_CONCURRENCY says otherwise (one on a single core)", () => {
  assert.equal(testConcurrency(undefined), Math.min(2, availableParallelism()));
  assert.equal(testConcurrency(""), Math.min(2, availableParallelism()));
  assert.equal(testConcurrency("1"), 1);
  assert.equal(testConcurrency("4"), 4);
  for (const wrong of ["0", "-1", "1.5", "two"])
    assert.equal(testConcurrency(wrong), Math.min(2, availableParallelism()));
});
