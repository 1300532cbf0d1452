// The bare node:http baseline, measured with the same request as the calls it is compared with (same path, headers
// and body), so that a ratio measures what the service adds, not what the client and node's parser spend on a request.
import { load, type LoadResult } from "./load.ts";
import { startChildServer } from "../../test/helpers/process.ts";

export interface BaselineRequest {
  path: string;
  body: string;
  headers: Record<string, string>;
}

export interface RunningBaseline {
  /** One load of `durationMs` on the bare server; `warmupMs` as load() takes it (its default when unset). */
  measure(durationMs: number, warmupMs?: number): Promise<LoadResult>;
  stop(): Promise<void>;
}

/** Starts the bare server, for benches that measure it several times, between their own loads. */
export async function startBaseline(request: BaselineRequest): Promise<RunningBaseline> {
  const bare = await startChildServer("bench/lib/bare_server.ts", { readyPath: "/", keepOutput: false });
  return {
    measure: (durationMs, warmupMs) =>
      load({ url: bare.url, method: "POST", durationMs, warmupMs, serverPid: bare.child.pid, ...request }),
    stop: () => bare.stop(),
  };
}

export async function measureBaseline(request: BaselineRequest, durationMs: number): Promise<LoadResult> {
  const bare = await startBaseline(request);
  try {
    return await bare.measure(durationMs);
  } finally {
    await bare.stop();
  }
}
