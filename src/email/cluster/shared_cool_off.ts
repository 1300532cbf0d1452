// An MX host's cool-off known to every process of the cluster: when repeated time-outs or refusals make a host failing
// here (smtp/mx_health.ts), the others skip it too for the rest of its cool-off, told over the cluster channel at once
// and kept in mx_cool_offs for a process that starts meanwhile. Times travel as what is left of the cool-off, measured
// by the database's clock, so processes whose clocks differ agree. What the host said travels with it (the refusal,
// or nothing for time-outs), so that a skipped probe answers the same reason in every process.
import type { Logger } from "../../log.ts";
import type { MxHealth } from "../smtp/mx_health.ts";
import type { ProbeOutcome } from "../smtp/prober.ts";
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
  /** Hosts cooling off because another process said so: until when (this process's clock), and what they said. */
  const remote = new Map<string, { until: number; outcome: ProbeOutcome }>();
  /** Hosts whose current cool-off here was published already. */
  const published = new Set<string>();

  const learn = (host: string, leftMs: number, said: string | null | undefined) => {
    if (!(leftMs > 0)) return;
    const until = now() + leftMs;
    if ((remote.get(host)?.until ?? 0) < until) remote.set(host, { until, outcome: refusalOf(said) });
  };
  // "cool-off host left-ms [refusal]": a process from before refusals were shared sends no refusal (time-outs).
  channel.on("cool-off", ({ args: [host, left, said] }) => {
    if (host === undefined) return;
    let text: string | null = null;
    try {
      if (said !== undefined) text = decodeURIComponent(said);
    } catch {
      text = ""; // garbled: read as plain unavailability
    }
    learn(host, Number(left), text);
  });

  function publish(host: string): void {
    published.add(host);
    const outcome = local.skipped(host);
    const said = outcome.kind === "timeout" ? null : JSON.stringify(outcome);
    if (said === null) channel.send("cool-off", host, String(coolOffMs));
    else channel.send("cool-off", host, String(coolOffMs), encodeURIComponent(said));
    void sql`
      insert into mx_cool_offs (host, cooled_until, refusal)
      values (${host}, now() + ${coolOffMs} * interval '1 millisecond', ${said})
      on conflict (host) do update set cooled_until = greatest(mx_cool_offs.cooled_until, excluded.cooled_until),
        refusal = excluded.refusal`.catch((error) =>
      log.warn("cannot share an MX cool-off", { mx: host, error: String(error) }),
    );
  }
  const failed = (host: string) => {
    if (local.failing(host) && !published.has(host)) publish(host);
  };

  return {
    failing(host) {
      if (local.failing(host)) return true;
      published.delete(host);
      const known = remote.get(host);
      if (known === undefined) return false;
      if (now() < known.until) return true;
      remote.delete(host);
      return false;
    },
    skipped(host) {
      if (local.failing(host)) return local.skipped(host);
      return remote.get(host)?.outcome ?? local.skipped(host);
    },
    timedOut(host) {
      local.timedOut(host);
      failed(host);
    },
    refused(host, outcome) {
      local.refused(host, outcome);
      failed(host);
    },
    answered(host) {
      local.answered(host);
      published.delete(host);
    },
    async load() {
      const rows = await sql`
        select host, (extract(epoch from cooled_until - now()) * 1000)::float8 as left_ms, refusal
          from mx_cool_offs where cooled_until > now()`;
      for (const row of rows) learn(String(row.host), Number(row.left_ms), row.refusal as string | null);
      // Rows long over are of no use to anyone.
      await sql`delete from mx_cool_offs where cooled_until < now() - interval '1 hour'`;
    },
  };
}

/**
 * What another process's host said, from its JSON (null: time-outs). Anything not shaped as a probe's answer is read
 * as plain unavailability: a skipped probe then says probe_unavailable, never an answer about the recipient.
 */
export function refusalOf(said: string | null | undefined): ProbeOutcome {
  if (said == null) return { kind: "timeout" };
  try {
    const value = JSON.parse(said) as Record<string, unknown>;
    const reply = value.reply as Record<string, unknown> | undefined;
    if (value.kind === "unavailable" && typeof value.why === "string") return { kind: "unavailable", why: value.why };
    if (
      value.kind === "reply" &&
      (value.category === "greylisted" || value.category === "blocked") &&
      typeof value.host === "string" &&
      typeof reply?.code === "number" &&
      typeof reply.text === "string" &&
      (reply.enhanced === null || typeof reply.enhanced === "string")
    ) {
      return {
        kind: "reply",
        category: value.category,
        host: value.host,
        reply: { code: reply.code, enhanced: reply.enhanced, text: reply.text },
      };
    }
  } catch {
    // not JSON: below
  }
  return { kind: "unavailable", why: "refused" };
}
