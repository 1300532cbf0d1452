// Monthly quotas per account and endpoint, charged in the database before the work is done.
//
// Charges are group-committed: calls that arrive while a batch is being written wait for the next one, and one
// transaction of three statements settles a whole batch, whatever its size. Inside it the quota rows are locked
// (SELECT ... FOR UPDATE), so processes sharing a PostgreSQL serialise on them, and the batch is granted call by call in
// arrival order, each call all or nothing. N concurrent calls against Q calls left give exactly min(N, Q) successes.
// Why batch: on the embedded database one statement costs a few hundred microseconds of single-threaded PGlite time;
// one statement per call would cap metered traffic at a few thousand calls a second.
import type { Sql } from "../store/db.ts";
import type { MeteredEndpoint, Plan } from "../accounts/plans.ts";

export interface QuotaCharge {
  endpoint: MeteredEndpoint;
  amount: number;
}

export interface QuotaState {
  endpoint: MeteredEndpoint;
  limit: number;
  remaining: number;
  /** Unix seconds of the next month's first day, 00:00 UTC. */
  reset: number;
}

export type ChargeResult = { ok: true; states: QuotaState[] } | { ok: false; refused: QuotaState; states: QuotaState[] };

/** The first day of the month (UTC) that `nowMs` falls in, as YYYY-MM-DD, and the next month's start in unix seconds. */
export function quotaPeriod(nowMs: number): { period: string; reset: number } {
  const now = new Date(nowMs);
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  return {
    period: new Date(Date.UTC(y, m, 1)).toISOString().slice(0, 10),
    reset: Date.UTC(y, m + 1, 1) / 1000,
  };
}

interface PendingCharge {
  accountId: string;
  quota: Record<MeteredEndpoint, number>;
  charges: QuotaCharge[];
  resolve(result: ChargeResult): void;
  reject(error: unknown): void;
}

const rowKey = (accountId: string, endpoint: string) => `${accountId}\u0000${endpoint}`;

export class QuotaLedger {
  #queue: PendingCharge[] = [];
  #writing = false;

  constructor(
    private readonly sql: Sql,
    private readonly now: () => number = Date.now,
  ) {}

  /** Charges every entry or none. Unmetered plans are never charged. */
  charge(accountId: string, plan: Plan, charges: QuotaCharge[]): Promise<ChargeResult> {
    if (!plan.quota || charges.length === 0) return Promise.resolve({ ok: true, states: [] });
    const quota = plan.quota;
    return new Promise((resolve, reject) => {
      this.#queue.push({ accountId, quota, charges, resolve, reject });
      if (!this.#writing) {
        this.#writing = true;
        // Let the calls of this turn of the event loop join the batch.
        setImmediate(() => void this.#drain());
      }
    });
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#queue;
      this.#queue = [];
      try {
        await this.#settle(batch);
      } catch (error) {
        for (const pending of batch) pending.reject(error);
      }
    }
    this.#writing = false;
  }

  async #settle(batch: PendingCharge[]): Promise<void> {
    const { period, reset } = quotaPeriod(this.now());
    const rows = new Map<string, { accountId: string; endpoint: MeteredEndpoint; used: number; delta: number }>();
    for (const { accountId, charges } of batch) {
      for (const { endpoint } of charges) {
        rows.set(rowKey(accountId, endpoint), { accountId, endpoint, used: 0, delta: 0 });
      }
    }
    const accounts = [...rows.values()].map((r) => r.accountId);
    const endpoints = [...rows.values()].map((r) => r.endpoint);
    const results: ChargeResult[] = [];
    await this.sql.begin(async (tx) => {
      await tx`
        insert into quota_usage (account_id, endpoint, period, used)
        select a, e, ${period}::date, 0 from unnest(${accounts}::uuid[], ${endpoints}::text[]) as t(a, e)
        on conflict (account_id, endpoint, period) do nothing`;
      const locked = await tx`
        select account_id, endpoint, used from quota_usage
        where period = ${period}::date
          and (account_id, endpoint) in (select a, e from unnest(${accounts}::uuid[], ${endpoints}::text[]) as t(a, e))
        order by account_id, endpoint
        for update`;
      for (const row of locked) rows.get(rowKey(row.account_id, row.endpoint))!.used = Number(row.used);
      // Grant in arrival order, each call all or nothing, exactly as if they had come one at a time.
      for (const { accountId, quota, charges } of batch) {
        const left = (endpoint: MeteredEndpoint) => {
          const row = rows.get(rowKey(accountId, endpoint))!;
          return quota[endpoint] - row.used - row.delta;
        };
        const state = (endpoint: MeteredEndpoint): QuotaState => ({ endpoint, limit: quota[endpoint], remaining: Math.max(0, left(endpoint)), reset });
        const short = charges.find(({ endpoint, amount }) => left(endpoint) < amount);
        if (short) {
          results.push({ ok: false, refused: state(short.endpoint), states: charges.map((c) => state(c.endpoint)) });
          continue;
        }
        for (const { endpoint, amount } of charges) rows.get(rowKey(accountId, endpoint))!.delta += amount;
        results.push({ ok: true, states: charges.map((c) => state(c.endpoint)) });
      }
      const changed = [...rows.values()].filter((r) => r.delta > 0);
      if (changed.length > 0) {
        await tx`
          update quota_usage q set used = q.used + d.delta
          from unnest(${changed.map((r) => r.accountId)}::uuid[], ${changed.map((r) => r.endpoint)}::text[], ${changed.map((r) => r.delta)}::int[])
            as d(a, e, delta)
          where q.account_id = d.a and q.endpoint = d.e and q.period = ${period}::date`;
      }
    });
    batch.forEach((pending, i) => pending.resolve(results[i]));
  }

  /** Gives back a charge whose call then failed (a 5xx is free). */
  async refund(accountId: string, plan: Plan, charges: QuotaCharge[]): Promise<void> {
    if (!plan.quota) return;
    const { period } = quotaPeriod(this.now());
    for (const { endpoint, amount } of charges) {
      await this.sql`
        update quota_usage set used = greatest(0, used - ${amount}::int)
        where account_id = ${accountId} and endpoint = ${endpoint} and period = ${period}::date`;
    }
  }

  /** What is left, without charging (for the headers of refused calls). */
  async status(accountId: string, plan: Plan, endpoints: MeteredEndpoint[]): Promise<QuotaState[]> {
    if (!plan.quota) return [];
    const quota = plan.quota;
    const { period, reset } = quotaPeriod(this.now());
    const rows = await this.sql`
      select endpoint, used from quota_usage where account_id = ${accountId} and period = ${period}::date`;
    const used = new Map(rows.map((r) => [r.endpoint as string, Number(r.used)]));
    return endpoints.map((endpoint) => ({
      endpoint,
      limit: quota[endpoint],
      remaining: Math.max(0, quota[endpoint] - (used.get(endpoint) ?? 0)),
      reset,
    }));
  }
}

/** X-Quota-* headers describing the state with the fewest calls left (signup charges two quotas). */
export function quotaHeaders(states: QuotaState[]): Record<string, string> {
  if (states.length === 0) return {};
  const tightest = states.reduce((a, b) => (b.remaining < a.remaining ? b : a));
  return {
    "x-quota-limit": String(tightest.limit),
    "x-quota-remaining": String(tightest.remaining),
    "x-quota-reset": String(tightest.reset),
  };
}
