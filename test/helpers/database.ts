// Databases for tests and benches: a fresh embedded PGlite directory (a copy of a migrated one: embedded_template.ts),
// or a fresh schema in a PostgreSQL (by default the local one, database `test`). `testDatabase` sets the place aside
// (for child processes, which open it themselves); `openTestDatabase` also opens it in this process.
import { randomBytes, randomUUID } from "node:crypto";
import postgres from "postgres";
import { openDatabase, type Sql } from "../../src/store/db.ts";
import { copyEmbeddedTemplate } from "./embedded_template.ts";
import { tempDir } from "./temp_dir.ts";

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export type DatabaseKind = "embedded" | "postgres";

export interface TestDatabaseOptions {
  /** PostgreSQL only: the server to make the schema in; TEST_DATABASE_URL by default. */
  databaseUrl?: string;
}

export interface TestDatabase {
  databaseUrl: string | undefined;
  stateDir: string;
  /** PostgreSQL schema; undefined for embedded. */
  schema: string | undefined;
  dispose(): Promise<void>;
}

export function testDatabase(kind: DatabaseKind, options: TestDatabaseOptions = {}): TestDatabase {
  const { databaseUrl = TEST_DATABASE_URL } = options;
  const stateDir = tempDir("vrai-");
  if (kind === "embedded") {
    copyEmbeddedTemplate(stateDir.path);
    return {
      databaseUrl: undefined,
      stateDir: stateDir.path,
      schema: undefined,
      dispose: async () => stateDir.remove(),
    };
  }
  const schema = `t_${randomBytes(6).toString("hex")}`;
  return {
    databaseUrl,
    stateDir: stateDir.path,
    schema,
    async dispose() {
      const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
      await sql.unsafe(`drop schema if exists ${schema} cascade`);
      await sql.end();
      stateDir.remove();
    },
  };
}

/** A PostgreSQL URL whose connections run in `schema` (for child processes, which get it through DATABASE_URL). */
export function urlWithSchema(schema: string): string {
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set("search_path", schema);
  return url.toString();
}

export interface OpenTestDatabase {
  sql: Sql;
  kind: DatabaseKind;
  /** PostgreSQL only: the schema every table of this test lives in. */
  schema: string | undefined;
  /** Another connection pool on the same database, as a second process would have (the same one when embedded). */
  openPeer(): Promise<{ sql: Sql; close(): Promise<void> }>;
  /** Closes the database and deletes its directory or schema. */
  close(): Promise<void>;
}

/** Sets a database aside with `testDatabase` and opens it (migrated) in this process. */
export async function openTestDatabase(
  kind: DatabaseKind,
  options: TestDatabaseOptions = {},
): Promise<OpenTestDatabase> {
  const place = testDatabase(kind, options);
  const open = () =>
    openDatabase({ databaseUrl: place.databaseUrl, stateDir: place.stateDir }, { schema: place.schema });
  const db = await open();
  return {
    sql: db.sql,
    kind,
    schema: place.schema,
    openPeer: kind === "postgres" ? open : async () => ({ sql: db.sql, close: async () => {} }),
    async close() {
      await db.close();
      await place.dispose();
    },
  };
}

/** Creates an account on the unmetered plan (jobs reference one) and returns its id. */
export async function createAccount(sql: Sql, name = "jobs"): Promise<string> {
  const id = randomUUID();
  await sql`insert into accounts (id, name, plan) values (${id}, ${`${name}-${id}`}, 'unmetered')`;
  return id;
}

/**
 * Runs `work` and returns its value with the text of every statement `sql` sent to the database meanwhile, through
 * postgres.js's `debug` hook (read on each query from the pool's options). Left out: the array-type lookup
 * postgres.js sends on each new connection, which is the driver's, not the caller's. Nothing else may use `sql`
 * meanwhile.
 */
export async function statementsSentBy<T>(
  sql: Sql,
  work: () => Promise<T>,
): Promise<{ value: T; statements: string[] }> {
  const options = sql.options as { debug?: unknown };
  const before = options.debug;
  const statements: string[] = [];
  options.debug = (_connection: number, query: string) => {
    if (!/from pg_catalog\.pg_type/.test(query)) statements.push(query.replace(/\s+/g, " ").trim());
  };
  try {
    return { value: await work(), statements };
  } finally {
    options.debug = before;
  }
}
