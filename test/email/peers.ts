// Real network peers on loopback for email tests and benches (see ../shared/peers/README.md): a dnsmasq started
// from a generated config on a free high port, and scriptable SMTP servers (npm smtp-server) on 127.0.0.x:25.
// Reusable by other test files and benches: pick your own 127.0.x.y range so files can run in parallel.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createSocket } from "node:dgram";
import { Resolver } from "node:dns/promises";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SMTPServer } from "smtp-server";

/** Path of the dnsmasq binary, or null when it is not installed (tests should skip with a message). */
export function findDnsmasq(): string | null {
  for (const path of ["/usr/sbin/dnsmasq", "/usr/bin/dnsmasq", "/sbin/dnsmasq"]) {
    if (spawnSync(path, ["--version"], { stdio: "ignore" }).status === 0) return path;
  }
  const which = spawnSync("sh", ["-c", "command -v dnsmasq"], { encoding: "utf8" });
  return which.status === 0 && which.stdout.trim() !== "" ? which.stdout.trim() : null;
}

export const DNSMASQ_MISSING = "dnsmasq is not installed (apt-get install -y dnsmasq): live DNS tests skipped";

/**
 * Why live-peer tests skip here, or false when they can run: they need dnsmasq, and root to bind SMTP peers on
 * port 25 of loopback addresses. `what` names what is skipped (the peers' range, the suite).
 */
export function livePeersSkip(what: string): string | false {
  if (findDnsmasq() === null) return DNSMASQ_MISSING;
  return process.getuid?.() !== 0 ? `SMTP peers bind port 25, which needs root: ${what} skipped` : false;
}

export interface DnsRecords {
  /** Zones dnsmasq answers for authoritatively (NXDOMAIN for unknown names inside them), e.g. "vrai-peers.net". */
  zones: string[];
  mx?: Array<{ domain: string; exchange: string; priority: number }>;
  /** A / AAAA records. */
  hosts?: Array<{ name: string; address: string }>;
  /** Domains publishing a null MX (RFC 7505). */
  nullMx?: string[];
  /** Raw extra dnsmasq config lines. */
  extra?: string[];
}

export interface Dnsmasq {
  /** "127.0.0.1:PORT", ready for config.dnsServers. */
  server: string;
  port: number;
  stop(): Promise<void>;
}

async function freeUdpPort(): Promise<number> {
  const socket = createSocket("udp4");
  await new Promise<void>((resolve, reject) => socket.bind(0, "127.0.0.1", resolve).once("error", reject));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

/** Starts dnsmasq on 127.0.0.1 and a free high port with the given records; resolves once it answers. */
export async function startDnsmasq(records: DnsRecords): Promise<Dnsmasq> {
  const binary = findDnsmasq();
  if (binary === null) throw new Error(DNSMASQ_MISSING);
  const dir = mkdtempSync(join(tmpdir(), "vrai-dnsmasq-"));
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freeUdpPort();
    const lines = [
      `port=${port}`,
      "listen-address=127.0.0.1",
      "bind-interfaces",
      "no-resolv",
      "no-hosts",
      "no-poll",
      "no-negcache",
      ...records.zones.map((z) => `local=/${z}/`),
      ...(records.mx ?? []).map((m) => `mx-host=${m.domain},${m.exchange},${m.priority}`),
      ...(records.hosts ?? []).map((h) => `host-record=${h.name},${h.address}`),
      ...(records.nullMx ?? []).map((d) => `mx-host=${d},.,0`),
      ...(records.extra ?? []),
    ];
    const file = join(dir, `dnsmasq-${port}.conf`);
    writeFileSync(file, `${lines.join("\n")}\n`);
    const child = spawn(
      binary,
      [`--conf-file=${file}`, "--keep-in-foreground", "--user=root", "--pid-file", "--log-facility=-"],
      {
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    let stderr = "";
    child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
    const server = `127.0.0.1:${port}`;
    const resolver = new Resolver({ timeout: 200, tries: 1 });
    resolver.setServers([server]);
    for (let i = 0; i < 50 && child.exitCode === null; i++) {
      try {
        await resolver.resolve4(`ready-probe.${records.zones[0] ?? "test"}`);
        break;
      } catch (error) {
        if ((error as { code?: string }).code === "ENOTFOUND" || (error as { code?: string }).code === "ENODATA") {
          return {
            server,
            port,
            stop: async () => {
              await stopChild(child);
              rmSync(dir, { recursive: true, force: true });
            },
          };
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    await stopChild(child);
    if (!/address already in use/i.test(stderr))
      throw new Error(`Cannot start dnsmasq: ${stderr.trim() || "no answer"}`);
  }
  rmSync(dir, { recursive: true, force: true });
  throw new Error("Cannot start dnsmasq: no free port");
}

/** A DNS "server" that receives queries and never answers (for DNS timeouts). */
export async function startSilentDns(host = "127.0.0.1"): Promise<{ server: string; stop(): Promise<void> }> {
  const socket = createSocket("udp4");
  await new Promise<void>((resolve, reject) => socket.bind(0, host, resolve).once("error", reject));
  const tcp = createServer(() => {}); // TCP fallback also hangs
  await new Promise<void>((resolve) => tcp.listen(socket.address().port, host, resolve)).catch(() => {});
  return {
    server: `${host}:${socket.address().port}`,
    stop: async () => {
      await new Promise<void>((r) => socket.close(() => r()));
      await new Promise<void>((r) => tcp.close(() => r()));
    },
  };
}

export interface PeerReply {
  code: number;
  message: string;
}

export type PeerBanner = "normal" | "silent" | "drop" | PeerReply;

export interface SmtpPeerOptions {
  /** Loopback address to bind, e.g. "127.0.3.10". */
  host: string;
  port?: number;
  /** "silent": accepts TCP and never greets; "drop": closes right after accepting; a reply: refuses at connect. */
  banner?: PeerBanner;
  /** Local parts (lower-case) that exist; "*" makes the domain catch-all. Others get 550 5.1.1. */
  mailboxes?: string[];
  /** Overrides the answer to RCPT TO: return a reply, or null to accept, or undefined for the default. */
  onRcpt?: (address: string, peer: SmtpPeer) => PeerReply | null | undefined;
  /** Advertise SMTPUTF8 (default true). */
  smtpUtf8?: boolean;
}

export interface SmtpPeer {
  host: string;
  port: number;
  /** TCP connections accepted so far. */
  readonly connections: number;
  /** Highest number of connections open at once. */
  readonly maxConcurrent: number;
  /** Every RCPT TO address received, in order. */
  readonly recipients: string[];
  /** How many RCPT TO each address received (greylisting uses it). */
  seen(address: string): number;
  stop(): Promise<void>;
}

/** Standard replies of real servers, for scripting peers. */
export const REPLIES = {
  unknownUser: {
    code: 550,
    message: "5.1.1 <{rcpt}>: Recipient address rejected: User unknown in local recipient table",
  },
  greylisted: {
    code: 450,
    message:
      "4.2.0 <{rcpt}>: Recipient address rejected: Greylisted, see http://postgrey.schweikert.ch/help/ - try again in 120 seconds",
  },
  full4xx: { code: 452, message: "4.2.2 The email account that you tried to reach is over quota." },
  full5xx: { code: 552, message: "5.2.2 <{rcpt}>: Recipient address rejected: Mailbox full" },
  spamhausBlock: {
    code: 554,
    message:
      "5.7.1 Service unavailable; Client host [127.0.0.1] blocked using zen.spamhaus.org; https://www.spamhaus.org/query/ip/127.0.0.1",
  },
} as const;

function replyError(reply: PeerReply, rcpt = ""): Error & { responseCode: number } {
  return Object.assign(new Error(reply.message.replace("{rcpt}", rcpt)), { responseCode: reply.code });
}

/** Starts a scripted SMTP peer (smtp-server, or a raw TCP server for "silent" and "drop"). */
export async function startSmtpPeer(options: SmtpPeerOptions): Promise<SmtpPeer> {
  const { host, port = 25, banner = "normal", mailboxes = [], onRcpt, smtpUtf8 = true } = options;
  let connections = 0;
  let open = 0;
  let maxConcurrent = 0;
  const recipients: string[] = [];
  const counts = new Map<string, number>();
  const sockets = new Set<Socket>();
  const opened = () => {
    connections++;
    maxConcurrent = Math.max(maxConcurrent, ++open);
  };
  const peer: SmtpPeer = {
    host,
    port,
    get connections() {
      return connections;
    },
    get maxConcurrent() {
      return maxConcurrent;
    },
    recipients,
    seen: (address) => counts.get(address.toLowerCase()) ?? 0,
    stop: async () => {},
  };

  if (banner === "silent" || banner === "drop") {
    const raw: Server = createServer((socket) => {
      opened();
      sockets.add(socket);
      socket.on("error", () => {});
      socket.on("close", () => {
        open--;
        sockets.delete(socket);
      });
      if (banner === "drop") socket.destroy();
    });
    await new Promise<void>((resolve, reject) => raw.listen(port, host, resolve).once("error", reject));
    peer.stop = () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        raw.close(() => resolve());
      });
    return peer;
  }

  const server = new SMTPServer({
    name: `mx.${host}`,
    authOptional: true,
    disabledCommands: ["AUTH", "STARTTLS"],
    disableReverseLookup: true,
    logger: false,
    closeTimeout: 200,
    hideSMTPUTF8: !smtpUtf8,
    onConnect(_session, callback) {
      if (typeof banner === "object") return callback(replyError(banner));
      callback();
    },
    onRcptTo(address, _session, callback) {
      const rcpt = address.address;
      recipients.push(rcpt);
      const key = rcpt.toLowerCase();
      counts.set(key, (counts.get(key) ?? 0) + 1);
      const scripted = onRcpt?.(rcpt, peer);
      if (scripted === null) return callback();
      if (scripted !== undefined) return callback(replyError(scripted, rcpt));
      const local = rcpt.slice(0, rcpt.lastIndexOf("@")).toLowerCase();
      if (mailboxes.includes("*") || mailboxes.includes(local)) return callback();
      callback(replyError(REPLIES.unknownUser, rcpt));
    },
  } as ConstructorParameters<typeof SMTPServer>[0]);
  server.on("error", () => {});
  // Counted at the TCP level: what a mail exchanger's operator would see.
  // A connection stops counting once the client sends QUIT or hangs up. Peers share the test's event loop, where
  // Node reports a closed socket only at the end of a loop turn: a client that reconnects right after its QUIT
  // would otherwise look like one connection too many.
  server.server.on("connection", (socket: Socket) => {
    opened();
    let gone = false;
    const done = () => {
      if (!gone) {
        gone = true;
        open--;
      }
    };
    socket.on("data", (chunk: Buffer) => {
      if (/^QUIT\r?$/im.test(chunk.toString("latin1"))) done();
    });
    socket.once("end", done);
    socket.once("close", done);
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  peer.stop = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return peer;
}

export interface RawSmtpPeerOptions {
  host: string;
  port?: number;
  /** Local parts that exist ("*": all), or a predicate on the lower-cased local part. */
  mailboxes: string[] | ((local: string) => boolean);
  /** Every reply, the greeting included, waits this long (in order): a slow server; a function of the connection
   *  number (1-based) gives each connection its own pace. */
  delayMs?: number | ((connection: number) => number);
  /** Each reply to RCPT TO waits this long more (in order; the other replies stay as fast as `delayMs` makes them):
   *  a server slow at looking up mailboxes, but that answers. */
  rcptDelayMs?: number;
  /** Advertise PIPELINING (default true). */
  pipelining?: boolean;
  /** Answer `452 4.5.3 Too many recipients` to every RCPT TO past this many in one transaction. */
  maxRecipients?: number;
  /** The first connection is dropped (no reply) when it receives its RCPT TO number `dropAtRecipient` (1-based). */
  dropAtRecipient?: number;
}

/** A line the peer received: which connection (1-based), when, the line, and when its reply left. */
export interface ReceivedLine {
  connection: number;
  at: number;
  line: string;
  /** performance.now() when the reply to this line was written; unset until then (or when none was). */
  repliedAt?: number;
}

/** A fast peer, with every command line it received. */
export interface FastSmtpPeer extends SmtpPeer {
  readonly lines: ReceivedLine[];
}

/** Calls `fn` with each line the client sends (CR LF or LF ended, without the ending). Sets the socket's encoding. */
function onLines(socket: Socket, fn: (line: string) => void): void {
  socket.setEncoding("latin1");
  let buffer = "";
  socket.on("data", (chunk: string) => {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl).replace(/\r$/, "");
      buffer = buffer.slice(nl + 1);
      fn(line);
    }
  });
}

interface Answer {
  text: string;
  /** Close the connection once the reply is sent (QUIT). */
  end: boolean;
  /** The address of a RCPT TO, which `text` answers. */
  rcpt?: string;
}

/** What a small, well-behaved mail exchanger replies to one command line. */
function answerCommand(
  line: string,
  options: { host: string; accepts: (local: string) => boolean; pipelining: boolean },
): Answer {
  const { host, accepts, pipelining } = options;
  const verb = line.slice(0, 4).toUpperCase();
  if (verb === "EHLO")
    return { text: `250-${host}\r\n${pipelining ? "250-PIPELINING\r\n" : ""}250 SMTPUTF8\r\n`, end: false };
  if (verb === "HELO" || verb === "MAIL" || verb === "RSET" || verb === "NOOP")
    return { text: "250 2.0.0 Ok\r\n", end: false };
  if (verb === "RCPT") {
    const rcpt = /<([^>]*)>/.exec(line)?.[1] ?? "";
    const local = rcpt.slice(0, rcpt.lastIndexOf("@")).toLowerCase();
    return { text: accepts(local) ? "250 2.1.5 Ok\r\n" : "550 5.1.1 User unknown\r\n", end: false, rcpt };
  }
  if (verb === "QUIT") return { text: "221 2.0.0 Bye\r\n", end: true };
  return { text: "502 5.5.2 Error: command not recognized\r\n", end: false };
}

/** A minimal SMTP peer on raw node:net that answers at once, or after `delayMs` (smtp-server waits 100 ms before its
 *  banner to catch early talkers): for benches, where the peer must not be the bottleneck, or must be a known one. */
export async function startFastSmtpPeer(options: RawSmtpPeerOptions): Promise<FastSmtpPeer> {
  const { host, port = 25, mailboxes, delayMs = 0, rcptDelayMs = 0, pipelining = true } = options;
  const { maxRecipients = Number.POSITIVE_INFINITY, dropAtRecipient } = options;
  const lines: FastSmtpPeer["lines"] = [];
  const accepted = new Set(Array.isArray(mailboxes) ? mailboxes.map((m) => m.toLowerCase()) : []);
  const accepts = Array.isArray(mailboxes) ? (local: string) => accepted.has("*") || accepted.has(local) : mailboxes;
  let connections = 0;
  let open = 0;
  let maxConcurrent = 0;
  const recipients: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    const connection = ++connections;
    // Counted as startSmtpPeer counts them: a connection stops counting at its QUIT or when it ends. It starts
    // counting once the input that came in with it is handled (setImmediate runs after this turn's I/O): when this
    // process stalls for a while (a loaded machine, the cluster tests' other processes starting), a new connection and
    // an earlier one's QUIT or end arrive in the same turn in no set order, although the client sent the QUIT first and
    // only then took the slot that let the new connection in (it waits 1 s for QUIT's reply, not longer).
    let counted = false;
    let gone = false;
    setImmediate(() => {
      if (gone) return;
      counted = true;
      maxConcurrent = Math.max(maxConcurrent, ++open);
    });
    const done = () => {
      if (!gone) {
        gone = true;
        if (counted) open--;
      }
    };
    socket.once("end", done);
    socket.once("close", done);
    const pace = typeof delayMs === "number" ? delayMs : delayMs(connection);
    let inTransaction = 0;
    let received = 0;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    let replies = Promise.resolve();
    // Replies leave in order: once one waits, every later one queues behind it.
    let queued = 0;
    const reply = (text: string, end = false, extraMs = 0, to?: ReceivedLine) => {
      const send = () => {
        if (to) to.repliedAt = performance.now();
        return end ? socket.end(text) : socket.writable && socket.write(text);
      };
      const wait = pace + extraMs;
      if (wait === 0 && queued === 0) return void send();
      queued++;
      replies = replies.then(
        () =>
          new Promise<void>((done) =>
            setTimeout(() => {
              queued--;
              send();
              done();
            }, wait),
          ),
      );
    };
    reply(`220 ${host} fast ESMTP\r\n`);
    onLines(socket, (line) => {
      const entry: ReceivedLine = { connection, at: performance.now(), line };
      lines.push(entry);
      if (/^QUIT$/i.test(line)) done();
      const answer = answerCommand(line, { host, accepts, pipelining });
      const verb = line.slice(0, 4).toUpperCase();
      if (verb === "MAIL" || verb === "RSET") inTransaction = 0;
      if (answer.rcpt !== undefined) {
        received++;
        if (connection === 1 && received === dropAtRecipient) return void socket.destroy();
        if (++inTransaction > maxRecipients) answer.text = "452 4.5.3 Error: too many recipients\r\n";
        else recipients.push(answer.rcpt);
      }
      reply(answer.text, answer.end, answer.rcpt !== undefined ? rcptDelayMs : 0, entry);
    });
  });
  await new Promise<void>((resolve, reject) => server.listen(port, host, resolve).once("error", reject));
  return {
    host,
    port,
    get connections() {
      return connections;
    },
    get maxConcurrent() {
      return maxConcurrent;
    },
    lines,
    recipients,
    seen: (address) => recipients.filter((r) => r.toLowerCase() === address.toLowerCase()).length,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * How a hostile mail exchanger misbehaves. Each one accepts the TCP connection; then:
 * - "tarpit": never sends a byte (the banner never comes);
 * - "stall-after-banner": greets at once, then reads every command and never answers one;
 * - "trickle": plays a normal dialogue, but sends every reply one byte per `byteIntervalMs` (the greeting included);
 * - "endless-line": greets at once, then answers EHLO or HELO with a line that never ends: `250-` and then a few
 *   bytes every `byteIntervalMs`, never a CR LF, until the connection closes;
 * - "close-mid-reply": greets at once, then answers EHLO or HELO with `250-first line` and closes the connection
 *   before the reply's last line.
 */
export type HostileBehaviour = "tarpit" | "stall-after-banner" | "trickle" | "endless-line" | "close-mid-reply";

export interface HostileSmtpPeerOptions {
  /** Loopback address to bind, e.g. "127.0.9.10". */
  host: string;
  port?: number;
  behaviour: HostileBehaviour;
  /** "trickle": the pause between two bytes (default 1000). "endless-line": between two bursts (default 100). */
  byteIntervalMs?: number;
  /** "trickle": local parts that exist ("*": all); the others get 550 5.1.1. */
  mailboxes?: string[];
}

export interface HostileSmtpPeer extends SmtpPeer {
  readonly behaviour: HostileBehaviour;
  /** Connections open right now: a client that gave up must have closed its own. */
  readonly open: number;
}

/** Starts a mail exchanger that misbehaves as real ones do (see HostileBehaviour). stop() destroys every connection
 *  it holds and clears every timer, so nothing outlives the test. */
export async function startHostileSmtpPeer(options: HostileSmtpPeerOptions): Promise<HostileSmtpPeer> {
  const { host, port = 25, behaviour, mailboxes = [] } = options;
  const byteIntervalMs = options.byteIntervalMs ?? (behaviour === "endless-line" ? 100 : 1000);
  if (!(byteIntervalMs > 0))
    throw new RangeError(`Cannot start a hostile SMTP peer: byteIntervalMs must be > 0, got ${byteIntervalMs}`);
  const accepts = (local: string) => mailboxes.includes("*") || mailboxes.includes(local);
  let connections = 0;
  let open = 0;
  let maxConcurrent = 0;
  const recipients: string[] = [];
  const sockets = new Set<Socket>();
  const greeting = `220 ${host} ESMTP\r\n`;

  const server = createServer((socket) => {
    connections++;
    maxConcurrent = Math.max(maxConcurrent, ++open);
    sockets.add(socket);
    const timers = new Set<NodeJS.Timeout>();
    const every = (ms: number, fn: () => void) => {
      const timer = setInterval(fn, ms);
      timer.unref();
      timers.add(timer);
      return timer;
    };
    socket.on("error", () => {});
    socket.on("close", () => {
      open--;
      sockets.delete(socket);
      for (const timer of timers) clearInterval(timer);
    });

    switch (behaviour) {
      case "tarpit":
        socket.resume(); // read and drop whatever comes, say nothing
        return;
      case "stall-after-banner":
        socket.write(greeting);
        socket.resume();
        return;
      case "trickle": {
        // One queue of bytes for the whole connection, so replies stay in order; QUIT's reply ends it.
        let pending = "";
        let endAfter = false;
        every(byteIntervalMs, () => {
          if (pending === "" || !socket.writable) return;
          socket.write(pending[0]!);
          pending = pending.slice(1);
          if (pending === "" && endAfter) socket.end();
        });
        pending = greeting;
        onLines(socket, (line) => {
          const answer = answerCommand(line, { host, accepts, pipelining: false });
          if (answer.rcpt !== undefined) recipients.push(answer.rcpt);
          pending += answer.text;
          endAfter ||= answer.end;
        });
        return;
      }
      case "endless-line": {
        socket.write(greeting);
        let started = false;
        onLines(socket, (line) => {
          if (started || !/^(EHLO|HELO)\b/i.test(line)) return; // once the line has begun, nothing else is answered
          started = true;
          socket.write("250-");
          every(byteIntervalMs, () => {
            if (socket.writable) socket.write("x".repeat(16));
          });
        });
        return;
      }
      case "close-mid-reply": {
        socket.write(greeting);
        onLines(socket, (line) => {
          if (!/^(EHLO|HELO)\b/i.test(line) || socket.destroyed) return;
          socket.write(`250-first line\r\n`, () => socket.destroy());
        });
        return;
      }
    }
  });
  await new Promise<void>((resolve, reject) => server.listen(port, host, resolve).once("error", reject));
  return {
    host,
    port,
    behaviour,
    get connections() {
      return connections;
    },
    get open() {
      return open;
    },
    get maxConcurrent() {
      return maxConcurrent;
    },
    recipients,
    seen: (address) => recipients.filter((r) => r.toLowerCase() === address.toLowerCase()).length,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
