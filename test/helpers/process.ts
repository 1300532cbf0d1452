// The real program in child processes: `src/main.ts` and `src/cli/keys.ts`, as a user runs them.
import { spawn, type ChildProcess } from "node:child_process";
import type { TestContext } from "node:test";
import { createServer } from "node:net";

const ROOT = new URL("../../", import.meta.url).pathname;

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  /** Everything the process printed on stdout so far (its JSON log lines). */
  output(): string;
  exited: Promise<number | null>;
}

/** Starts `npm start`'s program with `env` and waits for /healthz (or for the process to exit). */
export async function startServerProcess(t: TestContext, env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", BAN_DEPARTEMENTS: "", BAN_SOURCE: ROOT, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (chunk) => (out += chunk));
  child.stderr!.on("data", (chunk) => (out += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  t.after(() => {
    if (child.exitCode === null) child.kill("SIGKILL");
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (child.exitCode === null && Date.now() < deadline) {
    const up = await fetch(`${url}/healthz`).then((r) => r.status === 200, () => false);
    if (up) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, url, output: () => out, exited };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runKeysCli(env: Record<string, string>, args: string[]): Promise<CliResult> {
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli/keys.ts", ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, stdout, stderr })));
}
