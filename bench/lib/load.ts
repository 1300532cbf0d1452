// A closed-loop HTTP load generator on undici: `connections` clients each send a request as soon as the previous one
// answers, for `durationMs` after a warm-up. Every bench line that compares with the bare baseline uses this same
// client in the same process, so the ratio is fair.
import { Pool } from "undici";

export interface LoadOptions {
  url: string;
  method?: "GET" | "POST";
  path: string;
  headers?: Record<string, string>;
  /** One body, or one per request (cycled). */
  body?: string | string[];
  connections?: number;
  durationMs?: number;
  warmupMs?: number;
  /** Status every answer must have; anything else is counted as an error. */
  expectStatus?: number;
}

export interface LoadResult {
  requests: number;
  errors: number;
  reqPerSec: number;
  p50: number;
  p99: number;
}

export async function load(options: LoadOptions): Promise<LoadResult> {
  const {
    url,
    method = "GET",
    path,
    headers = {},
    body,
    connections = 32,
    durationMs = 3000,
    warmupMs = 500,
    expectStatus = 200,
  } = options;
  const pool = new Pool(url, { connections, pipelining: 1 });
  const bodies = body === undefined ? undefined : Array.isArray(body) ? body : [body];
  let n = 0;
  const one = async () => {
    const started = performance.now();
    const response = await pool.request({ method, path, headers, body: bodies?.[n++ % bodies.length] });
    await response.body.dump();
    return { ms: performance.now() - started, ok: response.statusCode === expectStatus };
  };
  const run = async (ms: number, record: boolean) => {
    const latencies: number[] = [];
    let errors = 0;
    const end = performance.now() + ms;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (performance.now() < end) {
          const r = await one();
          if (record) {
            latencies.push(r.ms);
            if (!r.ok) errors++;
          }
        }
      }),
    );
    return { latencies, errors };
  };
  await run(warmupMs, false);
  const started = performance.now();
  const { latencies, errors } = await run(durationMs, true);
  const elapsed = performance.now() - started;
  await pool.close();
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
  return {
    requests: latencies.length,
    errors,
    reqPerSec: (latencies.length / elapsed) * 1000,
    p50: pct(50),
    p99: pct(99),
  };
}

export function formatLoad(
  name: string,
  result: LoadResult,
  baseline?: LoadResult,
  extra: Record<string, string | number> = {},
): string {
  const parts = [
    name,
    `req_s=${Math.round(result.reqPerSec)}`,
    `p50=${result.p50.toFixed(2)}ms`,
    `p99=${result.p99.toFixed(2)}ms`,
    `errors=${result.errors}`,
  ];
  if (baseline) parts.push(`vs_baseline=${((result.reqPerSec / baseline.reqPerSec) * 100).toFixed(0)}%`);
  for (const [k, v] of Object.entries(extra)) parts.push(`${k}=${v}`);
  parts.push(`node=${process.version}`);
  return parts.join(" ");
}
