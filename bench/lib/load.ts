// A closed-loop HTTP load generator on undici: `connections` clients each send a request as soon as the previous one
// answers, for `durationMs` after a warm-up. Every bench line that compares with the bare baseline uses this same
// client in the same process, so the ratio is fair. Both sides are warmed up the same, and long enough for V8 to have
// compiled the hot paths: measured on the address endpoint, the compiler threads still spent 180 µs a request between
// 1.5 and 4.5 s of load and about 35 µs from 7 s on, so a 0.5 s warm-up charged the service for its JIT warm-up, which a
// running server pays once.
import { readFileSync } from "node:fs";
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
  /** The server's process id: its CPU time during the measured run is reported per request (Linux /proc). */
  serverPid?: number;
}

export interface LoadResult {
  requests: number;
  errors: number;
  reqPerSec: number;
  p50: number;
  p99: number;
  /**
   * CPU time the server spent per answered request, all its threads together and its main thread alone (µs), when
   * `serverPid` was given and /proc can be read. Less moved by a busy machine than requests per second, and it says
   * where the time goes: the main thread, or the worker pool and V8's own threads.
   */
  serverCpu?: { totalUs: number; mainUs: number };
}

/** CPU ticks (user + system) of a process and of its main thread, from /proc; undefined where there is none. */
function cpuTicks(pid: number): { total: number; main: number } | undefined {
  const ticksOf = (file: string) => {
    const stat = readFileSync(file, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of proc(5))
  };
  try {
    return { total: ticksOf(`/proc/${pid}/stat`), main: ticksOf(`/proc/${pid}/task/${pid}/stat`) };
  } catch {
    return undefined;
  }
}

/** Linux counts CPU time in ticks of 1/100 s (USER_HZ). */
const US_PER_TICK = 10_000;

export async function load(options: LoadOptions): Promise<LoadResult> {
  const {
    url,
    method = "GET",
    path,
    headers = {},
    body,
    connections = 32,
    durationMs = 3000,
    warmupMs = Number(process.env.BENCH_WARMUP_MS ?? 5000),
    expectStatus = 200,
    serverPid,
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
  const ticksBefore = serverPid === undefined ? undefined : cpuTicks(serverPid);
  const started = performance.now();
  const { latencies, errors } = await run(durationMs, true);
  const elapsed = performance.now() - started;
  const ticksAfter = serverPid === undefined ? undefined : cpuTicks(serverPid);
  const perRequest = (ticks: number) => Math.round((ticks * US_PER_TICK) / Math.max(1, latencies.length));
  const serverCpu =
    ticksBefore && ticksAfter
      ? {
          totalUs: perRequest(ticksAfter.total - ticksBefore.total),
          mainUs: perRequest(ticksAfter.main - ticksBefore.main),
        }
      : undefined;
  await pool.close();
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
  return {
    requests: latencies.length,
    errors,
    reqPerSec: (latencies.length / elapsed) * 1000,
    p50: pct(50),
    p99: pct(99),
    serverCpu,
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
  if (result.serverCpu) {
    parts.push(`cpu_us_per_req=${result.serverCpu.totalUs}`, `main_cpu_us_per_req=${result.serverCpu.mainUs}`);
  }
  if (baseline?.serverCpu) parts.push(`baseline_cpu_us_per_req=${baseline.serverCpu.totalUs}`);
  for (const [k, v] of Object.entries(extra)) parts.push(`${k}=${v}`);
  parts.push(`node=${process.version}`);
  return parts.join(" ");
}
