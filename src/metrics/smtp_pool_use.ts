// What the per-MX gauges show, read at scrape time: the pool's connection slots per host, and the bulk recipients
// queued per host in the prober beside the callers waiting for a slot.
import type { SmtpPool } from "../email/smtp/pool.ts";
import type { SmtpProber } from "../email/smtp/prober.ts";
import type { MxPoolUse } from "./metrics.ts";

export function smtpPoolUse(pool: Pick<SmtpPool, "usage">, prober: Pick<SmtpProber, "queued">): MxPoolUse[] {
  const queued = prober.queued?.() ?? new Map<string, number>();
  const uses = new Map<string, MxPoolUse>();
  for (const { host, open, idle, waiting } of pool.usage()) {
    uses.set(host, { host, busy: open - idle, idle, waiting: waiting + (queued.get(host) ?? 0) });
  }
  for (const [host, waiting] of queued) {
    if (!uses.has(host) && waiting > 0) uses.set(host, { host, busy: 0, idle: 0, waiting });
  }
  return [...uses.values()];
}
