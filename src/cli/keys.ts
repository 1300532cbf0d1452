// npm run keys -- create --account NAME [--plan free] [--mode live|test] [--endpoints email,address,signup] [--json]
// npm run keys -- list [--json]
// npm run keys -- revoke ID|KEY|PREFIX
// Works whether or not the server runs: on the embedded database it goes through the running server's socket, or
// opens the directory itself when no server holds it.
import { parseArgs } from "node:util";
import { loadConfig } from "../config.ts";
import { loadPlans } from "../accounts/plans.ts";
import { openDatabase } from "../store/db.ts";
import {
  createKey,
  listKeys,
  revokeKey,
  ENDPOINTS,
  KeyStoreError,
  type Endpoint,
  type KeyRecord,
} from "../auth/key_store.ts";

const USAGE = `Usage:
  npm run keys -- create --account NAME [--plan PLAN] [--mode live|test] [--endpoints email,address,signup] [--json]
  npm run keys -- list [--json]
  npm run keys -- revoke ID|KEY|PREFIX`;

class UsageError extends Error {}

function describe(record: KeyRecord): string {
  const state = record.revokedAt ? `revoked ${record.revokedAt}` : "active";
  return `${record.id}  ${record.prefix}…  ${record.account} (${record.plan})  ${record.mode}  ${record.endpoints.join(",")}  ${state}`;
}

function publicFields(record: KeyRecord) {
  return {
    id: record.id,
    prefix: record.prefix,
    account: record.account,
    plan: record.plan,
    mode: record.mode,
    endpoints: record.endpoints,
    created_at: record.createdAt,
    revoked_at: record.revokedAt,
  };
}

async function run(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      account: { type: "string" },
      plan: { type: "string" },
      mode: { type: "string" },
      endpoints: { type: "string" },
      json: { type: "boolean", default: false },
    },
  });
  const [command, ref] = positionals;
  if (!command || !["create", "list", "revoke"].includes(command)) throw new UsageError(USAGE);
  const config = loadConfig();
  const plans = loadPlans(config.plansFile);
  let endpoints: Endpoint[] | undefined;
  if (command === "create") {
    if (!values.account) throw new UsageError(`create needs --account NAME\n${USAGE}`);
    if (values.mode !== undefined && values.mode !== "live" && values.mode !== "test")
      throw new UsageError("--mode is live or test");
    if (values.endpoints !== undefined) {
      endpoints = values.endpoints
        .split(",")
        .map((e) => e.trim())
        .filter(Boolean) as Endpoint[];
      const unknown = endpoints.filter((e) => !ENDPOINTS.includes(e));
      if (unknown.length > 0 || endpoints.length === 0)
        throw new UsageError(`--endpoints takes a list of ${ENDPOINTS.join(", ")}`);
    }
  }
  if (command === "revoke" && !ref) throw new UsageError(`revoke needs an id, a key or a prefix\n${USAGE}`);

  const db = await openDatabase(config, { joinRunning: true, max: 1 });
  try {
    if (command === "create") {
      const { key, record } = await createKey(db.sql, {
        account: values.account!,
        plan: values.plan,
        mode: values.mode as "live" | "test" | undefined,
        endpoints,
        knownPlans: Object.keys(plans),
      });
      if (values.json) console.log(JSON.stringify({ key, ...publicFields(record) }));
      else {
        console.log(key);
        console.error(`Created ${describe(record)}\nThe key is shown once: store it now; only its hash is kept.`);
      }
    } else if (command === "list") {
      const keys = await listKeys(db.sql);
      if (values.json) console.log(JSON.stringify(keys.map(publicFields)));
      else console.log(keys.length === 0 ? "No keys." : keys.map(describe).join("\n"));
    } else {
      const record = await revokeKey(db.sql, ref!);
      if (values.json) console.log(JSON.stringify(publicFields(record)));
      else console.log(`Revoked ${describe(record)}\nEvery process refuses it within 5 seconds.`);
    }
  } finally {
    await db.close();
  }
}

run(process.argv.slice(2)).catch((error) => {
  const known =
    error instanceof UsageError ||
    error instanceof KeyStoreError ||
    (error as { code?: string }).code === "STATE_DIR_LOCKED";
  console.error(known ? error.message : `Cannot run keys command: ${(error as Error).message}`);
  process.exit(error instanceof UsageError ? 2 : 1);
});
