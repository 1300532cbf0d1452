// Settles a batch for the embedded database, which one process owns (the STATE_DIR lock): the counters live in memory,
// read once per quota row and month, the decisions are made here, and one upsert writes the batch's new counts through
// before any call of it is answered. One statement per batch instead of the locking function's four: on PGlite the
// statements are what metered traffic pays for.
import type { Sql } from "../store/db.ts";
import type { BatchedCall, QuotaSettler, SettledCall } from "./quota.ts";

export function createExclusiveQuotaSettler(sql: Sql): QuotaSettler {
  // `${period}/${account}/${endpoint}` → calls used. Last month's rows fall out of use; the map is cleared when the
  // period changes.
  const used = new Map<string, number>();
  let currentPeriod = "";

  async function load(
    keys: Array<{ key: string; accountId: string; endpoint: string }>,
    period: string,
  ): Promise<void> {
    const rows = await sql`
      select account_id, endpoint, used from quota_usage
      where period = ${period}::date
        and (account_id, endpoint) in (
          select a, e from unnest(${keys.map((k) => k.accountId)}::uuid[], ${keys.map((k) => k.endpoint)}::text[]) as t(a, e))`;
    for (const k of keys) used.set(k.key, 0);
    for (const r of rows) used.set(`${period}/${r.account_id}/${r.endpoint}`, Number(r.used));
  }

  return async (calls: BatchedCall[], period: string): Promise<SettledCall[]> => {
    if (period !== currentPeriod) {
      used.clear();
      currentPeriod = period;
    }
    const missing = new Map<string, { key: string; accountId: string; endpoint: string }>();
    for (const call of calls) {
      for (const { endpoint } of call.charges) {
        const key = `${period}/${call.accountId}/${endpoint}`;
        if (!used.has(key)) missing.set(key, { key, accountId: call.accountId, endpoint });
      }
    }
    if (missing.size > 0) await load([...missing.values()], period);

    const next = new Map<string, number>();
    const count = (key: string) => next.get(key) ?? used.get(key)!;
    const touched = new Map<string, { accountId: string; endpoint: string }>();
    const settled = calls.map(({ accountId, quota, charges }) => {
      const keys = charges.map(({ endpoint }) => `${period}/${accountId}/${endpoint}`);
      const ok = charges.every(({ endpoint, amount }, i) => amount <= 0 || count(keys[i]) + amount <= quota[endpoint]);
      if (ok) {
        charges.forEach(({ endpoint, amount }, i) => {
          next.set(keys[i], Math.max(0, count(keys[i]) + amount));
          touched.set(keys[i], { accountId, endpoint });
        });
      }
      return { ok, remaining: charges.map(({ endpoint }, i) => Math.max(0, quota[endpoint] - count(keys[i]))) };
    });
    if (touched.size > 0) {
      const rows = [...touched];
      await sql`
        insert into quota_usage (account_id, endpoint, period, used)
        select a, e, ${period}::date, u
        from unnest(${rows.map(([, r]) => r.accountId)}::uuid[], ${rows.map(([, r]) => r.endpoint)}::text[], ${rows.map(([key]) => next.get(key)!)}::int[])
          as t(a, e, u)
        on conflict (account_id, endpoint, period) do update set used = excluded.used`;
      // Only once the counts are durable do they become the ones later batches start from.
      for (const [key] of rows) used.set(key, next.get(key)!);
    }
    return settled;
  };
}
