// A webhook receiver on loopback for callback tests: it records every POST (headers and the body's bytes as sent) and
// answers from a script, one entry per call (the last entry repeats): a status, or "silent" for a call it accepts and
// never answers, as a receiver that hangs does.
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo } from "node:net";

export interface ReceivedCall {
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
  at: number;
}

export interface Receiver {
  url: string;
  port: number;
  calls: ReceivedCall[];
  /** Resolves once `n` calls have arrived. */
  received(n: number, timeoutMs?: number): Promise<ReceivedCall[]>;
  close(): Promise<void>;
}

export async function startReceiver(
  script: ReadonlyArray<number | "silent"> = [200],
  options: { tls?: { key: string; cert: string } } = {},
): Promise<Receiver> {
  const calls: ReceivedCall[] = [];
  const hanging: ServerResponse[] = [];
  const waiters: Array<() => void> = [];
  const listener: RequestListener = (request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const answer = script[Math.min(calls.length, script.length - 1)]!;
      calls.push({
        path: request.url ?? "",
        headers: request.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
      });
      for (const wake of waiters.splice(0)) wake();
      if (answer === "silent") hanging.push(response);
      else response.writeHead(answer, { "content-type": "text/plain" }).end(answer < 300 ? "ok" : "no");
    });
  };
  const server = options.tls ? createTlsServer(options.tls, listener) : createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.tls ? "https" : "http"}://127.0.0.1:${port}`,
    port,
    calls,
    async received(n, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (calls.length < n) {
        const left = until - Date.now();
        if (left <= 0) throw new Error(`Cannot wait for ${n} callbacks: ${calls.length} arrived in ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return calls;
    },
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
