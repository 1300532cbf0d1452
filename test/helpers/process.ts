// The real program in child processes, for tests and benches alike: `src/main.ts` (or any script that logs the same
// "started" line) and `src/cli/keys.ts`, as a user runs them. A server listens on port 0 and reports the port it got
// in its "started" log line, so two servers never race for a port picked in advance.
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import type { TestContext } from "node:test";
import { eventually } from "./eventually.ts";

export const ROOT = new URL("../../", import.meta.url).pathname;

export interface ServerProcess {
  child: ChildProcess;
  /**
   * `http://127.0.0.1:<port>` with the port from the "started" line. Throws for a process that serves no HTTP
   * (ROLE=worker) or that exited before it listened.
   */
  readonly url: string;
  /** Everything the process printed so far (its JSON log lines); without `keepOutput`, only up to "started". */
  output(): string;
  /** The exit code, once the process has exited. */
  exited: Promise<number | null>;
  /** SIGTERM, then SIGKILL if the process is still there 10 s later; resolves once it has exited. */
  stop(): Promise<void>;
}

export interface StartChildServerOptions {
  /** Added to this process's environment; PORT=0 and HOST=127.0.0.1 unless given. */
  env?: Record<string, string>;
  /** Extra node options placed before the script, e.g. ["--max-semi-space-size=1", "--expose-gc"]. */
  nodeFlags?: string[];
  /**
   * Run `npm start` (the compiled program, workers/start.mjs) instead of `script` under tsx; `script` then only names
   * it in messages, `nodeFlags` are ignored, and the child is npm. Coverage is not collected there (dist/ is not src/).
   */
  npmStart?: boolean;
  /** Run `script` with plain node, without tsx: a compiled file of dist/ (what `npm start` runs), under this pid. */
  compiled?: boolean;
  /** Once the port is known, GET this until it answers 200. */
  readyPath?: string;
  /** Bound on the whole start: the "started" line, then `readyPath`. The process is killed past it. */
  timeoutMs?: number;
  /**
   * Keep stdout and stderr for `output()` after the start (tests read the logs); when false, later stdout is read and
   * dropped and stderr goes to this process's stderr (benches: a request log must not fill the memory).
   */
  keepOutput?: boolean;
}

/**
 * Starts `script` under tsx (plain node when `compiled`), reads its port from its `{"msg":"started","port":N}` log
 * line, then waits for `readyPath`. A process that exits before that resolves too: `exited` and `output()` say why,
 * `url` throws.
 */
export async function startChildServer(script: string, options: StartChildServerOptions = {}): Promise<ServerProcess> {
  const {
    env = {},
    nodeFlags = [],
    npmStart = false,
    compiled = false,
    readyPath = "/healthz",
    timeoutMs = 60_000,
    keepOutput = true,
  } = options;
  const began = Date.now();
  const childEnv: NodeJS.ProcessEnv = { ...process.env, PORT: "0", HOST: "127.0.0.1", ...env };
  if (npmStart) delete childEnv.NODE_V8_COVERAGE;
  const loader = compiled ? [] : ["--import", "tsx"];
  const [command, args] = npmStart ? ["npm", ["start"]] : [process.execPath, [...nodeFlags, ...loader, script]];
  const child = spawn(command, args, {
    cwd: ROOT,
    env: childEnv,
    stdio: ["ignore", "pipe", keepOutput ? "pipe" : "inherit"],
  });
  let out = "";
  let keeping = true;
  child.stdout!.on("data", (chunk) => {
    if (keeping) out += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    if (keeping) out += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  };

  const started = await Promise.race([
    startedLine(child),
    exited.then(() => undefined),
    new Promise<"late">((resolve) => setTimeout(resolve, timeoutMs, "late").unref()),
  ]);
  if (started === "late") {
    kill();
    throw new Error(`Cannot start ${script}: no "started" line within ${timeoutMs} ms; output: ${out.trim()}`);
  }
  const url = started?.port === undefined ? undefined : `http://127.0.0.1:${started.port}`;
  if (url !== undefined) {
    try {
      await eventually(
        `${script} to answer 200 on ${readyPath}`,
        async () => (child.exitCode !== null ? "exited" : (await fetch(url + readyPath)).status),
        {
          until: (status) => status === 200 || status === "exited",
          timeoutMs: Math.max(0, timeoutMs - (Date.now() - began)),
        },
      );
    } catch (error) {
      kill();
      throw error;
    }
  }
  if (!keepOutput) keeping = false;
  return {
    child,
    get url() {
      if (url !== undefined) return url;
      throw new Error(
        started === undefined
          ? `Cannot use the URL of ${script}: it exited with code ${child.exitCode} before it listened; output: ${out.trim()}`
          : `Cannot use the URL of ${script}: it serves no HTTP (its "started" line has no port)`,
      );
    },
    output: () => out,
    exited,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
        setTimeout(kill, 10_000).unref();
      }),
  };
}

/** The fields of the first `"msg":"started"` JSON line on the child's stdout; never settles if there is none. */
function startedLine(child: ChildProcess): Promise<{ port?: number }> {
  return new Promise((resolve) => {
    let pending = "";
    const onData = (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split("\n");
      pending = lines.pop()!;
      for (const line of lines) {
        let fields: { msg?: unknown; port?: unknown };
        try {
          fields = JSON.parse(line);
        } catch {
          continue; // not a log line
        }
        if (fields.msg !== "started") continue;
        child.stdout!.off("data", onData);
        resolve({ port: typeof fields.port === "number" ? fields.port : undefined });
        return;
      }
    };
    child.stdout!.on("data", onData);
  });
}

/**
 * Starts `npm start`'s program with `env` (no BAN département to import unless given) for one test, and kills it at
 * the end of the test.
 */
export async function startServerProcess(
  t: TestContext,
  env: Record<string, string>,
  options: Pick<StartChildServerOptions, "nodeFlags"> = {},
): Promise<ServerProcess> {
  const server = await startChildServer("src/main.ts", {
    env: { BAN_DEPARTEMENTS: "", BAN_SOURCE: ROOT, ...env },
    nodeFlags: options.nodeFlags,
  });
  t.after(() => {
    if (server.child.exitCode === null) server.child.kill("SIGKILL");
  });
  return server;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `npm run keys`; a run that does not end within `timeoutMs` is killed and counts as failed (its stderr says so).
 * `onStderr` sees its stderr as it comes, for a test that acts while the command waits.
 */
export function runKeysCli(
  env: Record<string, string>,
  args: string[],
  timeoutMs = 30_000,
  onStderr?: (soFar: string) => void,
): Promise<CliResult> {
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli/keys.ts", ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
    onStderr?.(stderr);
  });
  const timer = setTimeout(() => {
    stderr += `keys ${args[0]} did not end within ${timeoutMs / 1000} s`;
    child.kill("SIGKILL");
  }, timeoutMs);
  // "close", not "exit": the output may still be in the pipes when the process exits.
  return new Promise((resolve) =>
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

/** Runs `npm run keys -- create <args> --json` against a STATE_DIR or DATABASE_URL and returns the key. */
export async function createKeyWithCli(env: Record<string, string>, args: string[]): Promise<string> {
  const { code, stdout, stderr } = await runKeysCli(env, ["create", ...args, "--json"]);
  if (code !== 0) throw new Error(`Cannot create key: the keys command exited with ${code}: ${stderr.trim()}`);
  return JSON.parse(stdout).key;
}

/** `npm run ban -- import FILE` into `indexDir` (src/cli/ban.ts through tsx), as an operator runs it. */
export async function runBanImportCli(
  file: string,
  indexDir: string,
): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli/ban.ts", "import", file], {
    cwd: ROOT,
    env: { ...process.env, BAN_INDEX_DIR: indexDir },
  });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
  return { code, output };
}

/** Polls GET /readyz until it answers 200; gives its status and body. */
export function readyzOk(url: string, timeoutMs = 60_000): Promise<{ status: number; body: any }> {
  return eventually(
    "/readyz to answer 200",
    async () => {
      const r = await fetch(`${url}/readyz`);
      return { status: r.status, body: await r.json() };
    },
    { until: (r) => r.status === 200, timeoutMs, intervalMs: 200 },
  );
}

/**
 * The CPU seconds a process has used so far, all its threads, user and system, from /proc (Linux); NaN where it cannot
 * be read. On a machine shared with other work, a process's CPU seconds for a task vary far less than its wall time.
 */
export function cpuSeconds(pid: number): number {
  try {
    // The fields after the command name (which may hold spaces, hence the last ")"): utime and stime are 14th and 15th.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}
/** USER_HZ: 100 on every Linux architecture Node runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

/** A process's resident memory in MB, from /proc (Linux); NaN where it cannot be read. */
export function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+) kB/m);
  return line ? Number(line[1]) / 1024 : Number.NaN;
}
