// Test databases: a fresh embedded PGlite directory, or a fresh schema in the local PostgreSQL (database `test`).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import postgres from "postgres";

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export type DatabaseKind = "embedded" | "postgres";

export interface TestDatabase {
  databaseUrl: string | undefined;
  stateDir: string;
  /** PostgreSQL schema; undefined for embedded. */
  schema: string | undefined;
  dispose(): Promise<void>;
}

export function testDatabase(kind: DatabaseKind): TestDatabase {
  const stateDir = mkdtempSync(join(tmpdir(), "vrai-"));
  if (kind === "embedded") {
    return { databaseUrl: undefined, stateDir, schema: undefined, dispose: async () => rmSync(stateDir, { recursive: true, force: true }) };
  }
  const schema = `t_${randomBytes(6).toString("hex")}`;
  return {
    databaseUrl: TEST_DATABASE_URL,
    stateDir,
    schema,
    async dispose() {
      const sql = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
      await sql.unsafe(`drop schema if exists ${schema} cascade`);
      await sql.end();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

/** A PostgreSQL URL whose connections run in `schema` (for child processes, which get it through DATABASE_URL). */
export function urlWithSchema(schema: string): string {
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set("search_path", schema);
  return url.toString();
}
