// The only importer of node:http: turns node requests into web Requests and web Responses back into node responses.
// Bodies are read here up to a hard ceiling (the bulk cap plus one byte), so that no route can be made to buffer
// more; routes apply their own, smaller caps.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "../log.ts";
import type { App } from "./app.ts";
import { BULK_BODY_LIMIT } from "./body.ts";
import { LightRequest, LightResponse } from "./light.ts";

const BODY_CEILING = BULK_BODY_LIMIT + 1;

export interface ServeOptions {
  port: number;
  host: string;
  log: Logger;
}

export interface RunningServer {
  port: number;
  url: string;
  /** Stops accepting, lets requests in flight finish (up to timeoutMs), then closes idle connections. */
  close(timeoutMs?: number): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  if (req.method === "GET" || req.method === "HEAD") return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      if (size >= BODY_CEILING) return; // keep draining, stop keeping
      const room = BODY_CEILING - size;
      chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
      size += Math.min(chunk.length, room);
    });
    req.on("end", () => resolve(Buffer.concat(chunks, size)));
    req.on("error", reject);
  });
}

async function handle(app: App, req: IncomingMessage, res: ServerResponse, base: string): Promise<void> {
  const body = await readBody(req);
  const request = new LightRequest(req.method ?? "GET", base + (req.url ?? "/"), req.headers, body);
  res.on("close", () => {
    if (!res.writableFinished) request.abort();
  });
  const response = await app.fetch(request as unknown as Request);
  // A string body lets node write headers and body in one syscall; a Buffer costs a writev of two.
  let headers: Record<string, string>;
  let payload: string | Buffer;
  if (response instanceof LightResponse) {
    headers = response.rawHeaders;
    payload = response.bodyText;
  } else {
    headers = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    payload = Buffer.from(await response.arrayBuffer());
  }
  headers["content-length"] = String(typeof payload === "string" ? Buffer.byteLength(payload) : payload.length);
  res.writeHead(response.status, headers);
  res.end(req.method === "HEAD" ? undefined : payload);
}

export function serve(app: App, options: ServeOptions): Promise<RunningServer> {
  const { port, host, log } = options;
  const server = createServer({ keepAliveTimeout: 5000 }, (req, res) => {
    const base = `http://${req.headers.host ?? "localhost"}`;
    handle(app, req, res, base).catch((error) => {
      // Only reachable when the client sent something node cannot even read, or went away mid-response.
      log.warn("request aborted", { error: (error as Error).message });
      if (!res.headersSent) {
        res.writeHead(400, { "content-type": "application/problem+json" });
        res.end(JSON.stringify({ type: "about:blank", title: "Bad Request", status: 400, detail: "Cannot read the request" }));
      } else res.destroy();
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      const actual = (server.address() as AddressInfo).port;
      resolve({
        port: actual,
        url: `http://${host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host}:${actual}`,
        close(timeoutMs = 10_000) {
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
