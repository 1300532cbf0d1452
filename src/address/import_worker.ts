// Worker thread that imports BAN départements (index/import.ts) for a running server, so that reading the CSV and
// building the indexes (seconds of CPU each) never hold up the main thread: /healthz and the calls keep answering.
// It reports on its port (ImportMessage, background_import.ts) and stops between rows when told "abort".
import { parentPort, workerData } from "node:worker_threads";
import type { ImportMessage, ImportWork } from "./background_import.ts";
import { importBan } from "./index/import.ts";
import { cachedReference } from "./reference/compile.ts";

const port = parentPort!;
const work = workerData as ImportWork;
const controller = new AbortController();
port.on("message", (message) => {
  if (message === "abort") controller.abort();
});
const post = (message: ImportMessage) => port.postMessage(message);

// The packed reference the server loads next: built here (seconds, on a first start) rather than on its main thread.
if (work.packReference) cachedReference(work.indexDir);
for (const departement of work.departements) {
  if (controller.signal.aborted) break;
  post({ type: "started", departement });
  try {
    const results = await importBan(departement, {
      banSource: work.banSource,
      indexDir: work.indexDir,
      signal: controller.signal,
      onProgress: (progress) => post({ type: "progress", departement, progress }),
      onWarning: (message) => post({ type: "warning", departement, message }),
    });
    post({ type: "imported", departement, results });
  } catch (err) {
    post({ type: "failed", departement, error: err instanceof Error ? err.message : String(err) });
  }
}
post({ type: "done" });
port.removeAllListeners("message");
