// `npm run verify` as a user runs it: a child process with arguments, an environment, maybe stdin, read back as exit
// code, stdout and stderr. `started` gives the process to tests that kill it mid-run.
import { type ChildProcess, spawn } from "node:child_process";
import { ROOT } from "../helpers/process.ts";

export interface VerifyRun {
  child: ChildProcess;
  /** What stderr holds so far (the progress and messages). */
  stderr(): string;
  /** Settles when the process has exited; `code` is null after a kill. */
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

export function startVerifyCli(
  args: string[],
  options: { env?: Record<string, string>; stdin?: string } = {},
): VerifyRun {
  const { env = {}, stdin } = options;
  // VRAI_* of the calling shell must not leak into a test that checks what happens without them.
  const { VRAI_URL: _url, VRAI_KEY: _key, ...inherited } = process.env;
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli/verify.ts", ...args], {
    cwd: ROOT,
    env: { ...inherited, ...env },
    stdio: [stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk) => (stdout += chunk));
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  if (stdin !== undefined) child.stdin!.end(stdin);
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
    (resolve) => child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, stderr: () => stderr, done };
}

export function runVerifyCli(args: string[], options: { env?: Record<string, string>; stdin?: string } = {}) {
  return startVerifyCli(args, options).done;
}
