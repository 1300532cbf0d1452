// The client-side backstop on every PostgreSQL connection (DB_QUERY_TIMEOUT_MS, docs/contract.md §3). postgres.js
// queries take no AbortSignal and have no time limit of their own: a database that stops answering on an open
// connection (a network partition, a paused server) leaves its queries waiting for ever, and statement_timeout cannot
// help since it is the server that no longer speaks. This socket, handed to postgres.js through its `socket` option,
// watches the protocol: while a request is owed an answer (a startup, a Query or a Sync not yet followed by
// ReadyForQuery, or any write not followed by a byte), the server must send something within `timeoutMs`; otherwise
// the socket is destroyed with a DATABASE_TIMEOUT error. postgres.js then fails every query of that connection with
// it (a 503, store/unavailable.ts) and drops the connection, so no later query is sent down a wedged one. An idle
// connection, or one idle inside a transaction, owes nothing and is never cut. Plain TCP and Unix sockets only: a TLS
// connection is upgraded by postgres.js over the raw socket, whose bytes can no longer be read here.
import { Socket } from "node:net";

export const DATABASE_TIMEOUT = "DATABASE_TIMEOUT";

/** What postgres.js passes to its `socket` factory (its parsed options). */
export interface SocketTarget {
  host: string[];
  port: number[];
  path?: string | false;
}

const QUERY = 0x51; // Q
const SYNC = 0x53; // S
const READY_FOR_QUERY = 0x5a; // Z
const STARTUP = -1; // the first message a client sends has no type byte

/** Calls `onMessage` with the type of each message in a PostgreSQL byte stream, fed in chunks of any size. */
function messageTypes(
  options: { untypedFirst: boolean },
  onMessage: (type: number) => void,
): (chunk: Uint8Array) => void {
  let first = options.untypedFirst;
  let header = Buffer.alloc(0);
  let skip = 0;
  return (bytes) => {
    const chunk = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let at = 0;
    while (at < chunk.length) {
      if (skip > 0) {
        const n = Math.min(skip, chunk.length - at);
        skip -= n;
        at += n;
        continue;
      }
      const size = first ? 4 : 5;
      const take = chunk.subarray(at, at + size - header.length);
      header = header.length === 0 ? Buffer.from(take) : Buffer.concat([header, take]);
      at += take.length;
      if (header.length < size) return;
      onMessage(first ? STARTUP : header[0]!);
      skip = header.readUInt32BE(first ? 0 : 1) - 4; // the length counts itself, not the type byte
      header = Buffer.alloc(0);
      first = false;
    }
  };
}

/** A socket factory for postgres.js's `socket` option whose connections give up after `timeoutMs` without an answer. */
export function watchedSocketFactory(timeoutMs: number): (target: SocketTarget) => Socket {
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) {
    throw new RangeError(`Cannot watch database connections: timeoutMs must be a positive integer, got ${timeoutMs}`);
  }
  let next = 0; // several hosts: each new connection tries the next, as postgres.js does itself
  return (target) => {
    const socket = new Socket();
    let owed = 0;
    let awaiting = false;
    let timer: NodeJS.Timeout | undefined;
    const fire = () => {
      timer = undefined;
      const error = Object.assign(new Error(`Cannot reach the database: no answer within ${timeoutMs} ms`), {
        code: DATABASE_TIMEOUT,
      });
      socket.destroy(error);
    };
    // Armed while an answer is owed; every byte that comes back starts it again (progress).
    const arm = (restart: boolean) => {
      if (owed === 0 && !awaiting) {
        clearTimeout(timer);
        timer = undefined;
      } else if (restart || timer === undefined) {
        clearTimeout(timer);
        timer = setTimeout(fire, timeoutMs);
      }
    };
    const sent = messageTypes({ untypedFirst: true }, (type) => {
      if (type === STARTUP || type === QUERY || type === SYNC) owed++;
    });
    const received = messageTypes({ untypedFirst: false }, (type) => {
      if (type === READY_FOR_QUERY && owed > 0) owed--;
    });
    // postgres.js writes its startup message at once: the socket holds it until connected, and the timer below
    // bounds the connection too. Connect first: connect() puts back the prototype's write.
    if (target.path) socket.connect(target.path);
    else {
      const i = next++ % target.host.length;
      socket.connect(target.port[i] ?? target.port[0]!, target.host[i]!);
    }
    const write = socket.write;
    socket.write = function (this: Socket, data: unknown, ...rest: unknown[]) {
      if (data instanceof Uint8Array) sent(data);
      awaiting = true;
      arm(false);
      return (write as (...args: unknown[]) => boolean).call(this, data, ...rest);
    } as Socket["write"];
    socket.on("data", (chunk: Buffer) => {
      received(chunk);
      awaiting = false;
      arm(true);
    });
    socket.once("close", () => {
      clearTimeout(timer);
      timer = undefined;
    });
    return socket;
  };
}
