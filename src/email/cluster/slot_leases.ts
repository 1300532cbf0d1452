// Per-MX connection slots shared by every process on one PostgreSQL (docs/decisions.md, "A cluster of processes"). A
// slot is a row of mx_slot_leases: (host, slot number below SMTP_MAX_PER_MX), its holder and an expiry the holder
// renews while it lives. A process opens a connection to a host only under a slot it holds, so the connections of
// the whole cluster to one host never exceed the limit; a process that dies stops renewing, and its slots are free
// again once their lease runs out.
//
// Who waits is told over the cluster channel: a process that cannot get a slot says it wants one (interactive or
// bulk, repeated while it waits), and the holders act on it: bulk work yields its slots to an interactive caller at
// its next recipient boundary, and nobody keeps an idle connection while another process waits. A slot given back
// is announced, so that the waiters try again at once rather than at their next retry.
import type { Logger } from "../../log.ts";
import type { SlotPriority } from "../smtp/slot_priority.ts";
import type { ClusterChannel } from "./cluster_channel.ts";

export interface SlotLeases {
  /** Takes one of the host's slots of the cluster; false when every one is held (or the database did not answer). */
  take(host: string): Promise<boolean>;
  /** Gives one of the host's slots back (this process held it) and tells the others. */
  give(host: string): void;
  /**
   * This process waits for a slot of `host` with this priority, or no longer (null). Told to the others when it
   * changes, and again while it lasts, so that what they know of it runs out when this process dies.
   */
  want(host: string, priority: SlotPriority | null): void;
  /** The highest priority another process waits for a slot of `host` with, or null when none waits. */
  othersWant(host: string): SlotPriority | null;
  /** Calls `fn` when a slot of a host may have been freed, or another process's wish for one changed. */
  onChange(fn: (host: string) => void): void;
  /** Slots held now, per host (tests, metrics). */
  held(): Map<string, number>;
  /** Gives back every slot held and stops renewing. */
  close(): Promise<void>;
}

export interface SlotLeasesOptions {
  channel: ClusterChannel;
  /** SMTP_MAX_PER_MX: slots per host for the whole cluster. */
  maxPerHost: number;
  /** SMTP_LEASE_TTL_MS: how long a slot stays held after its holder stopped renewing it (died). */
  ttlMs: number;
  log: Logger;
  now?: () => number;
}

/** A wish is told again this often while it lasts. */
export const WANT_REFRESH_MS = 500;
/**
 * A wish not heard again for this long is over (its process died, or the message that ended it was lost). The pool
 * tells its wish again at each try for a slot (about every second, smtp/pool.ts), so this leaves room for one late.
 */
const WANT_EXPIRES_MS = 6 * WANT_REFRESH_MS;

export function createSlotLeases(options: SlotLeasesOptions): SlotLeases {
  const { channel, maxPerHost, ttlMs, log, now = Date.now } = options;
  const { sql, self } = channel;
  if (!Number.isInteger(maxPerHost) || maxPerHost < 1) throw new RangeError("Cannot lease slots: maxPerHost >= 1");
  if (!Number.isInteger(ttlMs) || ttlMs < 300) throw new RangeError("Cannot lease slots: ttlMs must be >= 300");
  /** Slot numbers this process holds, per host. */
  const holding = new Map<string, number[]>();
  /** Other processes' wishes per host: sender → priority and when it runs out. */
  const wishes = new Map<string, Map<string, { priority: SlotPriority; until: number }>>();
  /** This process's wish per host, and when it was last told. */
  const mine = new Map<string, { priority: SlotPriority; toldAt: number }>();
  const listeners: Array<(host: string) => void> = [];
  let closed = false;
  let failing = false;

  const changed = (host: string) => {
    for (const fn of listeners) fn(host);
  };
  const trouble = (what: string, error: unknown) => {
    if (!failing) log.warn("mx slot leases unavailable", { what, error: String(error) });
    failing = true;
  };

  channel.on("slot-freed", ({ args: [host] }) => {
    if (host !== undefined) changed(host);
  });
  channel.on("slot-wanted", ({ from, args: [host, priority] }) => {
    if (host === undefined) return;
    let byHost = wishes.get(host);
    if (priority === "interactive" || priority === "bulk") {
      if (byHost === undefined) wishes.set(host, (byHost = new Map()));
      byHost.set(from, { priority, until: now() + WANT_EXPIRES_MS });
    } else {
      byHost?.delete(from);
      if (byHost?.size === 0) wishes.delete(host);
    }
    changed(host);
  });

  // Renewal: every lease of this process in one statement, three times per lease time.
  const renewal = setInterval(
    () => {
      if (holding.size === 0 || closed) return;
      sql`update mx_slot_leases set expires_at = now() + ${ttlMs} * interval '1 millisecond' where holder = ${self}`
        .then(() => {
          if (failing) log.info("mx slot leases available again", {});
          failing = false;
        })
        .catch((error) => trouble("renew", error));
    },
    Math.max(100, Math.floor(ttlMs / 3)),
  );
  renewal.unref();

  return {
    async take(host) {
      // Before the channel listens (the database not ready yet) no slot is given: nobody could be told of it.
      await channel.opened;
      if (closed) return false;
      // Two processes may pick the same free slot: the second one's insert meets the first one's row, finds it live
      // and takes nothing. A few tries settle it; beyond, the caller waits for the next freed slot like any other.
      for (let attempt = 0; attempt < 3; attempt++) {
        let rows: Array<{ slot: number }>;
        try {
          rows = (await sql`
            insert into mx_slot_leases (host, slot, holder, expires_at)
            select ${host}, s, ${self}, now() + ${ttlMs} * interval '1 millisecond'
              from generate_series(0, ${maxPerHost - 1}::int) as s
             where not exists (
               select 1 from mx_slot_leases l where l.host = ${host} and l.slot = s and l.expires_at > now())
             order by random()
             limit 1
            on conflict (host, slot) do update set holder = excluded.holder, expires_at = excluded.expires_at
             where mx_slot_leases.expires_at <= now()
            returning slot`) as unknown as Array<{ slot: number }>;
        } catch (error) {
          trouble("take", error);
          return false;
        }
        const slot = rows[0]?.slot;
        if (slot !== undefined) {
          if (closed) {
            void sql`delete from mx_slot_leases where host = ${host} and slot = ${slot} and holder = ${self}`.catch(
              () => {},
            );
            return false;
          }
          const list = holding.get(host) ?? [];
          list.push(slot);
          holding.set(host, list);
          return true;
        }
        // None taken: every slot is live, or another process won the race for the one we picked.
        const [live] = await sql`
          select count(*)::int as n from mx_slot_leases where host = ${host} and expires_at > now()`.catch(() => [
          { n: maxPerHost },
        ]);
        if (Number(live?.n ?? maxPerHost) >= maxPerHost) return false;
      }
      return false;
    },

    give(host) {
      const list = holding.get(host);
      const slot = list?.pop();
      if (slot === undefined) return;
      if (list!.length === 0) holding.delete(host);
      // Deleted and announced in one statement: the notification leaves at commit, when the slot is free.
      void sql`
        with gone as (
          delete from mx_slot_leases where host = ${host} and slot = ${slot} and holder = ${self} returning host)
        select pg_notify(${channel.name}, ${`slot-freed ${self} ${host}`}) from gone`.catch((error) =>
        trouble("give", error),
      );
    },

    want(host, priority) {
      const told = mine.get(host);
      if (priority === null) {
        if (told === undefined) return;
        mine.delete(host);
        channel.send("slot-wanted", host, "none");
        return;
      }
      const at = now();
      if (told !== undefined && told.priority === priority && at - told.toldAt < WANT_REFRESH_MS) return;
      mine.set(host, { priority, toldAt: at });
      channel.send("slot-wanted", host, priority);
    },

    othersWant(host) {
      const byHost = wishes.get(host);
      if (byHost === undefined) return null;
      const at = now();
      let best: SlotPriority | null = null;
      for (const [from, wish] of byHost) {
        if (wish.until <= at) {
          byHost.delete(from);
          continue;
        }
        if (wish.priority === "interactive") return "interactive";
        best = "bulk";
      }
      if (byHost.size === 0) wishes.delete(host);
      return best;
    },

    onChange(fn) {
      listeners.push(fn);
    },

    held: () => new Map([...holding].map(([host, slots]) => [host, slots.length])),

    async close() {
      closed = true;
      clearInterval(renewal);
      for (const host of mine.keys()) channel.send("slot-wanted", host, "none");
      mine.clear();
      const hosts = [...holding.keys()];
      holding.clear();
      if (hosts.length === 0) return;
      await sql`
        with gone as (delete from mx_slot_leases where holder = ${self} returning host)
        select pg_notify(${channel.name}, 'slot-freed ' || ${self} || ' ' || host) from (select distinct host from gone) h`.catch(
        () => {},
      );
    },
  };
}
