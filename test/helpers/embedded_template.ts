// The migrated embedded database that each test's fresh one starts as a copy of. Making one from nothing (PGlite's
// initdb in WebAssembly, then the migrations) took 5.3-7.4 s and 7-11 CPU-seconds on the two-core CI machine, and the
// suite makes one for nearly every test server; copying a made one takes about 0.25 s, and opening the copy is a
// server's restart on its STATE_DIR (about 1 s). The first start on a new STATE_DIR keeps its own tests, which make
// their directories themselves (test/store/first_start_memory.test.ts, test/http/compiled_start.test.ts, ...).
//
// The template is made once per machine for each PGlite release and set of migrations (its folder under the system's
// temporary directory is named after a digest of them and of the code that makes it), by a child process (make_embedded_template.ts) so that the
// synchronous testDatabase() can wait for it; test files that start together and both find none both make one, and
// the first rename wins.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "./process.ts";

/** What the made database depends on: PGlite's release, how initdb is run, the migrations and how they are applied. */
function templateDigest(): string {
  const hash = createHash("sha256");
  hash.update(readFileSync(join(ROOT, "node_modules/@electric-sql/pglite/package.json")));
  hash.update(readFileSync(join(ROOT, "src/store/pglite_initdb_worker.ts")));
  hash.update(readFileSync(join(ROOT, "src/store/migrate.ts")));
  const migrations = join(ROOT, "src/store/migrations");
  for (const file of readdirSync(migrations).sort()) {
    hash.update(`${file}\0`).update(readFileSync(join(migrations, file)));
  }
  return hash.digest("hex").slice(0, 16);
}

let made: string | undefined;

/** The template's folder (a STATE_DIR holding pgdata), made first if this machine has none for these sources. */
export function embeddedTemplate(): string {
  if (made !== undefined) return made;
  const final = join(tmpdir(), `vrai-pgdata-template-${templateDigest()}`);
  if (!existsSync(join(final, "pgdata", "PG_VERSION"))) {
    const building = mkdtempSync(join(tmpdir(), "vrai-pgdata-building-"));
    const child = spawnSync(process.execPath, ["--import", "tsx", "test/helpers/make_embedded_template.ts", building], {
      cwd: ROOT,
      stdio: ["ignore", "inherit", "inherit"],
      timeout: 180_000,
    });
    if (child.status !== 0) {
      rmSync(building, { recursive: true, force: true });
      throw new Error(`Cannot make the embedded database template: make_embedded_template.ts exited ${child.status}`);
    }
    try {
      renameSync(building, final);
    } catch {
      // Another test file made it meanwhile: theirs is as good.
      rmSync(building, { recursive: true, force: true });
    }
  }
  made = final;
  return final;
}

/** Puts a copy of the template's database into `stateDir`, as a server that ran there once would have left it. */
export function copyEmbeddedTemplate(stateDir: string): void {
  cpSync(join(embeddedTemplate(), "pgdata"), join(stateDir, "pgdata"), { recursive: true });
}
