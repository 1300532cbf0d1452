// A node:test reporter for test/runner/run.ts: one JSON line per failure, telling a test process that died from a
// signal (a native crash: V8 or glibc aborting, a segfault) from every other failure (an assertion, a thrown error, a
// process that exited with a code). The runner runs a crashed file again; it never runs again a file that failed.
// Its last line holds the time each test file took (the sum of its top-level tests; a test declared by a helper module
// counts under that module), which the runner prints for whoever keeps CI within its time limit.
// One reporter for both: a third reporter on the same stream makes node warn of too many listeners.
// Plain JavaScript: node:test loads reporters before `--import tsx` can translate TypeScript.

/**
 * Lines of the FailureLine shape in run.ts: the test file as node:test names it, the test's name, and the signal that
 * killed the file's process (null for any other failure); then one `{ "durations": { file: ms } }` line.
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
    const signal = event.data.details.error?.signal ?? null;
    yield `${JSON.stringify({ file: event.data.file, name: event.data.name, signal })}\n`;
  }
  yield `${JSON.stringify({ durations })}\n`;
}
