// A node:test reporter for test/runner/run.ts: one JSON line per failure, telling a test process that died from a
// signal (a native crash: V8 or glibc aborting, a segfault) from every other failure (an assertion, a thrown error, a
// process that exited with a code). The runner runs a crashed file again; it never runs again a file that failed.
// Plain JavaScript: node:test loads reporters before `--import tsx` can translate TypeScript.

/**
 * Lines of the FailureLine shape in run.ts: the test file as node:test names it, the test's name, and the signal that
 * killed the file's process (null for any other failure).
 * @param {AsyncIterable<{ type: string, data: any }>} source
 */
export default async function* crashReporter(source) {
  for await (const event of source) {
    if (event.type !== "test:fail") continue;
    const signal = event.data.details.error?.signal ?? null;
    yield `${JSON.stringify({ file: event.data.file, name: event.data.name, signal })}\n`;
  }
}
