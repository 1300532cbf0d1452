// Accounts and their keys in the database. A key is looked up by the SHA-256 of the whole key; the stored hash is
// compared again in constant time before the key is trusted.
import { randomUUID, timingSafeEqual } from "node:crypto";
import type { Queryable, Sql } from "../store/db.ts";
import { generateApiKey, hashApiKey, keyPrefix, type KeyMode } from "./api_key.ts";

export type Endpoint = "email" | "address" | "signup";
export const ENDPOINTS: readonly Endpoint[] = ["email", "address", "signup"];

export interface KeyRecord {
  id: string;
  accountId: string;
  account: string;
  plan: string;
  prefix: string;
  mode: KeyMode;
  endpoints: Endpoint[];
  createdAt: string;
  revokedAt: string | null;
}

export class KeyStoreError extends Error {
  constructor(
    readonly code: "KEY_NOT_FOUND" | "KEY_AMBIGUOUS" | "UNKNOWN_PLAN",
    message: string,
  ) {
    super(message);
    this.name = "KeyStoreError";
  }
}

interface KeyRow {
  id: string;
  account_id: string;
  account: string;
  plan: string;
  prefix: string;
  mode: KeyMode;
  endpoints: Endpoint[];
  created_at: Date;
  revoked_at: Date | null;
  hash: Buffer;
}

function toRecord(row: KeyRow): KeyRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    account: row.account,
    plan: row.plan,
    prefix: row.prefix,
    mode: row.mode,
    endpoints: row.endpoints,
    createdAt: new Date(row.created_at).toISOString(),
    revokedAt: row.revoked_at ? new Date(row.revoked_at).toISOString() : null,
  };
}

export interface CreateKeyOptions {
  account: string;
  /** The plan of a new account (default free); on an existing account, changes its plan (unset: keeps it). */
  plan?: string;
  mode?: KeyMode;
  endpoints?: Endpoint[];
  knownPlans: readonly string[];
}

export interface CreatedKey {
  /** The key in clear, the only time it exists. */
  key: string;
  record: KeyRecord;
  /** The account's plan before this call, or null when this call created the account. */
  previousPlan: string | null;
}

/**
 * Creates the account on first use of its name, then a key. An existing account keeps its plan unless `plan` is
 * given; `previousPlan` tells the caller whether the account was new and whether its plan changed.
 */
export async function createKey(sql: Sql, options: CreateKeyOptions): Promise<CreatedKey> {
  const { account, plan, mode = "live", endpoints = [...ENDPOINTS], knownPlans } = options;
  if (plan !== undefined && !knownPlans.includes(plan)) {
    throw new KeyStoreError(
      "UNKNOWN_PLAN",
      `Cannot create key: unknown plan "${plan}" (known: ${knownPlans.join(", ")})`,
    );
  }
  const key = generateApiKey(mode);
  const id = randomUUID();
  const { row, previousPlan } = await sql.begin(async (tx) => {
    // The CTE reads the row as it was before the statement: the plan the account had, or nothing for a new account.
    const [acct] = await tx<{ id: string; plan: string; previous_plan: string | null }[]>`
      with prior as (select plan from accounts where name = ${account})
      insert into accounts (id, name, plan) values (${randomUUID()}, ${account}, ${plan ?? "free"})
      on conflict (name) do update set plan = coalesce(${plan ?? null}, accounts.plan)
      returning id, plan, (select plan from prior) as previous_plan`;
    await tx`
      insert into api_keys (id, account_id, prefix, hash, mode, endpoints)
      values (${id}, ${acct.id}, ${keyPrefix(key)}, ${hashApiKey(key)}, ${mode}, ${endpoints})`;
    const [created] = await tx<KeyRow[]>`${selectKeys(tx)} where k.id = ${id}`;
    return { row: created, previousPlan: acct.previous_plan };
  });
  return { key, record: toRecord(row), previousPlan };
}

function selectKeys(sql: Queryable) {
  return sql`
    select k.id, k.account_id, a.name as account, a.plan, k.prefix, k.mode, k.endpoints, k.created_at, k.revoked_at, k.hash
    from api_keys k join accounts a on a.id = k.account_id`;
}

export async function listKeys(sql: Sql): Promise<KeyRecord[]> {
  const rows = await sql<KeyRow[]>`${selectKeys(sql)} order by a.name, k.created_at`;
  return rows.map(toRecord);
}

/** Finds a key by id, by the whole key, or by a prefix that names exactly one key; marks it revoked. */
export async function revokeKey(sql: Sql, ref: string): Promise<KeyRecord> {
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(ref);
  const rows = uuid
    ? await sql<KeyRow[]>`${selectKeys(sql)} where k.id = ${ref}`
    : ref.length > 12
      ? await sql<KeyRow[]>`${selectKeys(sql)} where k.hash = ${hashApiKey(ref)}`
      : await sql<KeyRow[]>`${selectKeys(sql)} where k.prefix = ${ref}`;
  if (rows.length === 0)
    throw new KeyStoreError("KEY_NOT_FOUND", `Cannot revoke key: no key matches "${ref.slice(0, 12)}"`);
  if (rows.length > 1) {
    throw new KeyStoreError(
      "KEY_AMBIGUOUS",
      `Cannot revoke key: prefix "${ref}" names ${rows.length} keys; give the key id (npm run keys -- list) or the whole key`,
    );
  }
  const [row] = await sql<KeyRow[]>`
    update api_keys set revoked_at = coalesce(revoked_at, now()) where id = ${rows[0].id}
    returning id, account_id, ${rows[0].account} as account, ${rows[0].plan} as plan, prefix, mode, endpoints, created_at, revoked_at, hash`;
  return toRecord(row);
}

/** The key record for a presented key, or undefined when no stored hash matches it. */
export async function findKey(sql: Sql, key: string): Promise<KeyRecord | undefined> {
  const hash = hashApiKey(key);
  const [row] = await sql<KeyRow[]>`${selectKeys(sql)} where k.hash = ${hash}`;
  if (!row) return undefined;
  const stored = Buffer.from(row.hash);
  if (stored.length !== hash.length || !timingSafeEqual(stored, hash)) return undefined;
  return toRecord(row);
}
