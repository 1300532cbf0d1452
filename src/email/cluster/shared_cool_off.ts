// An MX host's cool-off known to every process of the cluster: when repeated time-outs make a host failing here
// (smtp/mx_health.ts), the others skip it too for the rest of its cool-off, told over the cluster channel at once and
// kept in mx_cool_offs for a process that starts meanwhile. Times travel as what is left of the cool-off, measured by
// the database's clock, so processes whose clocks differ agree.
import type { Logger } from "../../log.ts";
import type { MxHealth } from "../smtp/mx_health.ts";
import type { ClusterChannel } from "./cluster_channel.ts";

export interface SharedCoolOffOptions {
  channel: ClusterChannel;
  /** The cool-off of a host found failing here. */
  coolOffMs: number;
  log: Logger;
  now?: () => number;
}

export interface SharedMxHealth extends MxHealth {
  /** Reads the cool-offs the other processes published before this one started. */
  load(): Promise<void>;
}

/** `local`, plus the hosts other processes found failing. */
export function shareCoolOff(local: MxHealth, options: SharedCoolOffOptions): SharedMxHealth {
  const { channel, coolOffMs, log, now = Date.now } = options;
  const { sql } = channel;
  /** Hosts cooling off because another process said so: until when, on this process's clock. */
  const remote = new Map<string, number>();
  /** Hosts whose current cool-off here was published already. */
  const published = new Set<string>();

  const learn = (host: string, leftMs: number) => {
    if (!(leftMs > 0)) return;
    const until = now() + leftMs;
    if ((remote.get(host) ?? 0) < until) remote.set(host, until);
  };
  channel.on("cool-off", ({ args: [host, left] }) => {
    if (host !== undefined) learn(host, Number(left));
  });

  function publish(host: string): void {
    published.add(host);
    channel.send("cool-off", host, String(coolOffMs));
    void sql`
      insert into mx_cool_offs (host, cooled_until) values (${host}, now() + ${coolOffMs} * interval '1 millisecond')
      on conflict (host) do update set cooled_until = greatest(mx_cool_offs.cooled_until, excluded.cooled_until)`.catch(
      (error) => log.warn("cannot share an MX cool-off", { mx: host, error: String(error) }),
    );
  }

  return {
    failing(host) {
      if (local.failing(host)) return true;
      published.delete(host);
      const until = remote.get(host);
      if (until === undefined) return false;
      if (now() < until) return true;
      remote.delete(host);
      return false;
    },
    timedOut(host) {
      local.timedOut(host);
      if (local.failing(host) && !published.has(host)) publish(host);
    },
    answered(host) {
      local.answered(host);
      published.delete(host);
    },
    async load() {
      const rows = await sql`
        select host, (extract(epoch from cooled_until - now()) * 1000)::float8 as left_ms
          from mx_cool_offs where cooled_until > now()`;
      for (const row of rows) learn(String(row.host), Number(row.left_ms));
      // Rows long over are of no use to anyone.
      await sql`delete from mx_cool_offs where cooled_until < now() - interval '1 hour'`;
    },
  };
}
