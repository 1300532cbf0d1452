// Nationwide communes, postcodes and delivery names (docs/contract.md §8) compiled once per process from the npm data
// packages into three compact text tables. The main thread compiles them, then packs them into typed-array lookups
// in a SharedArrayBuffer (pack_reference.ts) that every worker thread reads in place (reference.ts). codes-postaux'
// 65 MB "full" file is never read: the 3.8 MB table has every (postcode, commune, delivery name) triple needed.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createRequire } from "node:module";
import { cityKey, MATCH_KEY_VERSION } from "../normalize/match_key.ts";
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
  codesPostaux?: string[];
  anciensCodes?: string[];
}

/**
 * Codes of communes that became another's outside the lists of former communes: Saint-Barthélemy and Saint-Martin left
 * Guadeloupe on 15 July 2007 (loi organique 2007-223) and took the codes of their new collectivities (INSEE, Code
 * officiel géographique), but older BAN rows and addresses still carry Guadeloupe's 97123 and 97127.
 */
const COLLECTIVITY_CODES: readonly (readonly [string, string])[] = [
  ["97123", "97701"],
  ["97127", "97801"],
];

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
  pairs.push(
    ...pairsMissingFromCodesPostaux(cp, communes).map((p) => `${p.postcode}|${p.code}|${p.name}|${key(p.name)}`),
  );
  const current: string[] = [];
  const formers: string[] = [];
  for (const c of communes) {
    if (c.type === "commune-actuelle") current.push(`${c.code}|${c.nom}||${key(c.nom)}`);
    else if (c.type === "arrondissement-municipal") current.push(`${c.code}|${c.nom}|${c.commune ?? ""}|${key(c.nom)}`);
    else if (c.chefLieu) formers.push(`${c.code}|${c.nom}|${c.chefLieu}|${key(c.nom)}`);
  }
  // The codes a current commune had before a merger it was the whole of (Garde-Colombe, 05053, was Eyguians, 05069,
  // among others): listed with no name, they map BAN rows (index/commune_codes.ts) and name no city.
  const known = new Set(communes.map((c) => c.code));
  for (const c of communes) {
    if (c.type !== "commune-actuelle") continue;
    for (const old of c.anciensCodes ?? []) {
      if (!known.has(old)) formers.push(`${old}||${c.code}|`);
      known.add(old);
    }
  }
  for (const [old, current] of COLLECTIVITY_CODES) if (!known.has(old)) formers.push(`${old}||${current}|`);
  return { pairs: pairs.join("\n"), communes: current.join("\n"), formers: formers.join("\n") };
}

/**
 * (postcode, commune) pairs that codes-postaux does not list, from decoupage-administratif's `codesPostaux` (drawn
 * from La Poste's base too, and published more often). Checked against La Poste's base of June 2025: codes-postaux
 * lacked 217 of its 35,513 pairs and decoupage-administratif has 199 of them. They are the overseas collectivities
 * (Nouméa 98800, Papeete 98714, …), communes newer than codes-postaux' last release (Celles, 15170, restored in 2025),
 * and postcodes La Poste gave communes since (La Javie, 04000). Without them those real addresses were called
 * nonexistent (`postcode_city_mismatch`). The delivery name is the commune's name. Paris, Lyon and Marseille are
 * listed by codes-postaux under their arrondissements, the communes BAN uses: their own code is left out.
 */
function pairsMissingFromCodesPostaux(
  cp: readonly CodePostalEntry[],
  communes: readonly CommuneEntry[],
): { postcode: string; code: string; name: string }[] {
  const listed = new Set(cp.map((e) => `${e.codePostal}|${e.codeCommune}`));
  const withArrondissements = new Set(
    communes.filter((c) => c.type === "arrondissement-municipal").map((c) => c.commune),
  );
  return communes
    .filter((c) => c.type === "commune-actuelle" && !withArrondissements.has(c.code))
    .flatMap((c) => (c.codesPostaux ?? []).map((postcode) => ({ postcode, code: c.code, name: c.nom })))
    .filter((pair) => !listed.has(`${pair.postcode}|${pair.code}`));
}

/** Versions of the data packages and of what is compiled from them: a cached compilation is valid for exactly these. */
function dataVersions(): string {
  const version = (pkg: string) =>
    (JSON.parse(readFileSync(require.resolve(`${pkg}/package.json`), "utf8")) as { version: string }).version;
  // v2: the pairs codes-postaux leaves out, from decoupage-administratif (pairsMissingFromCodesPostaux).
  return `v2-${version("codes-postaux")}-${version("@etalab/decoupage-administratif")}`;
}

/**
 * compileReference() then packReference(), cached as a file in `dir` (the index directory): a start reads 4 MB
 * straight into shared memory instead of parsing 12 MB of package data and building the lookups (about 800 ms).
 * A cache that cannot be read or written is no error: the reference is simply compiled again.
 */
export function cachedReference(dir: string): SharedArrayBuffer {
  // The city keys are stored: a cache of other keys is not read (normalize/match_key.ts, MATCH_KEY_VERSION).
  const path = join(dir, `reference-${dataVersions()}-packed${REFERENCE_VERSION}-keys${MATCH_KEY_VERSION}.bin`);
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
