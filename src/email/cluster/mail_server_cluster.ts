// What the processes sharing one PostgreSQL share about mail servers, so that each mail server sees one client: the
// per-MX connection slots (slot_leases.ts), catch-all answers (shared_catch_all.ts) and MX cool-offs
// (shared_cool_off.ts), over one LISTEN/NOTIFY channel (cluster_channel.ts). Built by main.ts on PostgreSQL only;
// a process on the embedded database is alone and keeps all of it in memory, as before.
import type { Logger } from "../../log.ts";
import type { Sql } from "../../store/db.ts";
import type { CatchAllMemo } from "../checks/catch_all_memo.ts";
import type { MxHealth } from "../smtp/mx_health.ts";
import { createClusterChannel, type ClusterChannel } from "./cluster_channel.ts";
import { createClusterPresence, type ClusterPresence } from "./cluster_presence.ts";
import { shareCatchAll } from "./shared_catch_all.ts";
import { shareCoolOff, type SharedMxHealth } from "./shared_cool_off.ts";
import { createSlotLeases, type SlotLeases } from "./slot_leases.ts";

export interface MailServerCluster {
  readonly channel: ClusterChannel;
  readonly leases: SlotLeases;
  /** The other processes live on the database. */
  readonly presence: ClusterPresence;
  /** The engine's catch-all memo, shared with the other processes. */
  shareCatchAll(local: CatchAllMemo, options: { ttlMs: number }): CatchAllMemo;
  /** The prober's MX health, shared with the other processes. */
  shareCoolOff(local: MxHealth, options: { coolOffMs: number }): MxHealth;
  /** Starts listening and reads what the others published; call once the database is ready (migrated). */
  join(): Promise<void>;
  /** Gives back every slot held and stops listening. */
  close(): Promise<void>;
}

export interface MailServerClusterOptions {
  /** SMTP_MAX_PER_MX: connections to one MX host for the whole cluster. */
  maxPerHost: number;
  /** SMTP_LEASE_TTL_MS: how long the slots of a process that died stay held. */
  leaseTtlMs: number;
  log: Logger;
}

export function createMailServerCluster(sql: Sql, options: MailServerClusterOptions): MailServerCluster {
  const { maxPerHost, leaseTtlMs, log } = options;
  const channel = createClusterChannel(sql, { log });
  const leases = createSlotLeases({ channel, maxPerHost, ttlMs: leaseTtlMs, log });
  const presence = createClusterPresence(channel);
  const healths: SharedMxHealth[] = [];
  return {
    channel,
    leases,
    presence,
    shareCatchAll: (local, { ttlMs }) => shareCatchAll(local, { channel, ttlMs, log, alone: presence.alone }),
    shareCoolOff(local, { coolOffMs }) {
      const shared = shareCoolOff(local, { channel, coolOffMs, log });
      healths.push(shared);
      return shared;
    },
    async join() {
      await channel.open();
      for (const health of healths) await health.load().catch(() => {});
    },
    async close() {
      presence.close(); // sent before the channel closes: the others stop counting this process at once
      await leases.close();
      await channel.close();
    },
  };
}
