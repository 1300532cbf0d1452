// The processes sharing one PostgreSQL tell each other about mail servers through LISTEN/NOTIFY: a slot freed or
// wanted (slot_leases.ts), a catch-all answer found (shared_catch_all.ts), a host cooling off (shared_cool_off.ts).
// Notifications are a fast path only: what must survive a missed one (a lease, an answer) is in a table too.
//
// A channel is per database, not per schema: its name carries the schema, so that tests (each in its own schema)
// and deployments sharing a database never hear each other.
import { randomUUID } from "node:crypto";
import type { Logger } from "../../log.ts";
import type { Sql } from "../../store/db.ts";

export interface ClusterMessage {
  kind: string;
  /** The process that sent it. */
  from: string;
  /** The rest of the payload, split on spaces (host names and domains hold none). */
  args: string[];
}

export interface ClusterChannel {
  readonly sql: Sql;
  /** This process's id: the holder of its leases, and the sender of its messages. */
  readonly self: string;
  /** The channel's name; known once `opened` has settled. */
  readonly name: string;
  /** Settles once the channel listens (the database was reached and migrated, then LISTEN answered). */
  readonly opened: Promise<void>;
  /** Starts listening; called once the database is ready. */
  open(): Promise<void>;
  /** Sends a message to every process (this one does not hear its own). Never throws: a lost message is a slower path. */
  send(kind: string, ...args: string[]): void;
  /** Calls `fn` with every message of `kind` from another process. */
  on(kind: string, fn: (message: ClusterMessage) => void): void;
  close(): Promise<void>;
}

/** The channel's name for the schema the connection works in. */
export async function channelName(sql: Sql): Promise<string> {
  const [row] = await sql`select current_schema() as schema`;
  const schema = String(row?.schema ?? "public").replace(/[^a-zA-Z0-9_]/g, "_");
  return `vrai_mail_${schema}`.slice(0, 63);
}

export function createClusterChannel(sql: Sql, options: { log: Logger }): ClusterChannel {
  const { log } = options;
  const self = randomUUID();
  let name = "";
  const handlers = new Map<string, Array<(message: ClusterMessage) => void>>();
  let listening: { unlisten(): Promise<void> } | undefined;
  let closed = false;
  let markOpened!: () => void;
  const opened = new Promise<void>((resolve) => {
    markOpened = resolve;
  });
  const deliver = (payload: string) => {
    const [kind = "", from = "", ...args] = payload.split(" ");
    if (from === self) return;
    for (const fn of handlers.get(kind) ?? []) {
      try {
        fn({ kind, from, args });
      } catch (error) {
        log.error("cluster message failed", { kind, error: String(error) });
      }
    }
  };
  return {
    sql,
    self,
    get name() {
      return name;
    },
    opened,
    async open() {
      name = await channelName(sql);
      listening = await sql.listen(name, deliver);
      if (closed) await listening.unlisten().catch(() => {});
      markOpened();
    },
    send(kind, ...args) {
      void opened.then(() => {
        if (closed) return;
        sql.notify(name, [kind, self, ...args].join(" ")).catch((error) => {
          log.debug("cluster message not sent", { kind, error: String(error) });
        });
      });
    },
    on(kind, fn) {
      const list = handlers.get(kind) ?? [];
      list.push(fn);
      handlers.set(kind, list);
    },
    async close() {
      closed = true;
      await listening?.unlisten().catch(() => {});
    },
  };
}
