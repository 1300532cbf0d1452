// The matcher over the real Paris BAN file (../shared/data, never committed), for the tables of lines that showed a
// defect there; the suites skip, with this reason, where the file is absent.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
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

/** Imports the Paris file into a temporary directory; `remove` deletes it. */
export async function parisMatcher(): Promise<{ matcher: AddressMatcher; remove: () => void }> {
  const dir = mkdtempSync(path.join(tmpdir(), "vrai-paris-matcher-"));
  const [imported] = await importBan(PARIS_BAN, { banSource: path.dirname(PARIS_BAN), indexDir: dir });
  const matcher = new AddressMatcher({
    indexes: [new BanIndex(readPackedFile(imported!.path))],
    reference: new Reference(packReference(compileReference())),
  });
  return { matcher, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
