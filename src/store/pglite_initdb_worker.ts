// Makes a new STATE_DIR's database (PGlite runs initdb) in a thread that ends once it is made. initdb is a second
// WebAssembly program with its own memory: in the serving thread (pglite_worker.ts) it left about 500 MB that only a
// garbage collection gives back, and an idle database thread may never run one (RSS 860 MB after a first start
// against 370 MB after a restart). A thread that ends gives all of it back; the serving thread then opens the
// directory as it opens any existing one (embedded_database.ts).
import { workerData } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";
import type { PgliteModules } from "./pglite_modules.ts";

export interface InitdbWorkerData {
  dataDir: string;
  /** Compiled by the main thread, whose copy keeps the code alive across workers (pglite_modules.ts). */
  modules: PgliteModules;
}

const { dataDir, modules } = workerData as InitdbWorkerData;
const db = await PGlite.create(dataDir, { pgliteWasmModule: modules.pglite, initdbWasmModule: modules.initdb });
// Nothing else holds this thread: it ends on its own once the instance is closed (not terminated: see
// pglite_worker.ts on ending a thread that holds WebAssembly).
await db.close();
