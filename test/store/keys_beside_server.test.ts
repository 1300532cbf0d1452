// The keys CLI beside a running embedded server under full load (docs/decisions.md "Storage"): the CLI's connection and
// the server's share PGlite's one session through the database socket, and must never interleave their statements.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runKeysCli, startServerProcess, type CliResult } from "../helpers/process.ts";

test("30 keys CLI runs beside a server answering metered calls at full speed: no 500, no failed run", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "vrai-keys-load-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const plansFile = join(dir, "plans.json");
  const rate = { per_minute: 100_000_000, burst: 0 };
  writeFileSync(
    plansFile,
    JSON.stringify({
      plans: { big: { quota: { email: 1_000_000_000, address: 1_000_000_000 }, rate, batch_max: 5000 } },
    }),
  );
  const env = { STATE_DIR: join(dir, "state"), PLANS_FILE: plansFile };
  const server = await startServerProcess(t, env);
  const first = await runKeysCli(env, ["create", "--account", "load", "--plan", "big", "--json"]);
  assert.equal(first.code, 0, first.stderr);
  const key = JSON.parse(first.stdout).key as string;

  // Metered calls (quota charged in the database on every one) from 16 clients until the CLI runs are done.
  const statuses = new Map<number, number>();
  let loading = true;
  const clients = Array.from({ length: 16 }, async () => {
    while (loading) {
      const response = await fetch(`${server.url}/v1/email`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body: JSON.stringify({ email: "not-an-email" }),
      });
      await response.arrayBuffer();
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    }
  });

  const runs: CliResult[] = [];
  let created: string[] = [];
  try {
    // Ten rounds of create, list and revoke, the three at once: the server's connection and up to three CLI ones.
    for (let round = 0; round < 10; round++) {
      const revokeId = created.shift();
      const results = await Promise.all([
        runKeysCli(env, ["create", "--account", `cli-${round}`, "--json"]),
        runKeysCli(env, ["list", "--json"]),
        revokeId
          ? runKeysCli(env, ["revoke", revokeId])
          : runKeysCli(env, ["create", "--account", "cli-extra", "--json"]),
      ]);
      runs.push(...results);
      if (results[0].code === 0) created = [...created, JSON.parse(results[0].stdout).id as string];
    }
  } finally {
    loading = false;
    await Promise.all(clients);
  }
  const failed = runs.filter((r) => r.code !== 0);
  assert.deepEqual(
    failed.map((r) => r.stderr.trim()),
    [],
    "every CLI run succeeds",
  );
  assert.equal(runs.length, 30);
  assert.equal(statuses.get(500) ?? 0, 0, `no 500 among ${JSON.stringify([...statuses])}`);
  assert.ok((statuses.get(200) ?? 0) > 100, `the server kept answering: ${JSON.stringify([...statuses])}`);
  assert.deepEqual([...statuses.keys()], [200]);
  assert.doesNotMatch(server.output(), /internal error/);
});
