// Applies src/store/migrations/*.sql in name order, once each, on PGlite and PostgreSQL alike. An advisory lock keeps
// two processes starting together from applying the same file twice.
import { readdirSync, readFileSync } from "node:fs";
import type postgres from "postgres";
import { projectFile } from "../paths.ts";

// From the project root, not from this module: the .sql files are not compiled into dist/ (paths.ts).
const MIGRATIONS_DIR = projectFile("src/store/migrations/");
const MIGRATION_LOCK = 726_1001;

export async function migrate(sql: postgres.Sql): Promise<string[]> {
  const files = readdirSync(MIGRATIONS_DIR)
    .filter((f) => f.endsWith(".sql"))
    .sort();
  const applied: string[] = [];
  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await tx`create table if not exists schema_migrations (name text primary key, applied_at timestamptz not null default now())`;
    const done = new Set((await tx`select name from schema_migrations`).map((r) => r.name as string));
    for (const file of files) {
      if (done.has(file)) continue;
      await tx.unsafe(readFileSync(new URL(file, MIGRATIONS_DIR), "utf8")).simple();
      await tx`insert into schema_migrations (name) values (${file})`;
      applied.push(file);
    }
  });
  return applied;
}
