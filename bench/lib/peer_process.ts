// SMTP peers in a process of their own, for benches that time the engine against them: sharing the engine's event
// loop, a peer's reply timers fire late whenever the engine is busy (and the engine waits for the peer's turns), so
// the run would charge the engine for the peers' work. A real mail exchanger is another machine.
//
// Parent side: startPeerProcess(). Child side: this file run with `--peers JSON`; it starts the peers, says "ready",
// then answers each "report" line on stdin with one JSON line (connections, and every command line with the time
// it came, as milliseconds since the epoch so that the parent can compare them with its own clock).
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { startFastSmtpPeer, type FastSmtpPeer } from "../../test/email/peers.ts";

export interface PeerSpec {
  hosts: string[];
  delayMs: number;
  pipelining: boolean;
  /** Mailboxes user0 .. user{existingBelow - 1} exist; any other local part (catch-all probes too) is unknown. */
  existingBelow: number;
  /** Each reply to RCPT TO waits this long more (a server slow at looking up mailboxes); default 0. */
  rcptDelayMs?: number;
}

export interface PeerReport {
  connections: number;
  /** The most connections one peer had open at once. */
  maxConcurrent: number;
  /** Each command line a peer read: `at` in milliseconds since the epoch. */
  lines: Array<{ host: string; connection: number; at: number; line: string }>;
}

export interface PeerProcess {
  report(): Promise<PeerReport>;
  stop(): Promise<void>;
}

export async function startPeerProcess(spec: PeerSpec): Promise<PeerProcess> {
  const child: ChildProcess = spawn(
    process.execPath,
    ["--import", "tsx", fileURLToPath(import.meta.url), "--peers", JSON.stringify(spec)],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const replies = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async (what: string): Promise<string> => {
    const line = await replies.next();
    if (line.done)
      throw new Error(`Cannot ${what}: the SMTP peer process exited (${child.exitCode ?? child.signalCode})`);
    return line.value;
  };
  if ((await next("start the SMTP peers")) !== "ready") throw new Error("Cannot start the SMTP peers");
  return {
    async report() {
      child.stdin!.write("report\n");
      return JSON.parse(await next("read the SMTP peers' report")) as PeerReport;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, "exit");
      child.stdin!.end();
      await exited;
    },
  };
}

if (process.argv[2] === "--peers") {
  const spec = JSON.parse(process.argv[3]!) as PeerSpec;
  const peers: FastSmtpPeer[] = [];
  for (const host of spec.hosts) {
    peers.push(
      await startFastSmtpPeer({
        host,
        delayMs: spec.delayMs,
        rcptDelayMs: spec.rcptDelayMs,
        pipelining: spec.pipelining,
        mailboxes: (local) => {
          const n = /^user(\d+)$/.exec(local)?.[1];
          return n !== undefined && Number(n) < spec.existingBelow;
        },
      }),
    );
  }
  process.stdout.write("ready\n");
  const epoch = (at: number) => performance.timeOrigin + at;
  for await (const command of createInterface({ input: process.stdin })) {
    if (command !== "report") continue;
    const report: PeerReport = {
      connections: peers.reduce((sum, p) => sum + p.connections, 0),
      maxConcurrent: Math.max(0, ...peers.map((p) => p.maxConcurrent)),
      lines: peers.flatMap((p) => p.lines.map((l) => ({ host: p.host, ...l, at: epoch(l.at) }))),
    };
    process.stdout.write(`${JSON.stringify(report)}\n`);
  }
  // stdin closed: the parent is done (or gone).
  await Promise.all(peers.map((p) => p.stop()));
  process.exit(0);
}
