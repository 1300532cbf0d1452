// A node:test reporter for test/runner/run.ts: one JSON line per failure, telling a test process that died from a
// signal (a native crash: V8 or glibc aborting, a segfault) from every other failure (an assertion, a thrown error, a
// process that exited with a code). The runner runs a crashed file again; it never runs again a file that failed.
// Its last line holds the time each test file took (the sum of its top-level tests; a test declared by a helper module
// counts under that module), which the runner prints for whoever keeps CI within its time limit.
// One reporter for both: a third reporter on the same stream makes node warn of too many listeners.
// Plain JavaScript: node:test loads reporters before `--import tsx` can translate TypeScript.

/** How much of a failure's message the runner's summary repeats: enough to tell an assertion from a time-out. */
const MESSAGE_LINES = 6;
const MESSAGE_CHARS = 600;

/**
 * The first lines of what failed, with the causes it names ("fetch failed" says little without "other side closed"):
 * node:test wraps the test's own error as the cause of an ERR_TEST_FAILURE.
 * @param {any} error
 * @returns {string | undefined}
 */
function firstLines(error) {
  const parts = [];
  for (let e = error?.cause ?? error, depth = 0; e != null && depth < 4; e = e.cause, depth++) {
    const text = String(e.message ?? e).trim();
    if (text !== "") parts.push(depth === 0 ? text : `cause: ${text}`);
    if (typeof e !== "object") break;
  }
  if (parts.length === 0) return undefined;
  const lines = parts
    .join("\n")
    .split("\n")
    .filter((line) => line.trim() !== "");
  return lines.slice(0, MESSAGE_LINES).join("\n").slice(0, MESSAGE_CHARS);
}

/**
 * Lines of the FailureLine shape in run.ts: the test file as node:test names it, the test's name, and the signal that
 * killed the file's process (null for any other failure) and the first lines of its message; then one `{ "durations": { file: ms } }` line.
 * @param {AsyncIterable<{ type: string, data: any }>} source
 */
export default async function* crashReporter(source) {
  /** @type {Record<string, number>} */
  const durations = {};
  for await (const event of source) {
    if ((event.type === "test:pass" || event.type === "test:fail") && event.data.nesting === 0 && event.data.file) {
      durations[event.data.file] = (durations[event.data.file] ?? 0) + (event.data.details?.duration_ms ?? 0);
    }
    if (event.type !== "test:fail") continue;
    const error = event.data.details.error;
    const signal = error?.signal ?? null;
    yield `${JSON.stringify({ file: event.data.file, name: event.data.name, signal, message: firstLines(error) })}\n`;
  }
  yield `${JSON.stringify({ durations })}\n`;
}
