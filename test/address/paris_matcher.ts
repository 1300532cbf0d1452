// The matcher over the real Paris BAN file (../shared/data, never committed), for the tables of lines that showed a
// defect there; the suites skip, with this reason, where the file is absent.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { BanIndex } from "../../src/address/index/ban_index.ts";
import { importBan } from "../../src/address/index/import.ts";
import { AddressMatcher } from "../../src/address/match.ts";
import { readPackedFile } from "../../src/address/packed_file.ts";
import { compileReference } from "../../src/address/reference/compile.ts";
import { packReference } from "../../src/address/reference/pack_reference.ts";
import { Reference } from "../../src/address/reference/reference.ts";

export const PARIS_BAN = path.resolve(import.meta.dirname, "../../../shared/data/ban/adresses-75.csv.gz");

/** `skip` for a suite that needs the Paris file. */
export const PARIS_SKIP: false | string = existsSync(PARIS_BAN) ? false : "Paris BAN file absent";

/**
 * The Paris index file, imported once for all the test files of a run that ask for it: the suites of answer tables
 * are split by concern into several files, and each import of the Paris file costs 10-20 s. The cached index is named
 * after the Paris file (size, time) and after a digest of the code that builds and reads indexes (src/address), so an
 * index written by other code is never read; another run's import is left alone until it renames its file in place.
 */
async function cachedParisIndex(): Promise<string> {
  const source = statSync(PARIS_BAN);
  const code = createHash("sha256");
  for (const file of readdirSync(ADDRESS_CODE, { recursive: true }).map(String).sort()) {
    if (file.endsWith(".ts")) code.update(file).update(readFileSync(path.join(ADDRESS_CODE, file)));
  }
  const key = `${source.size}-${Math.trunc(source.mtimeMs)}-${code.digest("hex").slice(0, 16)}`;
  const cache = path.join(tmpdir(), "vrai-test-paris-index", key);
  mkdirSync(cache, { recursive: true });
  const ready = readdirSync(cache).find((f) => f.endsWith(".bin") && !f.includes(".tmp"));
  if (ready !== undefined) return path.join(cache, ready);
  const dir = mkdtempSync(path.join(tmpdir(), "vrai-paris-matcher-"));
  try {
    const [imported] = await importBan(PARIS_BAN, { banSource: path.dirname(PARIS_BAN), indexDir: dir });
    const target = path.join(cache, path.basename(imported!.path));
    renameSync(imported!.path, target); // same file system (tmpdir): a reader sees no file or the whole one
    // Indexes of other code or of another Paris file are not read again: they go.
    for (const other of readdirSync(path.dirname(cache))) {
      if (other !== key) rmSync(path.join(path.dirname(cache), other), { recursive: true, force: true });
    }
    return target;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const ADDRESS_CODE = path.resolve(import.meta.dirname, "../../src/address");

/** The matcher over the Paris index, imported once a run (cachedParisIndex); `remove` is kept for the callers. */
export async function parisMatcher(): Promise<{ matcher: AddressMatcher; remove: () => void }> {
  const matcher = new AddressMatcher({
    indexes: [new BanIndex(readPackedFile(await cachedParisIndex()))],
    reference: new Reference(packReference(compileReference())),
  });
  return { matcher, remove: () => {} };
}
