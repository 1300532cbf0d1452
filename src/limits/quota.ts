// Monthly quotas per account and endpoint, charged in the database before the work is done.
//
// Charges are group-committed: calls that arrive while a batch is being written wait for the next one, and one
// statement (the charge_quota function, migration 003) settles a whole batch, whatever its size: it locks the batch's
// quota rows (SELECT ... FOR UPDATE), so processes sharing a PostgreSQL serialise on them, and grants call by call in
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
    // Distinct quota rows (1-based, as SQL arrays are), then the charges that point at them.
    const rowIndex = new Map<string, number>();
    const account: string[] = [];
    const endpoint: MeteredEndpoint[] = [];
    const limit: number[] = [];
    const call: number[] = [];
    const row: number[] = [];
    const amount: number[] = [];
    batch.forEach((pending, i) => {
      for (const charge of pending.charges) {
        const key = `${pending.accountId}/${charge.endpoint}`;
        let index = rowIndex.get(key);
        if (index === undefined) {
          account.push(pending.accountId);
          endpoint.push(charge.endpoint);
          limit.push(pending.quota[charge.endpoint]);
          rowIndex.set(key, (index = account.length));
        }
        call.push(i);
        row.push(index);
        amount.push(charge.amount);
      }
    });
    const answers = await this.sql`
      select out_call, out_row, out_ok, out_remaining
      from charge_quota(${period}::date, ${account}::uuid[], ${endpoint}::text[], ${limit}::int[],
                        ${call}::int[], ${row}::int[], ${amount}::int[])`;
    const results = batch.map(() => ({ ok: true, states: [] as QuotaState[] }));
    for (const answer of answers) {
      const result = results[answer.out_call];
      result.ok = answer.out_ok;
      const r = answer.out_row - 1;
      result.states.push({ endpoint: endpoint[r], limit: limit[r], remaining: answer.out_remaining, reset });
    }
    batch.forEach((pending, i) => {
      const { ok, states } = results[i];
      if (ok) return pending.resolve({ ok: true, states });
      // The quota that could not take this call's amount.
      const refused = states.find((s, k) => s.remaining < pending.charges[k].amount) ?? states[0];
      pending.resolve({ ok: false, refused, states });
    });
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
