// The compiled server as the bulk address benches run it: the embedded database in a folder of the bench's, the Paris
// street index already imported, an unmetered plan with the default row limits, WORKERS threads, and a live key.
import { writeFileSync } from "node:fs";
import path, { join } from "node:path";
import { createKeyWithCli, type ServerProcess, startChildServer } from "../../test/helpers/process.ts";
import { COMPILED_MAIN } from "./compiled.ts";

export interface AddressBenchServer {
  server: ServerProcess;
  /** The server's environment (for another process over the same state). */
  env: Record<string, string>;
  key: string;
}

export async function startAddressBenchServer(options: {
  stateDir: string;
  indexDir: string;
  parisFile: string;
  threads: number;
}): Promise<AddressBenchServer> {
  const { stateDir, indexDir, parisFile, threads } = options;
  const plansFile = join(stateDir, "plans.json");
  writeFileSync(
    plansFile,
    JSON.stringify({ plans: { bench: { quota: null, rate: { per_minute: 100_000_000, burst: 0 }, batch_max: 5000 } } }),
  );
  const env = {
    STATE_DIR: join(stateDir, "state"),
    PLANS_FILE: plansFile,
    BAN_DEPARTEMENTS: "75",
    BAN_SOURCE: path.dirname(parisFile),
    BAN_INDEX_DIR: indexDir,
    WORKERS: String(threads),
  };
  const server = await startChildServer(COMPILED_MAIN, {
    env,
    compiled: true,
    // BENCH_SERVER_FLAGS="--cpu-prof --cpu-prof-dir=DIR" profiles the server's threads (NODE_OPTIONS refuses it).
    nodeFlags: process.env.BENCH_SERVER_FLAGS?.split(" ").filter(Boolean) ?? [],
    readyPath: "/readyz",
    timeoutMs: 180_000,
    keepOutput: false,
  });
  try {
    const key = await createKeyWithCli(env, ["--account", "bench", "--plan", "bench", "--mode", "live"]);
    return { server, env, key };
  } catch (error) {
    await server.stop();
    throw error;
  }
}
