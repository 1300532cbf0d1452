// The SMTP boundary of the engine: a connection that reads replies and sends command lines. Checks never import
// node:net; tests can pass a dialer that replays scripted replies.
import { connect, isIP, type Socket } from "node:net";
import { isTimeoutReason } from "../../async/deadline.ts";
import { SmtpError } from "../errors.ts";
import { parseReply, type SmtpReply } from "./reply.ts";

export interface SmtpTarget {
  /** MX host name (for logs and per-host limits). */
  host: string;
  /** The IP address actually dialled. */
  address: string;
  port: number;
}

export interface SmtpConnection {
  /** Reads the next reply (the banner, right after dialling). */
  read(options: { signal: AbortSignal }): Promise<SmtpReply>;
  /** Sends one command line (without CRLF) and reads its reply. */
  command(line: string, options: { signal: AbortSignal }): Promise<SmtpReply>;
  /** Closes at once; pending reads fail with SMTP_DROPPED. */
  close(): void;
  /** Resolves when the server has closed the connection (after QUIT), or after `ms`. */
  waitClosed(ms: number): Promise<void>;
  readonly closed: boolean;
}

export interface SmtpDialer {
  /** Opens a TCP connection. Throws SmtpError SMTP_CONNECT, SMTP_TIMEOUT or SMTP_ABORTED. */
  dial(target: SmtpTarget, options: { signal: AbortSignal }): Promise<SmtpConnection>;
}

// A reply longer than this is not SMTP talking: stop reading rather than buffer without bound. RFC 5321 §4.5.3.1.5
// caps a reply line at 512 octets; real multi-line EHLO replies hold a few dozen lines.
const MAX_REPLY_BYTES = 64 * 1024;
const MAX_REPLY_LINES = 200;

export interface NetDialerOptions {
  /**
   * A socket silent for this long is dropped as timed out, whatever its caller's signal does: the backstop under every
   * deadline, held by the socket's own timer. Also bounds the TCP connect.
   */
  idleTimeoutMs: number;
  /**
   * Local addresses to bind (SMTP_LOCAL_ADDRESS): at most one IPv4 and one IPv6. A target is dialled from the one of
   * its family; a family with none is dialled from whatever the routing table picks.
   */
  localAddresses?: readonly string[];
}

function abortError(signal: AbortSignal, what: string): SmtpError {
  const timeout = isTimeoutReason(signal.reason);
  return new SmtpError(
    timeout ? "SMTP_TIMEOUT" : "SMTP_ABORTED",
    `Cannot ${what}: ${timeout ? "timed out" : "aborted"}`,
    {
      cause: signal.reason,
    },
  );
}

/**
 * An SMTP connection over a socket that is already connected to the mail server (directly, or through a proxy that
 * has finished its handshake). The socket's idle time-out becomes the backstop of every read.
 */
export function smtpConnection(socket: Socket, options: { idleTimeoutMs: number }): SmtpConnection {
  return new NetConnection(socket, options.idleTimeoutMs);
}

class NetConnection implements SmtpConnection {
  #socket: Socket;
  #buffer = "";
  #lines: string[] = [];
  #replyBytes = 0;
  #replies: SmtpReply[] = [];
  #waiters: Array<{ resolve: (r: SmtpReply) => void; reject: (e: Error) => void }> = [];
  #failure: SmtpError | null = null;
  #ended: Promise<void>;

  constructor(socket: Socket, idleTimeoutMs: number) {
    this.#socket = socket;
    socket.setEncoding("utf8");
    socket.setTimeout(idleTimeoutMs, () =>
      this.#fail(new SmtpError("SMTP_TIMEOUT", `Cannot read SMTP reply: nothing received for ${idleTimeoutMs} ms`)),
    );
    this.#ended = new Promise((resolve) => socket.once("close", () => resolve()));
    socket.on("data", (chunk: string) => this.#onData(chunk));
    socket.on("error", (error) =>
      this.#fail(new SmtpError("SMTP_DROPPED", `Cannot read SMTP reply: ${error.message}`, { cause: error })),
    );
    socket.on("close", () => this.#fail(new SmtpError("SMTP_DROPPED", "Cannot read SMTP reply: connection closed")));
  }

  get closed(): boolean {
    return this.#failure !== null;
  }

  #onData(chunk: string | Buffer): void {
    // A proxy client hands over bytes that came with its last handshake reply as a Buffer.
    this.#buffer += typeof chunk === "string" ? chunk : chunk.toString("utf8");
    if (this.#buffer.length > MAX_REPLY_BYTES) {
      this.#fail(new SmtpError("SMTP_PROTOCOL", "Cannot read SMTP reply: reply too long"));
      return;
    }
    let newline: number;
    while ((newline = this.#buffer.indexOf("\n")) >= 0) {
      const line = this.#buffer.slice(0, newline).replace(/\r$/, "");
      this.#buffer = this.#buffer.slice(newline + 1);
      this.#lines.push(line);
      this.#replyBytes += line.length;
      if (this.#lines.length > MAX_REPLY_LINES || this.#replyBytes > MAX_REPLY_BYTES) {
        this.#fail(new SmtpError("SMTP_PROTOCOL", "Cannot read SMTP reply: reply too long"));
        return;
      }
      // "250-..." continues a reply, "250 ..." or a bare "250" ends it.
      if (line.length === 3 || line[3] === " ") {
        const reply = parseReply(this.#lines);
        this.#lines = [];
        this.#replyBytes = 0;
        if (reply === null) {
          this.#fail(new SmtpError("SMTP_PROTOCOL", `Cannot read SMTP reply: not a reply line`));
          return;
        }
        const waiter = this.#waiters.shift();
        if (waiter) waiter.resolve(reply);
        else this.#replies.push(reply);
      } else if (!/^\d{3}-/.test(line)) {
        this.#fail(new SmtpError("SMTP_PROTOCOL", `Cannot read SMTP reply: not a reply line`));
        return;
      }
    }
  }

  #fail(error: SmtpError): void {
    if (this.#failure !== null) return;
    this.#failure = error;
    for (const waiter of this.#waiters.splice(0)) waiter.reject(error);
    this.#socket.destroy();
  }

  read({ signal }: { signal: AbortSignal }): Promise<SmtpReply> {
    const ready = this.#replies.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    if (this.#failure !== null) return Promise.reject(this.#failure);
    if (signal.aborted) {
      const error = abortError(signal, "read SMTP reply");
      this.#fail(error);
      return Promise.reject(error);
    }
    return new Promise<SmtpReply>((resolve, reject) => {
      const onAbort = () => this.#fail(abortError(signal, "read SMTP reply"));
      signal.addEventListener("abort", onAbort, { once: true });
      this.#waiters.push({
        resolve: (r) => {
          signal.removeEventListener("abort", onAbort);
          resolve(r);
        },
        reject: (e) => {
          signal.removeEventListener("abort", onAbort);
          reject(e);
        },
      });
    });
  }

  command(line: string, options: { signal: AbortSignal }): Promise<SmtpReply> {
    if (/[\r\n]/.test(line))
      return Promise.reject(new SmtpError("SMTP_PROTOCOL", "Cannot send SMTP command: line break in command"));
    if (this.#failure === null) this.#socket.write(`${line}\r\n`);
    return this.read(options);
  }

  waitClosed(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
    return Promise.race([this.#ended, limit]).finally(() => clearTimeout(timer));
  }

  close(): void {
    this.#fail(new SmtpError("SMTP_DROPPED", "Cannot read SMTP reply: connection closed by us"));
  }
}

/** The default dialer: plain TCP with node:net, to exactly the address that passed the probe-target guard. */
export function createNetDialer(options: NetDialerOptions): SmtpDialer {
  const { idleTimeoutMs, localAddresses = [] } = options;
  if (!Number.isInteger(idleTimeoutMs) || idleTimeoutMs < 1) {
    throw new RangeError("Cannot create SMTP dialer: idleTimeoutMs must be a positive integer");
  }
  const local = new Map<number, string>();
  for (const address of localAddresses) {
    const family = isIP(address);
    if (family === 0)
      throw new RangeError(`Cannot create SMTP dialer: local address "${address}" is not an IP address`);
    if (local.has(family)) throw new RangeError(`Cannot create SMTP dialer: more than one IPv${family} local address`);
    local.set(family, address);
  }
  return {
    dial(target, { signal }) {
      return new Promise<SmtpConnection>((resolve, reject) => {
        if (signal.aborted) return reject(abortError(signal, `connect to ${target.host}`));
        const localAddress = local.get(isIP(target.address));
        const socket = connect({ host: target.address, port: target.port, ...(localAddress ? { localAddress } : {}) });
        const fail = (error: SmtpError) => {
          signal.removeEventListener("abort", onAbort);
          socket.destroy();
          reject(error);
        };
        const onAbort = () => fail(abortError(signal, `connect to ${target.host}`));
        signal.addEventListener("abort", onAbort, { once: true });
        socket.setTimeout(idleTimeoutMs, () =>
          fail(new SmtpError("SMTP_TIMEOUT", `Cannot connect to ${target.host}: no answer for ${idleTimeoutMs} ms`)),
        );
        socket.once("connect", () => {
          signal.removeEventListener("abort", onAbort);
          socket.removeAllListeners("error");
          socket.removeAllListeners("timeout");
          resolve(new NetConnection(socket, idleTimeoutMs));
        });
        socket.once("error", (error) => {
          const code = (error as NodeJS.ErrnoException).code ?? error.message;
          fail(new SmtpError("SMTP_CONNECT", `Cannot connect to ${target.host}: ${code}`, { cause: error }));
        });
      });
    },
  };
}
