// A TCP proxy on loopback in front of a server (PostgreSQL), for tests of what a client sees when its peer stops
// answering: `forward` passes bytes both ways; `blackhole` keeps every socket open (and accepts new ones) but drops
// every byte, as a network partition or a paused server does; `refuse` closes new connections on arrival (nothing
// listens). Switching back to `forward` resumes the connections still open; the bytes dropped meanwhile are lost.
import { createServer, connect, type Server, type Socket } from "node:net";
import type { TestContext } from "node:test";

export type ProxyMode = "forward" | "blackhole" | "refuse";

export interface TcpProxy {
  /** The proxy's port on 127.0.0.1. */
  port: number;
  mode: ProxyMode;
  /** Connections accepted so far (refused ones included). */
  readonly accepted: number;
  close(): Promise<void>;
}

export async function startTcpProxy(
  t: TestContext,
  target: { host: string; port: number },
  options: { mode?: ProxyMode } = {},
): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const proxy = {
    port: 0,
    mode: options.mode ?? "forward",
    get accepted() {
      return accepted;
    },
    close: async () => {},
  } as TcpProxy;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
  };
  const server: Server = createServer((client) => {
    accepted++;
    track(client);
    if (proxy.mode === "refuse") return void client.destroy();
    // Connected upstream whatever the mode: a blackholed connection is one whose bytes are lost on the way.
    const upstream = connect(target.port, target.host);
    track(upstream);
    client.on("data", (chunk) => proxy.mode === "forward" && upstream.write(chunk));
    upstream.on("data", (chunk) => proxy.mode === "forward" && client.write(chunk));
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  proxy.port = (server.address() as { port: number }).port;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  t.after(() => proxy.close());
  return proxy;
}

/** `url` (a PostgreSQL URL) with its host and port replaced by the proxy's. */
export function throughProxy(url: string, proxy: TcpProxy): string {
  const through = new URL(url);
  through.hostname = "127.0.0.1";
  through.port = String(proxy.port);
  return through.toString();
}
