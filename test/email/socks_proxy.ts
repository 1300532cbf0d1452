// A small SOCKS5 proxy (RFC 1928, RFC 1929 username/password) on node:net, for tests and benches: it counts every
// connection and records every CONNECT request as it arrived (address type and address), so a test can prove that
// probes went through it and that they named an IP address, never a host name.
import { connect, createServer, type Socket } from "node:net";

export interface SocksConnectRequest {
  /** 1: IPv4, 3: domain name, 4: IPv6 (RFC 1928 §5). */
  atyp: number;
  host: string;
  port: number;
}

export interface TestSocksProxyOptions {
  host?: string;
  port?: number;
  /** Require RFC 1929 username/password with these credentials. */
  auth?: { user: string; pass: string };
  /** Answer the method selection with this method whatever the client offers (e.g. 0x01 GSSAPI, 0xff none). */
  forceMethod?: number;
}

export interface TestSocksProxy {
  host: string;
  port: number;
  /** socks5://[user:pass@]host:port of this proxy. */
  url: string;
  /** Client connections accepted so far. */
  readonly connections: number;
  /** CONNECT requests received, in order. */
  readonly requests: SocksConnectRequest[];
  /** Failed username/password attempts. */
  readonly authFailures: number;
  stop(): Promise<void>;
}

function readAddress(buf: Buffer, atyp: number, at: number): { host: string; next: number } | null {
  if (atyp === 1) {
    if (buf.length < at + 4) return null;
    return { host: [...buf.subarray(at, at + 4)].join("."), next: at + 4 };
  }
  if (atyp === 4) {
    if (buf.length < at + 16) return null;
    const groups: string[] = [];
    for (let i = 0; i < 16; i += 2) groups.push(buf.readUInt16BE(at + i).toString(16));
    return { host: groups.join(":"), next: at + 16 };
  }
  if (buf.length < at + 1) return null;
  const length = buf[at]!;
  if (buf.length < at + 1 + length) return null;
  return { host: buf.subarray(at + 1, at + 1 + length).toString("latin1"), next: at + 1 + length };
}

/** Starts the proxy on `host` (default 127.0.0.1) and a free port unless one is given. */
export async function startSocksProxy(options: TestSocksProxyOptions = {}): Promise<TestSocksProxy> {
  const { host = "127.0.0.1", port = 0, auth, forceMethod } = options;
  let connections = 0;
  let authFailures = 0;
  const requests: SocksConnectRequest[] = [];
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
  };

  const server = createServer((client) => {
    connections++;
    track(client);
    let stage: "greeting" | "auth" | "request" | "relay" = "greeting";
    let buf = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      for (;;) {
        if (stage === "greeting") {
          if (buf.length < 2 || buf.length < 2 + buf[1]!) return;
          const methods = [...buf.subarray(2, 2 + buf[1]!)];
          buf = buf.subarray(2 + buf[1]!);
          const wanted = auth ? 0x02 : 0x00;
          const method = forceMethod ?? (methods.includes(wanted) ? wanted : 0xff);
          client.write(Buffer.from([0x05, method]));
          if (method === 0xff || (method !== 0x00 && method !== 0x02)) return void client.end();
          stage = method === 0x02 ? "auth" : "request";
        } else if (stage === "auth") {
          if (buf.length < 2) return;
          const ulen = buf[1]!;
          if (buf.length < 3 + ulen || buf.length < 3 + ulen + buf[2 + ulen]!) return;
          const user = buf.subarray(2, 2 + ulen).toString("utf8");
          const plen = buf[2 + ulen]!;
          const pass = buf.subarray(3 + ulen, 3 + ulen + plen).toString("utf8");
          buf = buf.subarray(3 + ulen + plen);
          const ok = auth !== undefined && user === auth.user && pass === auth.pass;
          client.write(Buffer.from([0x01, ok ? 0x00 : 0x01]));
          if (!ok) {
            authFailures++;
            return void client.end();
          }
          stage = "request";
        } else if (stage === "request") {
          if (buf.length < 5) return;
          const command = buf[1]!;
          const atyp = buf[3]!;
          const address = readAddress(buf, atyp, 4);
          if (address === null || buf.length < address.next + 2) return;
          const destPort = buf.readUInt16BE(address.next);
          const rest = buf.subarray(address.next + 2);
          buf = Buffer.alloc(0);
          requests.push({ atyp, host: address.host, port: destPort });
          stage = "relay";
          client.removeListener("data", onData);
          client.pause();
          // CONNECT only (command 1): anything else is "command not supported".
          if (command !== 0x01) return void client.end(Buffer.from([0x05, 0x07, 0x00, 0x01, 0, 0, 0, 0, 0, 0]));
          // This proxy never resolves names: a name here is refused (address type not supported).
          if (atyp === 3) return void client.end(Buffer.from([0x05, 0x08, 0x00, 0x01, 0, 0, 0, 0, 0, 0]));
          const upstream = connect({ host: address.host, port: destPort });
          track(upstream);
          upstream.once("connect", () => {
            client.write(Buffer.from([0x05, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0]));
            if (rest.length > 0) upstream.write(rest);
            client.pipe(upstream);
            upstream.pipe(client);
            client.resume();
          });
          upstream.once("error", () => {
            if (!client.destroyed) client.end(Buffer.from([0x05, 0x05, 0x00, 0x01, 0, 0, 0, 0, 0, 0]));
          });
          upstream.on("close", () => client.destroy());
          client.on("close", () => upstream.destroy());
          return;
        } else {
          return;
        }
      }
    };
    client.on("data", onData);
  });
  await new Promise<void>((resolve, reject) => server.listen(port, host, resolve).once("error", reject));
  const bound = (server.address() as { port: number }).port;
  const credentials = auth ? `${encodeURIComponent(auth.user)}:${encodeURIComponent(auth.pass)}@` : "";
  return {
    host,
    port: bound,
    url: `socks5://${credentials}${host}:${bound}`,
    get connections() {
      return connections;
    },
    requests,
    get authFailures() {
      return authFailures;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
