// Databases for the job tests: a fresh schema of the local PostgreSQL, or an embedded PGlite in a temporary STATE_DIR.
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/store/db.ts";
import type { Sql } from "../../src/store/db.ts";

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export interface TestDatabase {
  sql: Sql;
  /** PostgreSQL only: the schema every table of this test lives in. */
  schema?: string;
  /** Another connection pool on the same schema, as a second process would have. */
  openPeer(): Promise<{ sql: Sql; close(): Promise<void> }>;
  close(): Promise<void>;
}

export function newSchemaName(): string {
  return "t_" + randomUUID().replaceAll("-", "").slice(0, 16);
}

export async function openTestPostgres(): Promise<TestDatabase> {
  const schema = newSchemaName();
  const db = await openDatabase({ databaseUrl: TEST_DATABASE_URL, stateDir: "" }, { schema });
  return {
    sql: db.sql,
    schema,
    openPeer: () => openDatabase({ databaseUrl: TEST_DATABASE_URL, stateDir: "" }, { schema }),
    async close() {
      await db.sql.unsafe(`drop schema ${schema} cascade`);
      await db.close();
    },
  };
}

export async function openTestEmbedded(): Promise<TestDatabase> {
  const stateDir = mkdtempSync(join(tmpdir(), "vrai-jobs-"));
  const db = await openDatabase({ databaseUrl: undefined, stateDir });
  return {
    sql: db.sql,
    openPeer: async () => ({ sql: db.sql, close: async () => {} }),
    async close() {
      await db.close();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

/** Creates an account (jobs reference one) and returns its id. */
export async function createAccount(sql: Sql): Promise<string> {
  const id = randomUUID();
  await sql`insert into accounts (id, name, plan) values (${id}, ${"jobs-" + id}, 'unmetered')`;
  return id;
}
