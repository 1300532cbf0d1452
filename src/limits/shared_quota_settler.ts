// Settles a batch in PostgreSQL with the charge_quota function (migration 003): it locks the batch's quota rows, so
// any number of processes sharing the database serialise on them, decides call by call and writes the new counts, in
// one statement.
import type { Sql } from "../store/db.ts";
import type { BatchedCall, QuotaSettler, SettledCall } from "./quota.ts";

export function createSharedQuotaSettler(sql: Sql): QuotaSettler {
  return async (calls: BatchedCall[], period: string): Promise<SettledCall[]> => {
    // Distinct quota rows (1-based, as SQL arrays are), then the charges that point at them.
    const rowIndex = new Map<string, number>();
    const account: string[] = [];
    const endpoint: string[] = [];
    const limit: number[] = [];
    const call: number[] = [];
    const row: number[] = [];
    const amount: number[] = [];
    calls.forEach((pending, i) => {
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
    const answers = await sql`
      select out_call, out_ok, out_remaining
      from charge_quota(${period}::date, ${account}::uuid[], ${endpoint}::text[], ${limit}::int[],
                        ${call}::int[], ${row}::int[], ${amount}::int[])`;
    const settled: SettledCall[] = calls.map(() => ({ ok: true, remaining: [] }));
    // The function returns one row per charge, in the order they were given.
    for (const answer of answers) {
      settled[answer.out_call].ok = answer.out_ok;
      settled[answer.out_call].remaining.push(answer.out_remaining);
    }
    return settled;
  };
}
