// Monthly quotas per account and endpoint, charged in the database. One statement both checks and charges, under the
// row lock, so N concurrent calls against Q calls left give exactly min(N, Q) successes in any number of processes.
import type { Queryable, Sql } from "../store/db.ts";
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

class Refused extends Error {}

export class QuotaLedger {
  constructor(
    private readonly sql: Sql,
    private readonly now: () => number = Date.now,
  ) {}

  /** Charges every entry or none. Unmetered plans are never charged. */
  async charge(accountId: string, plan: Plan, charges: QuotaCharge[]): Promise<ChargeResult> {
    if (!plan.quota) return { ok: true, states: [] };
    const quota = plan.quota;
    const { period, reset } = quotaPeriod(this.now());
    const states: QuotaState[] = [];
    const run = async (sql: Queryable) => {
      for (const { endpoint, amount } of charges) {
        const limit = quota[endpoint];
        const [row] = await sql`
          insert into quota_usage (account_id, endpoint, period, used)
          select ${accountId}, ${endpoint}, ${period}, ${amount} where ${amount}::int <= ${limit}::int
          on conflict (account_id, endpoint, period) do update set used = quota_usage.used + excluded.used
            where quota_usage.used + excluded.used <= ${limit}::int
          returning used`;
        if (!row) {
          const used = await this.used(sql, accountId, endpoint, period);
          throw Object.assign(new Refused(), { state: { endpoint, limit, remaining: Math.max(0, limit - used), reset } });
        }
        states.push({ endpoint, limit, remaining: limit - Number(row.used), reset });
      }
    };
    try {
      if (charges.length === 1) await run(this.sql);
      else await this.sql.begin((tx) => run(tx));
      return { ok: true, states };
    } catch (error) {
      if (!(error instanceof Refused)) throw error;
      const refused = (error as Refused & { state: QuotaState }).state;
      return { ok: false, refused, states: await this.status(accountId, plan, charges.map((c) => c.endpoint)) };
    }
  }

  /** Gives back a charge whose call then failed (a 5xx is free). */
  async refund(accountId: string, plan: Plan, charges: QuotaCharge[]): Promise<void> {
    if (!plan.quota) return;
    const { period } = quotaPeriod(this.now());
    for (const { endpoint, amount } of charges) {
      await this.sql`
        update quota_usage set used = greatest(0, used - ${amount}::int)
        where account_id = ${accountId} and endpoint = ${endpoint} and period = ${period}`;
    }
  }

  /** What is left, without charging (for the headers of refused calls). */
  async status(accountId: string, plan: Plan, endpoints: MeteredEndpoint[]): Promise<QuotaState[]> {
    if (!plan.quota) return [];
    const { period, reset } = quotaPeriod(this.now());
    const states: QuotaState[] = [];
    for (const endpoint of endpoints) {
      const limit = plan.quota[endpoint];
      const used = await this.used(this.sql, accountId, endpoint, period);
      states.push({ endpoint, limit, remaining: Math.max(0, limit - used), reset });
    }
    return states;
  }

  private async used(sql: Queryable, accountId: string, endpoint: string, period: string): Promise<number> {
    const [row] = await sql`
      select used from quota_usage where account_id = ${accountId} and endpoint = ${endpoint} and period = ${period}`;
    return row ? Number(row.used) : 0;
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
