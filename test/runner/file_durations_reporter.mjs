// A node:test reporter for test/runner/run.ts: at the end of a run, the slowest test files and the time each took
// (the sum of its top-level tests; a test declared by a helper module counts under that module), so that whoever keeps
// CI within its time limit sees where the time goes.
// Plain JavaScript: node:test loads reporters before `--import tsx` can translate TypeScript.

/** How many of the slowest files are listed. */
const LISTED = 15;

/** @param {AsyncIterable<{ type: string, data: any }>} source */
export default async function* fileDurationsReporter(source) {
  /** @type {Map<string, number>} */
  const byFile = new Map();
  for await (const event of source) {
    if (event.type !== "test:pass" && event.type !== "test:fail") continue;
    const { file, nesting, details } = event.data;
    if (nesting !== 0 || file === undefined) continue;
    byFile.set(file, (byFile.get(file) ?? 0) + (details?.duration_ms ?? 0));
  }
  if (byFile.size === 0) return;
  const total = [...byFile.values()].reduce((a, b) => a + b, 0);
  const slowest = [...byFile].sort((a, b) => b[1] - a[1]).slice(0, LISTED);
  const cwd = `${process.cwd()}/`;
  yield `\n=== test runner: the ${slowest.length} slowest of ${byFile.size} files (${Math.round(total / 1000)} s in all)\n`;
  for (const [file, ms] of slowest) {
    yield `${String(Math.round(ms / 1000)).padStart(6)} s  ${file.startsWith(cwd) ? file.slice(cwd.length) : file}\n`;
  }
}
