// The bare node:http baseline, measured with the same request as the calls it is compared with (same path, headers
// and body), so that a ratio measures what the service adds, not what the client and node's parser spend on a request.
import { load, type LoadResult } from "./load.ts";
import { startChildServer } from "../../test/helpers/process.ts";

export async function measureBaseline(
  request: { path: string; body: string; headers: Record<string, string> },
  durationMs: number,
): Promise<LoadResult> {
  const bare = await startChildServer("bench/lib/bare_server.ts", { readyPath: "/", keepOutput: false });
  try {
    return await load({ url: bare.url, method: "POST", durationMs, serverPid: bare.child.pid, ...request });
  } finally {
    await bare.stop();
  }
}
