// PGlite's two WebAssembly programs (the PostgreSQL server, and initdb for a new STATE_DIR), compiled once per
// process and handed to every worker that opens the embedded database (embedded_database.ts).
//
// Left to itself, PGlite compiles them in the worker that opens the database, and the compiled code is freed when
// that worker ends. Each open then compiles 9 MB of WebAssembly again (a reopen after a full disk, every test's
// database), and the churn of WebAssembly code allocated and freed across worker threads is what V8's JIT page
// registry trips on: "Check failed: jit_page.has_value()" aborted a test process on Node 20 and 24 in CI
// (nodejs/node#64500, electric-sql/pglite#1053). A WebAssembly.Module posted to a worker shares its compiled code,
// so with the modules held here the code is compiled once and never freed while the process runs.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** A compiled WebAssembly.Module (the project's TypeScript libraries declare no WebAssembly: no DOM lib). */
type WasmModule = object;
const { WebAssembly } = globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<WasmModule> } };

export interface PgliteModules {
  /** PGlite's `pgliteWasmModule`. */
  pglite: WasmModule;
  /** PGlite's `initdbWasmModule`. */
  initdb: WasmModule;
}

let compiled: Promise<PgliteModules> | undefined;

/** The compiled modules of the installed PGlite; the first call compiles them, later calls share the result. */
export function pgliteModules(): Promise<PgliteModules> {
  compiled ??= compile().catch((error) => {
    compiled = undefined; // a later open tries again rather than failing for ever
    throw error;
  });
  return compiled;
}

async function compile(): Promise<PgliteModules> {
  // The package's entry point sits in dist/ beside the .wasm files it loads itself.
  const dist = dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite"));
  const [pglite, initdb] = await Promise.all(
    ["pglite.wasm", "initdb.wasm"].map(async (name) => WebAssembly.compile(await readFile(join(dist, name)))),
  );
  return { pglite, initdb };
}
