// Nationwide communes, postcodes and delivery names (docs/contract.md §8) compiled once per process from the npm data
// packages into three compact text tables. The main thread compiles them, then packs them into typed-array lookups
// in a SharedArrayBuffer (pack_reference.ts) that every worker thread reads in place (reference.ts). codes-postaux'
// 65 MB "full" file is never read: the 3.8 MB table has every (postcode, commune, delivery name) triple needed.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createRequire } from "node:module";
import { cityKey } from "../normalize/match_key.ts";
import { readPackedFile } from "../packed_file.ts";
import { packReference } from "./pack_reference.ts";
import { Reference } from "./reference.ts";
import { REFERENCE_VERSION, type ReferenceTables } from "./reference_format.ts";

interface CodePostalEntry {
  codePostal: string;
  codeCommune: string;
  libelleAcheminement: string;
}
interface CommuneEntry {
  code: string;
  nom: string;
  type: string;
  chefLieu?: string;
  commune?: string;
}

const require = createRequire(import.meta.url);

/** Reads the npm data packages and returns the compact tables (about 200 ms, once per process). */
export function compileReference(): ReferenceTables {
  const cp = JSON.parse(readFileSync(require.resolve("codes-postaux/codes-postaux.json"), "utf8")) as CodePostalEntry[];
  const communes = JSON.parse(
    readFileSync(require.resolve("@etalab/decoupage-administratif/data/communes.json"), "utf8"),
  ) as CommuneEntry[];
  const keys = new Map<string, string>();
  const key = (name: string) => {
    let k = keys.get(name);
    if (k === undefined) keys.set(name, (k = cityKey(name)));
    return k;
  };
  const pairs = cp.map(
    (e) => `${e.codePostal}|${e.codeCommune}|${e.libelleAcheminement}|${key(e.libelleAcheminement)}`,
  );
  const current: string[] = [];
  const formers: string[] = [];
  for (const c of communes) {
    if (c.type === "commune-actuelle") current.push(`${c.code}|${c.nom}||${key(c.nom)}`);
    else if (c.type === "arrondissement-municipal") current.push(`${c.code}|${c.nom}|${c.commune ?? ""}|${key(c.nom)}`);
    else if (c.chefLieu) formers.push(`${c.code}|${c.nom}|${c.chefLieu}|${key(c.nom)}`);
  }
  return { pairs: pairs.join("\n"), communes: current.join("\n"), formers: formers.join("\n") };
}

/** Versions of the data packages: a cached compilation is valid for exactly these. */
function dataVersions(): string {
  const version = (pkg: string) =>
    (JSON.parse(readFileSync(require.resolve(`${pkg}/package.json`), "utf8")) as { version: string }).version;
  return `v1-${version("codes-postaux")}-${version("@etalab/decoupage-administratif")}`;
}

/**
 * compileReference() then packReference(), cached as a file in `dir` (the index directory): a start reads 4 MB
 * straight into shared memory instead of parsing 12 MB of package data and building the lookups (about 800 ms).
 * A cache that cannot be read or written is no error: the reference is simply compiled again.
 */
export function cachedReference(dir: string): SharedArrayBuffer {
  const path = join(dir, `reference-${dataVersions()}-packed${REFERENCE_VERSION}.bin`);
  if (existsSync(path)) {
    try {
      const packed = readPackedFile(path);
      new Reference(packed); // Checks the magic and the version.
      return packed;
    } catch {
      // Unreadable cache: compile again below.
    }
  }
  const packed = packReference(compileReference());
  try {
    mkdirSync(dir, { recursive: true });
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, new Uint8Array(packed));
    renameSync(tmp, path);
  } catch {
    // Read-only index directory: fine.
  }
  return packed;
}
