// The only importer of node:http: turns node requests into web Requests and web Responses back into node responses.
// Bodies are read here up to a hard ceiling (the bulk cap plus one byte), so that no route can be made to buffer
// more; routes apply their own, smaller caps. Hostile clients end here too (docs/decisions.md "Hostile clients"):
// the route comes from the request target alone, never from Host; whatever node's parser refuses (a malformed
// request line or header, headers too large, bad chunked encoding, a time limit) is answered a problem document on a
// closing connection, and so is CONNECT, which node hands over apart; slow clients are cut off after seconds, and connections are capped.
import { createServer, STATUS_CODES, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { currentTurn } from "../async/end_of_turn.ts";
import type { Logger } from "../log.ts";
import type { App } from "./app.ts";
import { BULK_BODY_LIMIT, isStreamedTarget } from "./body.ts";
import type { ProblemSlug } from "./errors.ts";
import { isStreamedResponse, LightRequest, LightResponse } from "./light.ts";
import { REQUEST_ID_HEADER, requestIdFrom } from "./request_scope.ts";

/**
 * The origin of every request URL handed to the app. Only the request target picks the route; nothing the client
 * sends in Host reaches a URL. The URLs the service writes are built from PUBLIC_URL, never from a request.
 */
export const REQUEST_ORIGIN = "http://localhost";
/** How long a refused connection may keep sending before it is dropped (lets the client read the answer first). */
const LINGER_MS = 1000;

export interface HttpLimits {
  /** Headers must arrive within this. */
  headersTimeoutMs: number;
  /** The whole request must arrive within this (at least headersTimeoutMs). */
  requestTimeoutMs: number;
  /** Idle keep-alive connections are closed after this. */
  keepAliveTimeoutMs: number;
  /** Connections beyond this many are closed on arrival. */
  maxConnections: number;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 1024,
};

export interface ServeOptions {
  port: number;
  host: string;
  log: Logger;
  limits?: Partial<HttpLimits>;
}

export interface RunningServer {
  port: number;
  url: string;
  /** Stops accepting, lets requests in flight finish (up to timeoutMs), then closes idle connections. */
  close(timeoutMs?: number): Promise<void>;
}

/** The path and query of a request target in origin-form or absolute-form (RFC 9112 §3.2); undefined otherwise. */
export function originFormOf(target: string): string | undefined {
  if (target.startsWith("/")) return target;
  const authority = /^https?:\/\/[^/?#]*/i.exec(target);
  if (!authority) return undefined; // asterisk-form, authority-form, or anything else: no resource of ours
  const rest = target.slice(authority[0].length);
  return rest.startsWith("/") ? rest : `/${rest}`;
}

// RFC 3986 host (IP-literal, IPv4 or reg-name) and an optional port: no slash, `?`, `#`, `@`, space or control.
const HOST_HEADER = /^(?:\[[0-9A-Za-z:.]+\]|[A-Za-z0-9\-._~!$&'()*+,;=%]*)(?::[0-9]{0,5})?$/;

/** Why the Host header of this request is refused (RFC 9112 §3.2: missing on HTTP/1.1, several, or not a host). */
export function hostProblem(req: Pick<IncomingMessage, "headers" | "rawHeaders" | "httpVersion">): string | undefined {
  const host = req.headers.host;
  if (host === undefined) {
    return req.httpVersion === "1.0" ? undefined : "Cannot read the request: an HTTP/1.1 request needs a Host header";
  }
  let count = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i].length === 4 && req.rawHeaders[i].toLowerCase() === "host") count++;
  }
  if (count > 1) return "Cannot read the request: it has several Host headers";
  if (!HOST_HEADER.test(host)) return "Cannot read the request: the Host header is not a host name";
  return undefined;
}

/** What a refusal by node's parser means to the client: a slug of the error table and a detail naming the cause. */
function describeClientError(code: string): { slug: ProblemSlug; detail: string } {
  switch (code) {
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { slug: "request-timeout", detail: "Cannot read the request: it did not arrive in time" };
    case "HPE_HEADER_OVERFLOW":
      return { slug: "request-failed", detail: "Cannot read the request: its headers are too large" };
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return { slug: "request-failed", detail: "Cannot read the request: its chunk extensions are too large" };
    case "HPE_INVALID_CHUNK_SIZE":
    case "HPE_STRICT":
    case "HPE_INVALID_EOF_STATE":
      return { slug: "invalid-request", detail: "Cannot read the request: its chunked body is malformed" };
    case "HPE_INVALID_METHOD":
      return { slug: "invalid-request", detail: "Cannot read the request: its method is not an HTTP method" };
    case "HPE_INVALID_URL":
      return { slug: "invalid-request", detail: "Cannot read the request: its request target is malformed" };
    case "HPE_INVALID_VERSION":
      return { slug: "invalid-request", detail: "Cannot read the request: its HTTP version is not supported" };
    case "HPE_INVALID_HEADER_TOKEN":
    case "HPE_INVALID_CONTENT_LENGTH":
    case "HPE_UNEXPECTED_CONTENT_LENGTH":
    case "HPE_INVALID_TRANSFER_ENCODING":
      return { slug: "invalid-request", detail: "Cannot read the request: a header is malformed" };
    default:
      return { slug: "invalid-request", detail: "Cannot read the request: it is not well-formed HTTP/1.1" };
  }
}

/** The X-Request-Id a client sent (one header; node joins repeated ones, which then are not a sane id). */
function sentRequestId(req: IncomingMessage): string | undefined {
  const value = req.headers[REQUEST_ID_HEADER];
  return typeof value === "string" ? value : undefined;
}

/** The status line, headers and body of an answer, for a socket the HTTP server no longer writes to. */
function rawHttp(written: Written): Buffer {
  const { status, headers, payload } = written;
  const body = typeof payload === "string" ? Buffer.from(payload) : payload;
  let head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}\r\n`;
  for (const name in headers) {
    if (name !== "content-length" && name !== "connection") head += `${name}: ${headers[name]}\r\n`;
  }
  return Buffer.concat([Buffer.from(`${head}connection: close\r\ncontent-length: ${body.length}\r\n\r\n`), body]);
}

/**
 * Writes `answer` on a socket node's HTTP server has let go of and closes it once the client had time to read it:
 * closing at once with unread input would reset the connection and could destroy the answer in flight.
 */
function answerAndClose(socket: Duplex, answer: Buffer): void {
  socket.on("error", () => {}); // a client that resets meanwhile is no fault of ours
  socket.end(answer);
  socket.resume();
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}

/**
 * A CONNECT request, which node hands over apart with its socket: a path of ours gets what the app answers for it (405
 * with Allow, or 404); an authority (a tunnel to another host, asked of a proxy) gets 400. The socket closes after.
 */
async function answerConnect(app: App, req: IncomingMessage, socket: Duplex): Promise<void> {
  const method = req.method ?? "CONNECT";
  const target = originFormOf(req.url ?? "");
  const refusal =
    target === undefined
      ? "Cannot open a tunnel: CONNECT asks a proxy for one, and this server is not a proxy"
      : hostProblem(req);
  let answer: Response;
  if (refusal !== undefined || target === undefined) {
    answer = app.refuse("invalid-request", refusal ?? "", { method, requestId: sentRequestId(req) });
  } else {
    const request = new LightRequest(method, REQUEST_ORIGIN + target, req.headers, undefined, req.socket.remoteAddress);
    socket.once("close", () => request.abort());
    answer = await app.fetch(request as unknown as Request);
  }
  if (socket.writable) answerAndClose(socket, rawHttp(await parts(answer)));
}

/**
 * Resolves with the body up to the bulk cap plus one byte, stopping there; rejects when the request ends early. Bulk
 * uploads, which may be larger, are not read here: their route reads them as they arrive (isStreamedTarget).
 */
function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  if (req.method === "GET" || req.method === "HEAD") return Promise.resolve(undefined);
  const ceiling = BULK_BODY_LIMIT + 1;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      const room = ceiling - size;
      chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
      size += Math.min(chunk.length, room);
      if (size >= ceiling) {
        // Enough to know it is too large: the route answers now, on a closing connection (see writeResponse).
        req.off("data", onData);
        req.pause();
        resolve(Buffer.concat(chunks, size));
      }
    };
    req.on("data", onData);
    req.on("end", () => resolve(Buffer.concat(chunks, size)));
    req.on("error", reject);
    req.on("close", () => {
      if (!req.complete) reject(new Error("Cannot read the request: the client closed the connection"));
    });
  });
}

interface Written {
  status: number;
  headers: Record<string, string>;
  /** A string body lets node write headers and body in one syscall; a Buffer costs a writev of two. */
  payload: string | Buffer;
}

function lightParts(response: Response): Written {
  const light = response as unknown as LightResponse;
  return { status: light.status, headers: { ...light.rawHeaders }, payload: light.bodyText };
}

async function parts(response: Response): Promise<Written> {
  if (response instanceof LightResponse) return lightParts(response as unknown as Response);
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return { status: response.status, headers, payload: Buffer.from(await response.arrayBuffer()) };
}

function writeResponse(req: IncomingMessage, res: ServerResponse, written: Written, close: boolean): void {
  const { status, headers, payload } = written;
  headers["content-length"] = String(typeof payload === "string" ? Buffer.byteLength(payload) : payload.length);
  if (close) headers.connection = "close";
  res.writeHead(status, headers);
  res.end(req.method === "HEAD" ? undefined : payload);
}

/**
 * Writes a web Response's body chunk by chunk, waiting for the socket to drain between them, so that a large answer
 * holds one chunk in memory at a time; a client that goes away cancels the body's source.
 */
async function writeStream(req: IncomingMessage, res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  if (!req.complete) headers.connection = "close";
  res.writeHead(response.status, headers);
  if (req.method === "HEAD") {
    await response.body!.cancel().catch(() => {});
    res.end();
    return;
  }
  const reader = response.body!.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (res.destroyed) return;
      if (!res.write(value)) {
        await new Promise<void>((resolve) => {
          const go = () => {
            res.off("drain", go);
            res.off("close", go);
            resolve();
          };
          res.on("drain", go);
          res.on("close", go);
        });
      }
    }
  } catch {
    // The body's source failed mid-answer: the status is sent already, so the connection is cut short.
    res.destroy();
    return;
  } finally {
    if (res.destroyed) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
  res.end();
}

async function handle(app: App, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const arrival = currentTurn();
  const method = req.method ?? "GET";
  const target = originFormOf(req.url ?? "/");
  const refusal =
    target === undefined
      ? "Cannot read the request: its target is neither a path nor an absolute http URL"
      : hostProblem(req);
  if (refusal !== undefined || target === undefined) {
    // Answered before the body is read: the connection closes rather than drain what the client still sends.
    const answer = app.refuse("invalid-request", refusal ?? "", { method, requestId: sentRequestId(req) });
    writeResponse(req, res, lightParts(answer), true);
    return;
  }
  // A bulk upload is read by its route as it arrives, after the caller is admitted (401 before a byte of a large
  // file); any other body is read here first, up to the ceiling.
  const streamed = method === "POST" && isStreamedTarget(target);
  const body = streamed ? undefined : await readBody(req);
  const request = new LightRequest(
    method,
    REQUEST_ORIGIN + target,
    req.headers,
    body,
    req.socket.remoteAddress,
    streamed ? req : undefined,
  );
  let gone = false;
  res.on("close", () => {
    if (res.writableFinished) return;
    gone = true;
    request.abort();
  });
  const response = await app.fetch(request as unknown as Request);
  if (gone) return; // the client hung up: nothing to write to
  if (isStreamedResponse(response) && response.body !== null) {
    // A streamed answer (a job's CSV results) is written as it is made, never held whole.
    await writeStream(req, res, response);
    return;
  }
  const written = await parts(response);
  // Answered in the turn it arrived in: it leaves with that turn's other answers (async/end_of_turn.ts). An answer
  // that took longer (the worker pool, a lookup) leaves at once: holding it would only lengthen its wait, and the
  // pool's answers already come back several together.
  if (!arrival.ended) {
    await arrival.end;
    if (gone) return;
  }
  // A body read only in part (over the ceiling) is not drained: the connection closes after the answer.
  writeResponse(req, res, written, !req.complete);
}

export function serve(app: App, options: ServeOptions): Promise<RunningServer> {
  const { port, host, log } = options;
  const limits = { ...DEFAULT_HTTP_LIMITS, ...options.limits };
  const refused = new WeakSet<Duplex>();
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // Node checks the two time limits above on this period (30 s by default, which tripled a slow client's hold).
      connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4))),
      // A missing Host is answered by hostProblem(), with a problem document rather than node's empty 400.
      requireHostHeader: false,
    },
    (req, res) => {
      handle(app, req, res).catch((error) => {
        // Only reachable when the request ended before its body did; the parser's own refusal, if any, has been
        // written by the clientError handler below.
        const requestId = requestIdFrom(sentRequestId(req));
        log.info("request not read", { request_id: requestId, error: (error as Error).message });
        if (!res.headersSent && res.socket?.writable && !refused.has(res.socket)) {
          const answer = app.refuse("invalid-request", "Cannot read the request body", {
            method: req.method,
            requestId,
          });
          writeResponse(req, res, lightParts(answer), true);
        } else res.destroy();
      });
    },
  );
  server.maxConnections = limits.maxConnections;
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    const code = error.code ?? "";
    if (refused.has(socket)) return; // the parser reports again whatever the client keeps sending
    const inFlight = (socket as { _httpMessage?: { headersSent: boolean } })._httpMessage;
    if (code === "ECONNRESET" || code === "EPIPE" || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    refused.add(socket);
    const { slug, detail } = describeClientError(code);
    const response = app.refuse(slug, detail, { code });
    answerAndClose(socket, rawHttp(lightParts(response)));
  });
  // CONNECT: without a listener here, node closes the socket without a word.
  server.on("connect", (req: IncomingMessage, socket: Duplex) => {
    answerConnect(app, req, socket).catch((error) => {
      log.warn("CONNECT not answered", { error: (error as Error).message });
      socket.destroy();
    });
  });
  // Expect other than 100-continue (which node answers itself): refused, on a closing connection.
  server.on("checkExpectation", (req: IncomingMessage, res: ServerResponse) => {
    const detail = "Cannot meet the request's Expect header: only 100-continue is supported";
    const answer = app.refuse("request-failed", detail, { method: req.method, requestId: sentRequestId(req) });
    writeResponse(req, res, lightParts(answer), true);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      const actual = (server.address() as AddressInfo).port;
      resolve({
        port: actual,
        url: `http://${host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host}:${actual}`,
        close(timeoutMs = 10_000) {
          // Held requests (a job read waiting for its job's end) answer now rather than hold the stop up.
          app.release?.();
          return new Promise<void>((done) => {
            const force = setTimeout(() => server.closeAllConnections(), timeoutMs);
            server.close(() => {
              clearTimeout(force);
              done();
            });
            server.closeIdleConnections();
          });
        },
      });
    });
  });
}
