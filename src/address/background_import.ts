// Imports the missing BAN départements in a worker thread (import_worker.ts) while the server answers, and tells
// the address service what happens: each département started, its progress, imported or failed.
import { Worker } from "node:worker_threads";
import { workerModule } from "../paths.ts";
import type { ImportProgress, ImportResult } from "./index/import.ts";

export interface ImportWork {
  departements: string[];
  banSource: string;
  indexDir: string;
  /** Build the packed commune reference into indexDir first (it is missing). */
  packReference: boolean;
}

export type ImportMessage =
  | { type: "started"; departement: string }
  | { type: "progress"; departement: string; progress: ImportProgress }
  | { type: "warning"; departement: string; message: string }
  | { type: "imported"; departement: string; results: ImportResult[] }
  | { type: "failed"; departement: string; error: string }
  | { type: "done" };

export interface BackgroundImport {
  /** Resolves once every département was tried (each one `imported` or `failed`), or the import was stopped. */
  done: Promise<void>;
  /** Stops between rows (temporary files removed), then ends the thread; resolves once it has ended. */
  stop(): Promise<void>;
}

/** How long a stopped import may take to clean up before its thread is terminated. */
const STOP_GRACE_MS = 2000;

/** Starts the worker thread on `work`; `onMessage` hears every message but `done`, in order. */
export function importInBackground(work: ImportWork, onMessage: (message: ImportMessage) => void): BackgroundImport {
  const entry = workerModule("src/address/import_worker.ts");
  const worker = new Worker(entry.filename, { workerData: { ...entry.workerData, ...work } });
  let finished = false;
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  const done = new Promise<void>((resolve) => {
    const finish = (reason?: string) => {
      if (finished) return;
      finished = true;
      // A thread that died (or was stopped) mid-way: the départements it did not report on failed.
      if (reason !== undefined) {
        for (const departement of work.departements.filter((d) => !reported.has(d))) {
          onMessage({ type: "failed", departement, error: reason });
        }
      }
      resolve();
      void worker.terminate();
    };
    const reported = new Set<string>();
    worker.on("message", (message: ImportMessage) => {
      if (message.type === "done") return finish();
      if (message.type === "imported" || message.type === "failed") reported.add(message.departement);
      onMessage(message);
    });
    worker.on("error", (err) => finish(`Cannot import BAN file: the import thread failed: ${err.message}`));
    void exited.then(() => finish("Cannot import BAN file: the import thread ended early"));
  });
  return {
    done,
    async stop() {
      worker.postMessage("abort");
      const grace = new Promise<void>((resolve) => setTimeout(resolve, STOP_GRACE_MS).unref());
      await Promise.race([done, grace]);
      await worker.terminate();
      await exited;
    },
  };
}
