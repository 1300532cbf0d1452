// The SMTP boundary of the engine: a connection that reads replies and sends command lines. Checks never import
// node:net; tests can pass a dialer that replays scripted replies.
import { connect, type Socket } from "node:net";
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

// A reply longer than this is not SMTP talking: stop reading rather than buffer without bound.
const MAX_REPLY_BYTES = 64 * 1024;

function abortError(signal: AbortSignal, what: string): SmtpError {
  const timeout = (signal.reason as { name?: string } | undefined)?.name === "TimeoutError";
  return new SmtpError(timeout ? "SMTP_TIMEOUT" : "SMTP_ABORTED", `Cannot ${what}: ${timeout ? "timed out" : "aborted"}`, {
    cause: signal.reason,
  });
}

class NetConnection implements SmtpConnection {
  #socket: Socket;
  #buffer = "";
  #lines: string[] = [];
  #replies: SmtpReply[] = [];
  #waiters: Array<{ resolve: (r: SmtpReply) => void; reject: (e: Error) => void }> = [];
  #failure: SmtpError | null = null;
  #ended: Promise<void>;

  constructor(socket: Socket) {
    this.#socket = socket;
    socket.setEncoding("utf8");
    this.#ended = new Promise((resolve) => socket.once("close", () => resolve()));
    socket.on("data", (chunk: string) => this.#onData(chunk));
    socket.on("error", (error) => this.#fail(new SmtpError("SMTP_DROPPED", `Cannot read SMTP reply: ${error.message}`, { cause: error })));
    socket.on("close", () => this.#fail(new SmtpError("SMTP_DROPPED", "Cannot read SMTP reply: connection closed")));
  }

  get closed(): boolean {
    return this.#failure !== null;
  }

  #onData(chunk: string): void {
    this.#buffer += chunk;
    if (this.#buffer.length > MAX_REPLY_BYTES) {
      this.#fail(new SmtpError("SMTP_PROTOCOL", "Cannot read SMTP reply: reply too long"));
      return;
    }
    let newline: number;
    while ((newline = this.#buffer.indexOf("\n")) >= 0) {
      const line = this.#buffer.slice(0, newline).replace(/\r$/, "");
      this.#buffer = this.#buffer.slice(newline + 1);
      this.#lines.push(line);
      // "250-..." continues a reply, "250 ..." or a bare "250" ends it.
      if (line.length === 3 || line[3] === " ") {
        const reply = parseReply(this.#lines);
        this.#lines = [];
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
        resolve: (r) => { signal.removeEventListener("abort", onAbort); resolve(r); },
        reject: (e) => { signal.removeEventListener("abort", onAbort); reject(e); },
      });
    });
  }

  command(line: string, options: { signal: AbortSignal }): Promise<SmtpReply> {
    if (/[\r\n]/.test(line)) return Promise.reject(new SmtpError("SMTP_PROTOCOL", "Cannot send SMTP command: line break in command"));
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

/** The default dialer: plain TCP with node:net. */
export function createNetDialer(): SmtpDialer {
  return {
    dial(target, { signal }) {
      return new Promise<SmtpConnection>((resolve, reject) => {
        if (signal.aborted) return reject(abortError(signal, `connect to ${target.host}`));
        const socket = connect({ host: target.address, port: target.port });
        const onAbort = () => {
          socket.destroy();
          reject(abortError(signal, `connect to ${target.host}`));
        };
        signal.addEventListener("abort", onAbort, { once: true });
        socket.once("connect", () => {
          signal.removeEventListener("abort", onAbort);
          socket.removeAllListeners("error");
          resolve(new NetConnection(socket));
        });
        socket.once("error", (error) => {
          signal.removeEventListener("abort", onAbort);
          socket.destroy();
          reject(new SmtpError("SMTP_CONNECT", `Cannot connect to ${target.host}: ${(error as NodeJS.ErrnoException).code ?? error.message}`, { cause: error }));
        });
      });
    },
  };
}
