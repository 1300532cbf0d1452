// Where the project's files are, whether this code runs from source (tests, CLIs, benches: TypeScript through tsx) or
// compiled into dist/ (`npm start`, see workers/start.mjs). The one module that knows the two layouts.
import { existsSync } from "node:fs";

/** True when this code runs compiled (dist/src/paths.js), false from source (src/paths.ts under tsx). */
export const COMPILED: boolean = import.meta.url.endsWith(".js");

/** The folder that holds src/ and workers/ as they run: the project root from source, dist/ compiled. */
const OUT = new URL("../", import.meta.url);

/** The project's root folder (the first one up from here that holds package.json), as a URL ending in "/". */
export const PROJECT_ROOT: URL = findRoot(OUT);

/** A file or folder of the project that is never compiled (data/, SQL migrations), e.g. `"data/email/x.json"`. */
export function projectFile(path: string): URL {
  return new URL(path, PROJECT_ROOT);
}

/** How to start a worker thread on a module of src/ or workers/: the URL to load, and what its workerData needs. */
export interface WorkerModule {
  /** Compiled: the module's .js itself; from source: workers/tsx_bootstrap.mjs, which registers tsx first. */
  filename: URL;
  /** Spread into workerData: from source, `entry` tells the bootstrap which .ts to import. */
  workerData: { entry?: string };
}

/** The worker-thread module whose source is `sourcePath` (from the project root, e.g. `"workers/match_address.ts"`). */
export function workerModule(sourcePath: string): WorkerModule {
  if (!sourcePath.endsWith(".ts")) throw new TypeError(`Cannot start worker: "${sourcePath}" is not a .ts module`);
  if (COMPILED) return { filename: new URL(`${sourcePath.slice(0, -3)}.js`, OUT), workerData: {} };
  return {
    filename: new URL("workers/tsx_bootstrap.mjs", OUT),
    workerData: { entry: new URL(sourcePath, OUT).href },
  };
}

function findRoot(from: URL): URL {
  for (let dir = from; ; dir = new URL("../", dir)) {
    if (existsSync(new URL("package.json", dir))) return dir;
    if (new URL("../", dir).href === dir.href) {
      throw new Error(`Cannot find the project root: no package.json above ${from.pathname}`);
    }
  }
}
