// A raw HTTP/1.1 exchange over one TCP connection, for requests fetch() refuses to send (malformed request lines,
// broken escapes, hostile Host headers, trickled bytes). Reads until the server closes or `timeoutMs` passes.
import { connect } from "node:net";

export interface RawAnswer {
  /** Final status (1xx interim answers skipped); 0 when nothing came back. */
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The server closed the connection (rather than the time-out ending the read). */
  closed: boolean;
  ms: number;
}

export interface RawOptions {
  timeoutMs?: number;
  /** Sends the request in pieces, `delayMs` apart (a slow client). */
  pieces?: Array<string | Buffer>;
  delayMs?: number;
}

export function parseAnswer(bytes: Buffer): Omit<RawAnswer, "closed" | "ms"> {
  let text = bytes.toString("latin1");
  for (;;) {
    const end = text.indexOf("\r\n\r\n");
    if (end < 0) return { status: 0, headers: {}, body: "" };
    const [statusLine, ...lines] = text.slice(0, end).split("\r\n");
    const status = Number(statusLine.split(" ")[1]);
    const rest = text.slice(end + 4);
    if (status >= 100 && status < 200) {
      text = rest;
      continue;
    }
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(":");
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = headers["content-length"] === undefined ? undefined : Number(headers["content-length"]);
    const body = Buffer.from(length === undefined ? rest : rest.slice(0, length), "latin1").toString("utf8");
    return { status, headers, body };
  }
}

export function rawRequest(url: string, request: string | Buffer, options: RawOptions = {}): Promise<RawAnswer> {
  const { timeoutMs = 5000, pieces, delayMs = 0 } = options;
  const { hostname, port } = new URL(url);
  const started = performance.now();
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...parseAnswer(Buffer.concat(chunks)), closed, ms: performance.now() - started });
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("end", () => finish(true));
    socket.on("close", () => finish(true));
    socket.on("error", () => finish(true));
    socket.on("connect", async () => {
      if (!pieces) {
        socket.write(request);
        return;
      }
      for (const piece of pieces) {
        if (done || socket.destroyed) return;
        socket.write(piece);
        await new Promise((r) => setTimeout(r, delayMs));
      }
    });
  });
}
