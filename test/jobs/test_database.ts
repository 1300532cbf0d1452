// Open databases for the job tests, on the places test/helpers/database.ts sets aside: a fresh schema of the local
// PostgreSQL, or an embedded PGlite in a fresh STATE_DIR.
import { randomUUID } from "node:crypto";
import { openDatabase, type Sql } from "../../src/store/db.ts";
import { testDatabase, type DatabaseKind } from "../helpers/database.ts";

export { TEST_DATABASE_URL } from "../helpers/database.ts";

export interface OpenTestDatabase {
  sql: Sql;
  /** PostgreSQL only: the schema every table of this test lives in. */
  schema: string | undefined;
  /** Another connection pool on the same database, as a second process would have (the same one when embedded). */
  openPeer(): Promise<{ sql: Sql; close(): Promise<void> }>;
  close(): Promise<void>;
}

export async function openTestDatabase(kind: DatabaseKind): Promise<OpenTestDatabase> {
  const place = testDatabase(kind);
  const open = () => openDatabase({ databaseUrl: place.databaseUrl, stateDir: place.stateDir }, { schema: place.schema });
  const db = await open();
  return {
    sql: db.sql,
    schema: place.schema,
    openPeer: kind === "postgres" ? open : async () => ({ sql: db.sql, close: async () => {} }),
    async close() {
      await db.close();
      await place.dispose();
    },
  };
}

/** Creates an account (jobs reference one) and returns its id. */
export async function createAccount(sql: Sql): Promise<string> {
  const id = randomUUID();
  await sql`insert into accounts (id, name, plan) values (${id}, ${"jobs-" + id}, 'unmetered')`;
  return id;
}
