// Runs PGlite off the main thread: its queries are synchronous WebAssembly work that would otherwise stall the event
// loop. The database is served over the Postgres wire protocol on a Unix socket inside STATE_DIR, so the server and
// `npm run keys` speak to it through postgres.js exactly as they would to a real PostgreSQL.
//
// PGlite has one session, which every connection shares. @electric-sql/pglite-socket hands it over message by
// message, so two connections' extended-protocol exchanges (Parse, Bind, Execute, Sync) interleaved: the keys CLI
// beside a loaded server got "bind message supplies N parameters" and the server 500s (issue 10). Here a connection
// holds the session from its first message until PGlite answers ReadyForQuery outside a transaction: a whole
// exchange, or a whole transaction, runs before another connection's next message (docs/decisions.md "Storage").
import { PGlite } from "@electric-sql/pglite";
import { chmodSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { parentPort, workerData } from "node:worker_threads";

interface EmbeddedWorkerData {
  dataDir: string;
  socketPath: string;
}

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const READY_FOR_QUERY = 0x5a; // 'Z'
const TERMINATE = 0x58; // 'X'
const IDLE = 0x49; // 'I': ReadyForQuery outside a transaction block
/** A connection that holds the session (mid-exchange or in a transaction) and sends nothing for this long is closed. */
const HOLD_IDLE_MS = 30_000;
/** Sent for a connection that went away mid-exchange: ends it, so the next connection starts clean. */
const SYNC = Uint8Array.from([0x53, 0, 0, 0, 4]);
const MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

class Connection {
  buffer: Buffer = Buffer.alloc(0);
  readonly messages: Uint8Array[] = [];
  started = false;
  closed = false;
  constructor(readonly socket: Socket) {}
}

/** The last message of a backend output, when it is ReadyForQuery: its transaction status byte. */
function readyStatus(output: Buffer): number | undefined {
  let offset = 0;
  let status: number | undefined;
  while (offset + 5 <= output.length) {
    const type = output[offset];
    const length = output.readInt32BE(offset + 1);
    status = type === READY_FOR_QUERY && offset + 5 < output.length ? output[offset + 5] : undefined;
    offset += 1 + length;
  }
  return status;
}

/** Hands PGlite's one session to one connection at a time, by whole exchanges and whole transactions. */
class SessionGate {
  #holder: Connection | undefined;
  #waiting: Connection[] = [];
  #running = false;
  #holdTimer: NodeJS.Timeout | undefined;

  constructor(private readonly db: PGlite) {}

  /** Queues the complete messages a connection sent. */
  offer(connection: Connection): void {
    if (connection !== this.#holder && !this.#waiting.includes(connection)) this.#waiting.push(connection);
    void this.#pump();
  }

  /** A connection went away: drop what it queued, and give the session back clean if it held it. */
  async leave(connection: Connection): Promise<void> {
    connection.closed = true;
    connection.messages.length = 0;
    this.#waiting = this.#waiting.filter((c) => c !== connection);
    if (this.#holder !== connection) return;
    if (this.#running) return; // #pump releases it after the message in progress
    await this.#release();
    void this.#pump();
  }

  async #release(): Promise<void> {
    this.#holder = undefined;
    clearTimeout(this.#holdTimer);
    try {
      await this.db.runExclusive(() => this.db.execProtocolRaw(SYNC));
      if (this.db.isInTransaction()) await this.db.exec("rollback");
    } catch {
      // The next exchange reports whatever is still wrong.
    }
  }

  async #pump(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    clearTimeout(this.#holdTimer);
    try {
      for (;;) {
        if (this.#holder?.closed) await this.#release();
        const connection = this.#holder ?? this.#waiting.shift();
        if (!connection) break;
        const message = connection.messages.shift();
        if (!message) {
          // The holder has more to send (the rest of its exchange, or its transaction's next statement).
          this.#holdTimer = setTimeout(() => connection.socket.destroy(), HOLD_IDLE_MS);
          break;
        }
        const chunks: Uint8Array[] = [];
        try {
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(message, { onRawData: (data) => chunks.push(data.slice()) }),
          );
        } catch {
          // PGlite threw instead of answering: this connection cannot go on, the others can.
          connection.socket.destroy();
          this.#holder = connection;
          connection.closed = true;
          continue;
        }
        const output = Buffer.concat(chunks);
        if (output.length > 0 && !connection.closed) connection.socket.write(output);
        this.#holder = readyStatus(output) === IDLE ? undefined : connection;
        if (!this.#holder && connection.messages.length > 0 && !connection.closed) this.#waiting.push(connection);
      }
    } finally {
      this.#running = false;
    }
  }
}

/** Splits what a client sent into protocol messages: the untyped startup-phase ones first, then typed ones. */
function receive(connection: Connection, data: Buffer, gate: SessionGate): void {
  connection.buffer = connection.buffer.length === 0 ? data : Buffer.concat([connection.buffer, data]);
  let queued = false;
  for (;;) {
    const buffer = connection.buffer;
    if (!connection.started) {
      if (buffer.length < 8) break;
      const length = buffer.readInt32BE(0);
      const code = buffer.readInt32BE(4);
      if (length < 8 || length > MAX_MESSAGE_BYTES) return void connection.socket.destroy();
      if (buffer.length < length) break;
      connection.buffer = buffer.subarray(length);
      if (code === SSL_REQUEST || code === GSSENC_REQUEST) connection.socket.write("N");
      else if (code === CANCEL_REQUEST)
        return void connection.socket.end(); // nothing to cancel in PGlite
      else {
        connection.started = true;
        connection.messages.push(buffer.subarray(0, length));
        queued = true;
      }
      continue;
    }
    if (buffer.length < 5) break;
    const length = buffer.readInt32BE(1);
    if (length < 4 || length > MAX_MESSAGE_BYTES) return void connection.socket.destroy();
    if (buffer.length < 1 + length) break;
    connection.buffer = buffer.subarray(1 + length);
    if (buffer[0] === TERMINATE) return void connection.socket.end();
    connection.messages.push(buffer.subarray(0, 1 + length));
    queued = true;
  }
  if (queued) gate.offer(connection);
}

const { dataDir, socketPath } = workerData as EmbeddedWorkerData;
const db = await PGlite.create(dataDir);
const gate = new SessionGate(db);
const connections = new Set<Connection>();
const server = createServer((socket) => {
  const connection = new Connection(socket);
  connections.add(connection);
  socket.setNoDelay(true);
  socket.on("data", (data) => receive(connection, data, gate));
  socket.on("error", () => socket.destroy());
  socket.on("close", () => {
    connections.delete(connection);
    void gate.leave(connection);
  });
});
server.maxConnections = 32;
await new Promise<void>((listening, fail) => {
  server.once("error", fail);
  server.listen(socketPath, listening);
});
// Only the owner may connect (the socket is the whole database): the umask made it so already, this says it.
chmodSync(socketPath, 0o600);
parentPort!.postMessage({ type: "ready" });

parentPort!.on("message", async (message: { type: string }) => {
  if (message.type !== "stop") return;
  await new Promise<void>((closed) => {
    server.close(() => closed());
    for (const connection of connections) connection.socket.destroy();
  });
  await db.close();
  parentPort!.postMessage({ type: "stopped" });
});
