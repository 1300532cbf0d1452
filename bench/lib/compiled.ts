// The program users run: `npm start` runs dist/src/main.js, compiled by tsc, in plain node. Benches that measure the
// service's speed start that file (startChildServer's `compiled`), not src/main.ts under tsx: the same address calls
// went about 10% faster compiled, measured side by side.
import { spawnSync } from "node:child_process";
import { ROOT } from "../../test/helpers/process.ts";

export const COMPILED_MAIN = "dist/src/main.js";

/** Builds dist/ as `npm start` would when it is missing or older than the sources (a no-op when it is fresh). */
export function ensureCompiled(): void {
  const build = spawnSync(process.execPath, ["workers/start.mjs", "--build"], { cwd: ROOT, stdio: "inherit" });
  if (build.status !== 0) throw new Error("Cannot build dist/ for the bench: workers/start.mjs --build failed");
}
