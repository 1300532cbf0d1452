// Street indexes and the cached commune reference store match keys, and are built again only when MATCH_KEY_VERSION
// changes (normalize/match_key.ts). This test holds the digest of the keys of every commune name of France, read as a
// street and as a city, and of street names that exercise each processor: a change in the keys that leaves the version
// as it was fails here, before an upgraded server reads old keys and misses every street they spell otherwise.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { BanIndex } from "../../src/address/index/ban_index.ts";
import { IndexBuilder } from "../../src/address/index/builder.ts";
import { cityKey, MATCH_KEY_VERSION, streetKey } from "../../src/address/normalize/match_key.ts";
import { cachedReference } from "../../src/address/reference/compile.ts";
import { streetRows } from "./written_index.ts";

/** The digest of the keys for MATCH_KEY_VERSION. After a deliberate change of the keys: bump the version, then
 *  write here the digest the failure prints. (A new release of @etalab/decoupage-administratif may change it too.) */
const DIGEST = { version: 3, sha256: "d2189e4408dbf9a8506b79abcecfede6896a2dd3b34987788b17ffabc3fde403" };

const STREET_NAMES = [
  "Rue du Moulin des Prés",
  "Avenue du Prés. Kennedy",
  "Boulevard du Gal de Gaulle",
  "Bd St-Germain",
  "Rue N.-D. des Champs",
  "Rue du 8 Mai 1945",
  "Rue du 08 Mai 1945",
  "Place du 4 Septembre",
  "Pont Alexandre III",
  "Avenue George V",
  "rue Charles 5",
  "Rue de la Chaussée d'Antin",
  "Rond-Point des Champs-Élysées-Marcel Dassault",
  "Rue du Faubourg Saint-Antoine",
  "Rue du Fb Saint-Honoré",
  "Fb Saint-Denis",
  "Rue de la",
  "Impasse du Quarante-Neuf Faubourg Saint-Martin",
  "Place de l' Hotel de Ville - Esplanade de la Libération",
  "Paris 1er Arrondissement",
  "Marseille VIII",
  "Lyon 2 eme",
];

const require = createRequire(import.meta.url);

test(`the match keys are those of version ${MATCH_KEY_VERSION}`, () => {
  const communes = require("@etalab/decoupage-administratif/data/communes.json") as { nom: string }[];
  const names = [...communes.map((c) => c.nom), ...STREET_NAMES];
  const hash = createHash("sha256");
  for (const name of names) hash.update(`${JSON.stringify(streetKey(name))}\t${cityKey(name)}\n`);
  const sha256 = hash.digest("hex");
  assert.deepEqual(
    { version: MATCH_KEY_VERSION, sha256 },
    DIGEST,
    "The match keys changed: bump MATCH_KEY_VERSION (normalize/match_key.ts) and record the new digest in DIGEST",
  );
});

test("an index written with the match keys of another version is refused, so that the server imports it again", () => {
  const builder = new IndexBuilder("90");
  for (const row of streetRows("Rue du Moulin des Prés", [1], {
    codeInsee: "90010",
    codePostal: "90000",
    acheminement: "BELFORT",
  }))
    builder.add(row);
  const bytes = Buffer.from(builder.finish());
  const field = `"matchKeys":${MATCH_KEY_VERSION}`;
  const at = bytes.indexOf(field);
  assert.ok(at > 0, "the index header records its match keys");
  const other = `"matchKeys":${MATCH_KEY_VERSION - 1}`;
  assert.equal(other.length, field.length);
  bytes.write(other, at);
  assert.throws(
    () => new BanIndex(new Uint8Array(bytes).buffer),
    new TypeError(
      `Cannot read address index: match keys of version ${MATCH_KEY_VERSION - 1}, expected ${MATCH_KEY_VERSION}`,
    ),
  );
});

test("the cached commune reference is named after the match keys it holds, so that other keys are never read", (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), "vrai-keys-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  cachedReference(dir);
  assert.match(readdirSync(dir).join(), new RegExp(`-keys${MATCH_KEY_VERSION}\\.bin$`));
});
