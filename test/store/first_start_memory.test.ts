// A first start makes its embedded database (PGlite's initdb) and must then hold no more memory than a restart on
// the same STATE_DIR does: initdb's WebAssembly memory, about 500 MB, stayed in the database thread until a garbage
// collection that an idle thread may never run (pglite_initdb_worker.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import { eventually } from "../helpers/eventually.ts";
import { rssMb, startServerProcess } from "../helpers/process.ts";
import { tempDir } from "../helpers/temp_dir.ts";

/** What a first start may hold beyond a restart: initdb's thread gives back all but its allocator's arenas. */
const MARGIN_MB = 200;

async function readyRss(t: Parameters<typeof startServerProcess>[0], stateDir: string): Promise<number> {
  const server = await startServerProcess(t, { STATE_DIR: stateDir });
  await eventually("/readyz to answer 200", async () => (await fetch(`${server.url}/readyz`)).status, {
    until: (status) => status === 200,
    timeoutMs: 60_000,
  });
  await new Promise((resolve) => setTimeout(resolve, 1000)); // the threads settled
  const rss = rssMb(server.child.pid!);
  server.child.kill("SIGTERM");
  assert.equal(await server.exited, 0, server.output());
  return rss;
}

test("a first start on a new STATE_DIR holds about what a restart on it holds", {
  skip: process.platform !== "linux" && "reads /proc",
}, async (t) => {
  const state = tempDir("vrai-first-start-");
  t.after(() => state.remove());
  const first = await readyRss(t, state.path);
  const restart = await readyRss(t, state.path);
  assert.ok(
    first < restart + MARGIN_MB,
    `first start ${first.toFixed(0)} MB against ${restart.toFixed(0)} MB after a restart (margin ${MARGIN_MB} MB)`,
  );
});
