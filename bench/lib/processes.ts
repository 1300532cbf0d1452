// Servers for benches run in child processes, so that the load generator does not share their event loop.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../../test/helpers/process.ts";

export const ROOT = new URL("../../", import.meta.url).pathname;

export interface Child {
  process: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

/** Starts a script under tsx and waits until GET `readyPath` answers 200. */
export async function startChild(script: string, options: { env?: Record<string, string>; readyPath?: string; timeoutMs?: number } = {}): Promise<Child> {
  const { env = {}, readyPath = "/healthz", timeoutMs = 60_000 } = options;
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", script], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Cannot start ${script}: it exited with code ${child.exitCode}`);
    try {
      if ((await fetch(url + readyPath)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`Cannot start ${script}: not ready within ${timeoutMs} ms`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    process: child,
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
        setTimeout(() => child.kill("SIGKILL"), 10_000).unref();
      }),
  };
}

export function tempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Runs `npm run keys -- create ... --json` against a STATE_DIR or DATABASE_URL and returns the key. */
export async function createKeyViaCli(env: Record<string, string>, args: string[]): Promise<string> {
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli/keys.ts", "create", ...args, "--json"], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout!.on("data", (chunk) => (out += chunk));
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  if (code !== 0) throw new Error(`Cannot create key: keys command exited with ${code}`);
  return JSON.parse(out).key;
}
