// `npm start` with no BAN data to be had (BAN_SOURCE an empty directory, nothing indexed): the server is ready all
// the same, /readyz lists the département as missing with the fix, one startup warning says the same, and an address
// there answers unknown (postcode_not_covered).
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { readyzOk, runKeysCli, startServerProcess } from "../helpers/process.ts";
import { copyCachedReference } from "../helpers/reference_cache.ts";
import { tempDir } from "../helpers/temp_dir.ts";

const OFFICIAL_DOWNLOAD = "https://adresse.data.gouv.fr/data/ban/adresses/latest/csv";

test("without BAN data the server is ready, /readyz lists the missing département and one warning names the fix", async (t) => {
  const temp = tempDir("vrai-ban-missing-");
  t.after(() => temp.remove());
  const banSource = join(temp.path, "ban-source"); // exists, holds no adresses-75.csv.gz
  const indexDir = join(temp.path, "index");
  for (const dir of [banSource, indexDir]) mkdirSync(dir);
  // The commune reference only (no street index), so that the start does not compile it again.
  copyCachedReference(indexDir);
  const env = { STATE_DIR: join(temp.path, "state") };
  const server = await startServerProcess(t, {
    ...env,
    BAN_DEPARTEMENTS: "75",
    BAN_SOURCE: banSource,
    BAN_INDEX_DIR: indexDir,
    WORKERS: "1",
  });

  // The server listens at once; it is ready once the import was tried (the file is not there) and the workers run.
  const ready = await readyzOk(server.url);
  const body = ready.body;
  assert.equal(body.status, "ready");
  assert.equal(body.checks.database, true);
  assert.equal(body.checks.address_index.status, "missing");
  assert.deepEqual(body.checks.address_index.departements, ["75"]);
  assert.match(body.checks.address_index.fix, /BAN_SOURCE=DIR/);

  const warnings = server
    .output()
    .split("\n")
    .filter((line) => line.includes('"level":"warn"') && line.includes("address index"));
  assert.equal(warnings.length, 1, server.output());
  const warning = JSON.parse(warnings[0]);
  assert.deepEqual(warning.departements, ["75"]);
  for (const words of ["BAN_SOURCE=DIR", "npm run ban -- import PATH", OFFICIAL_DOWNLOAD]) {
    assert.ok(warning.msg.includes(words), `the warning names ${words}: ${warning.msg}`);
  }

  const created = await runKeysCli(env, ["create", "--account", "offline", "--json"]);
  assert.equal(created.code, 0, created.stderr);
  const { key } = JSON.parse(created.stdout);
  const answer = await fetch(`${server.url}/v1/address`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify({ line: "150 rue de Rivoli 75001 Paris" }),
  });
  assert.equal(answer.status, 200);
  const verification = await answer.json();
  assert.deepEqual([verification.verdict, verification.reasons], ["unknown", ["postcode_not_covered"]]);
});
