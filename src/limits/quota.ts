// Monthly quotas per account and endpoint, charged in the database before the work is done.
//
// Charges are group-committed: calls that arrive while a batch is being settled wait for the next one, and a settler
// decides the whole batch at once, call by call in arrival order, each call all or nothing, durably before any call
// of the batch is answered. N concurrent calls against Q calls left give exactly min(N, Q) successes. Two settlers:
// shared_quota_settler.ts for processes sharing a PostgreSQL (row locks in the database), exclusive_quota_settler.ts
// for the embedded database that one process owns (counters in memory, written through).
// Why batch: on the embedded database a statement costs hundreds of microseconds of single-threaded PGlite time; a
// statement or more per call would cap metered traffic at a few thousand calls a second.
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

export type ChargeResult =
  | { ok: true; states: QuotaState[] }
  | { ok: false; refused: QuotaState; states: QuotaState[] };

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

/** One call's charges, as a settler sees them. A negative amount gives back (a refund) and always fits. */
export interface BatchedCall {
  accountId: string;
  quota: Record<MeteredEndpoint, number>;
  charges: QuotaCharge[];
}

/** Per call: granted or not, and what is left on each of its quotas afterwards (same order as its charges). */
export interface SettledCall {
  ok: boolean;
  remaining: number[];
}

/** Decides a batch of calls in order, each all or nothing, and makes the outcome durable before it resolves. */
export type QuotaSettler = (calls: BatchedCall[], period: string) => Promise<SettledCall[]>;

interface PendingCall extends BatchedCall {
  resolve(result: SettledCall): void;
  reject(error: unknown): void;
}

export class QuotaLedger {
  #queue: PendingCall[] = [];
  #writing = false;

  constructor(
    private readonly sql: Sql,
    private readonly settle: QuotaSettler,
    private readonly now: () => number = Date.now,
  ) {}

  /** Charges every entry or none. Unmetered plans are never charged. */
  async charge(accountId: string, plan: Plan, charges: QuotaCharge[]): Promise<ChargeResult> {
    if (!plan.quota || charges.length === 0) return { ok: true, states: [] };
    const quota = plan.quota;
    const { reset } = quotaPeriod(this.now());
    const settled = await this.#enqueue({ accountId, quota, charges });
    const states = charges.map(({ endpoint }, i) => ({
      endpoint,
      limit: quota[endpoint],
      remaining: settled.remaining[i],
      reset,
    }));
    if (settled.ok) return { ok: true, states };
    // The quota that could not take this call's amount.
    const refused = states.find((state, i) => state.remaining < charges[i].amount) ?? states[0];
    return { ok: false, refused, states };
  }

  /** Gives back a charge whose call then failed (a 5xx is free). */
  async refund(accountId: string, plan: Plan, charges: QuotaCharge[]): Promise<void> {
    if (!plan.quota || charges.length === 0) return;
    await this.#enqueue({ accountId, quota: plan.quota, charges: charges.map((c) => ({ ...c, amount: -c.amount })) });
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

  #enqueue(call: BatchedCall): Promise<SettledCall> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ ...call, resolve, reject });
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
        const settled = await this.settle(batch, quotaPeriod(this.now()).period);
        for (const [i, call] of batch.entries()) call.resolve(settled[i]);
      } catch (error) {
        for (const call of batch) call.reject(error);
      }
    }
    this.#writing = false;
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
