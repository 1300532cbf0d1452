// `npm run verify` as a user runs it: a child process with arguments, an environment, maybe stdin or a terminal,
// read back as exit code, stdout and stderr. `started` gives the process to tests that kill it mid-run.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { ROOT } from "../helpers/process.ts";

export interface VerifyRun {
  child: ChildProcess;
  /** What stderr holds so far (the progress and messages). */
  stderr(): string;
  /** Settles when the process has exited; `code` is null after a kill. */
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

/** util-linux's `script`, which runs a command on a pseudo-terminal; absent on a few minimal systems. */
export const SCRIPT = ["/usr/bin/script", "/bin/script"].find((path) => existsSync(path));

export interface VerifyCliOptions {
  env?: Record<string, string>;
  stdin?: string;
  /**
   * Run on a pseudo-terminal (through SCRIPT): what the terminal shows, stdout and stderr mixed, is `stdout`. Needs
   * SCRIPT; `script -e` exits with the command's code.
   */
  terminal?: boolean;
}

export function startVerifyCli(args: string[], options: VerifyCliOptions = {}): VerifyRun {
  const { env = {}, stdin, terminal = false } = options;
  // VRAI_* of the calling shell must not leak into a test that checks what happens without them.
  const { VRAI_URL: _url, VRAI_KEY: _key, ...inherited } = process.env;
  const command = [process.execPath, "--import", "tsx", "src/cli/verify.ts", ...args];
  if (terminal && SCRIPT === undefined) throw new Error("Cannot run on a terminal: util-linux `script` is missing");
  const [file, argv] = terminal
    ? [SCRIPT!, ["-qec", command.map((arg) => `'${arg.replaceAll("'", `'\\''`)}'`).join(" "), "/dev/null"]]
    : [command[0]!, command.slice(1)];
  const child = spawn(file, argv, {
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

export function runVerifyCli(args: string[], options: VerifyCliOptions = {}) {
  return startVerifyCli(args, options).done;
}
