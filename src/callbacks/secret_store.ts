// Each account's callback signing secret (signature.ts), made on first use: a new account reads it with
// GET /v1/account/callback-secret before it submits its first job with a callback, or the first delivery makes it.
// POST rotates it; the previous secret still signs, beside the new one, for ROTATION_OVERLAP_HOURS, so a receiver
// can be switched to the new secret without losing a delivery in between.
import type { Sql } from "../store/db.ts";
import { generateCallbackSecret } from "./signature.ts";

export const ROTATION_OVERLAP_HOURS = 24;

export interface CallbackSecret {
  secret: string;
  createdAt: Date;
  /** Until when the secret this one replaced still signs beside it; null when there is none (or no longer). */
  previousExpiresAt: Date | null;
}

export interface CallbackSecretStore {
  /** The account's secret, made when it has none yet. */
  current(accountId: string): Promise<CallbackSecret>;
  /** Replaces the secret; the one it replaces still signs for ROTATION_OVERLAP_HOURS. */
  rotate(accountId: string): Promise<CallbackSecret>;
  /** What a callback of the account is signed with now: its secret, then the one it replaced while that still signs. */
  signingSecrets(accountId: string): Promise<string[]>;
}

interface SecretRow {
  secret: string;
  created_at: Date;
  previous_secret: string | null;
  previous_until: Date | null;
}

export function createCallbackSecretStore(sql: Sql): CallbackSecretStore {
  /** The row, made first when missing. Its previous secret only while it still signs. */
  async function row(accountId: string): Promise<SecretRow> {
    // Two tries: a concurrent first use may commit its row after this statement's snapshot was taken, and then
    // neither the insert (a conflict) nor the select (not yet visible) returns it; the second statement sees it.
    for (let attempt = 1; ; attempt++) {
      const [found] = await sql<SecretRow[]>`
        with created as (
          insert into callback_secrets (account_id, secret, created_at)
          values (${accountId}, ${generateCallbackSecret()}, clock_timestamp())
          on conflict (account_id) do nothing
          returning secret, created_at, previous_secret, previous_until
        ),
        found as (
          select secret, created_at, previous_secret, previous_until from created
          union all
          select secret, created_at, previous_secret, previous_until from callback_secrets where account_id = ${accountId}
        )
        select secret, created_at,
               case when previous_until > clock_timestamp() then previous_secret end as previous_secret,
               case when previous_until > clock_timestamp() then previous_until end as previous_until
        from found limit 1`;
      if (found !== undefined) return found;
      if (attempt >= 2) throw new Error("Cannot read the callback secret: the account's row did not appear");
    }
  }

  const secretOf = (r: SecretRow): CallbackSecret => ({
    secret: r.secret,
    createdAt: r.created_at,
    previousExpiresAt: r.previous_until,
  });

  return {
    async current(accountId) {
      return secretOf(await row(accountId));
    },
    async rotate(accountId) {
      const [r] = await sql<SecretRow[]>`
        insert into callback_secrets (account_id, secret, created_at)
        values (${accountId}, ${generateCallbackSecret()}, clock_timestamp())
        on conflict (account_id) do update
          set previous_secret = callback_secrets.secret,
              previous_until = clock_timestamp() + ${ROTATION_OVERLAP_HOURS} * interval '1 hour',
              secret = excluded.secret,
              created_at = excluded.created_at
        returning secret, created_at, previous_secret, previous_until`;
      return secretOf(r!);
    },
    async signingSecrets(accountId) {
      const r = await row(accountId);
      return r.previous_secret === null ? [r.secret] : [r.secret, r.previous_secret];
    },
  };
}
