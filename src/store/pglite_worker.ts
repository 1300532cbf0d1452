// Runs PGlite off the main thread: its queries are synchronous WebAssembly work that would otherwise stall the event
// loop. The database is served over the Postgres wire protocol on a Unix socket inside STATE_DIR, so the server and
// `npm run keys` speak to it through postgres.js exactly as they would to a real PostgreSQL.
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import { parentPort, workerData } from "node:worker_threads";

interface EmbeddedWorkerData {
  dataDir: string;
  socketPath: string;
}

const { dataDir, socketPath } = workerData as EmbeddedWorkerData;
const db = await PGlite.create(dataDir);
// The socket server multiplexes connections onto the single PGlite session, keeping a transaction on its connection.
const server = new PGLiteSocketServer({ db, path: socketPath, maxConnections: 32 });
await server.start();
parentPort!.postMessage({ type: "ready" });

parentPort!.on("message", async (message: { type: string }) => {
  if (message.type !== "stop") return;
  await server.stop();
  await db.close();
  parentPort!.postMessage({ type: "stopped" });
});
