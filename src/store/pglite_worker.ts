// Runs PGlite off the main thread: its queries are synchronous WebAssembly work that would otherwise stall the event
// loop. The database is served over the Postgres wire protocol on a Unix socket inside STATE_DIR, so the server and
// `npm run keys` speak to it through postgres.js exactly as they would to a real PostgreSQL.
//
// PGlite has one session, which every connection shares. @electric-sql/pglite-socket hands it over message by
// message, so two connections' extended-protocol exchanges (Parse, Bind, Execute, Sync) interleaved: the keys CLI
// beside a loaded server got "bind message supplies N parameters" and the server 500s. Here a connection
// holds the session from its first message until PGlite answers ReadyForQuery outside a transaction: a whole
// exchange, or a whole transaction, runs before another connection's next message (docs/decisions.md "Storage").
//
// A full disk (docs/decisions.md "Storage"): an ERROR with SQLSTATE 53100 leaves PGlite usable and is only reported to
// the main thread ("disk-full"). A PANIC (a new WAL segment that cannot be written) leaves it unusable: the next
// statement spins the thread for ever. So after a PANIC nothing more is sent to this instance: its files are closed,
// every connection is answered then dropped, and the main thread is told ("failed"); it ends this thread and opens the
// database again in a new one (embedded_database.ts).
import { PGlite } from "@electric-sql/pglite";
import { chmodSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { parentPort, workerData } from "node:worker_threads";
import { DISK_FULL_SQLSTATE } from "./disk_full.ts";
import type { PgliteModules } from "./pglite_modules.ts";

export interface EmbeddedWorkerData {
  dataDir: string;
  socketPath: string;
  /** Compiled by the main thread, whose copy keeps the code alive across workers (pglite_modules.ts). */
  modules: PgliteModules;
}

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const READY_FOR_QUERY = 0x5a; // 'Z'
const ERROR_RESPONSE = 0x45; // 'E'
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

/** What the main thread hears from this one, besides "ready" (a stopped thread says nothing: it exits). */
export type WorkerReport =
  | { type: "disk-full"; message: string }
  | { type: "failed"; message: string; code: string | undefined };

interface BackendError {
  severity: string;
  code: string | undefined;
  message: string;
}

/** The fields of an ErrorResponse body (after its length): one type byte and one C string each. */
function parseError(body: Buffer): BackendError {
  const fields = new Map<string, string>();
  let offset = 0;
  while (offset < body.length && body[offset] !== 0) {
    const end = body.indexOf(0, offset + 1);
    if (end < 0) break;
    fields.set(String.fromCharCode(body[offset]!), body.toString("utf8", offset + 1, end));
    offset = end + 1;
  }
  // V is the severity never translated; S the one that may be.
  return { severity: fields.get("V") ?? fields.get("S") ?? "", code: fields.get("C"), message: fields.get("M") ?? "" };
}

/** The transaction status of a backend output that ends with ReadyForQuery, and the worst error it carries. */
function inspect(output: Buffer): { status: number | undefined; error: BackendError | undefined } {
  let offset = 0;
  let status: number | undefined;
  let error: BackendError | undefined;
  while (offset + 5 <= output.length) {
    const type = output[offset];
    const length = output.readInt32BE(offset + 1);
    status = type === READY_FOR_QUERY && offset + 5 < output.length ? output[offset + 5] : undefined;
    if (type === ERROR_RESPONSE && (error === undefined || !isFatal(error))) {
      error = parseError(output.subarray(offset + 5, Math.min(output.length, offset + 1 + length)));
    }
    offset += 1 + length;
  }
  return { status, error };
}

/**
 * An error after which the instance cannot be used again. Only PANIC: a FATAL also answers what one client did
 * (a startup message naming another database), and must not end the database for everyone.
 */
function isFatal(error: BackendError): boolean {
  return error.severity === "PANIC";
}

/** A throw from inside the WebAssembly postgres (an abort, a trap): the instance is no longer usable either. */
function isCrash(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return error.name === "RuntimeError" || /^Aborted\b|\bENOSPC\b|No space left on device/.test(error.message);
}

/** Sent after the error of a statement that killed the instance, so the client reads the error, not a bare close. */
const READY_IDLE = Uint8Array.from([READY_FOR_QUERY, 0, 0, 0, 5, IDLE]);

/** Hands PGlite's one session to one connection at a time, by whole exchanges and whole transactions. */
class SessionGate {
  #holder: Connection | undefined;
  #waiting: Connection[] = [];
  #running = false;
  #holdTimer: NodeJS.Timeout | undefined;
  #dead = false;

  constructor(
    private readonly db: PGlite,
    private readonly died: (message: string, code: string | undefined) => void,
  ) {}

  /** True once the instance is unusable: nothing is sent to it any more. */
  get dead(): boolean {
    return this.#dead;
  }

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
    if (this.#dead) return;
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
        if (this.#dead) break;
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
        } catch (error) {
          if (isCrash(error)) {
            this.#die(error instanceof Error ? error.message : String(error), undefined);
            break;
          }
          // PGlite threw instead of answering: this connection cannot go on, the others can.
          connection.socket.destroy();
          this.#holder = connection;
          connection.closed = true;
          continue;
        }
        const output = Buffer.concat(chunks);
        const { status, error } = inspect(output);
        if (error !== undefined && isFatal(error)) {
          // The client gets its error (a 53100 is answered 503 like any other), then the instance is given up.
          if (!connection.closed)
            connection.socket.write(status === undefined ? Buffer.concat([output, READY_IDLE]) : output);
          this.#die(error.message, error.code);
          break;
        }
        if (error?.code === DISK_FULL_SQLSTATE) report({ type: "disk-full", message: error.message });
        if (output.length > 0 && !connection.closed) connection.socket.write(output);
        this.#holder = status === IDLE ? undefined : connection;
        if (!this.#holder && connection.messages.length > 0 && !connection.closed) this.#waiting.push(connection);
      }
    } finally {
      this.#running = false;
    }
  }

  #die(message: string, code: string | undefined): void {
    this.#dead = true;
    this.#holder = undefined;
    this.#waiting = [];
    clearTimeout(this.#holdTimer);
    this.died(message, code);
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

function report(message: WorkerReport): void {
  parentPort!.postMessage(message);
}

const { dataDir, socketPath, modules } = workerData as EmbeddedWorkerData;
const db = await PGlite.create(dataDir, { pgliteWasmModule: modules.pglite, initdbWasmModule: modules.initdb });
const connections = new Set<Connection>();
const gate = new SessionGate(db, (message, code) => {
  // The main thread hears it first, so that a call the closing socket fails is already refused for the right reason.
  report({ type: "failed", message, code });
  // Only JavaScript from here on: closing the instance's files releases what they hold (a half-written WAL segment)
  // without running its WebAssembly again.
  try {
    db.Module.FS.quit();
  } catch {
    // Whatever stays open is released when the main thread ends this one.
  }
  server.close();
  for (const connection of connections) connection.socket.end();
});
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
    if (!server.listening) return closed();
    server.close(() => closed());
    for (const connection of connections) connection.socket.destroy();
  });
  if (!gate.dead) await db.close();
  // Nothing else holds this thread now: it ends on its own rather than being terminated by the main thread, as
  // terminating a thread that holds WebAssembly code has crashed Node in teardown (nodejs/node#47748).
  parentPort!.unref();
});
