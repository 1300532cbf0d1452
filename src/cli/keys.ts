// npm run keys -- create --account NAME [--plan PLAN] [--mode live|test] [--endpoints email,address,signup] [--json]
// npm run keys -- list [--json]
// npm run keys -- revoke ID|KEY|PREFIX [--json]
// Works whether or not the server runs: on the embedded database it goes through the running server's socket, or
// opens the directory itself when no server holds it. Every command says on stderr which database it used, so that
// --json output on stdout stays clean.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { type Config, loadConfig } from "../config.ts";
import { parseCommandLine, USAGE_EXIT, CommandLineError } from "./command_line.ts";
import { loadPlans } from "../accounts/plans.ts";
import { openDatabase, runningServerOf, waitForOpeningServer } from "../store/db.ts";
import {
  createKey,
  listKeys,
  revokeKey,
  ENDPOINTS,
  KeyStoreError,
  type Endpoint,
  type KeyRecord,
} from "../auth/key_store.ts";

type Command = "create" | "list" | "revoke";
const COMMANDS: readonly Command[] = ["create", "list", "revoke"];

const DATABASE_HELP = `The database is the server's: STATE_DIR (default ./state) for the embedded one, or DATABASE_URL when it is
set. On the embedded database the command goes through the running server's socket (waiting for a server that is still
opening its database), or opens the directory itself when no server holds it. Each command says on stderr which
database it used.`;

/**
 * Longest wait for a server that holds STATE_DIR but does not serve its database yet: the server's own bound on opening
 * it (OpenEmbeddedOptions.openTimeoutMs), after which that server gives up and exits.
 */
const SERVER_OPENING_WAIT_MS = 120_000;

const COMMAND_HELP: Record<Command, string> = {
  create: `Usage: npm run keys -- create --account NAME [--plan PLAN] [--mode live|test] [--endpoints LIST] [--json]

Creates a key for the account NAME and prints it once on stdout; only its hash is kept.

  --account NAME     the account the key belongs to, created on first use of its name
  --plan PLAN        the plan of a new account (default free); on an existing account it changes the account's
                     plan, for every key of the account. Without --plan an existing account keeps its plan.
                     Plans: free, unmetered, or those of PLANS_FILE
  --mode live|test   live (default), or test: a test key answers only the reserved inputs and is never counted
  --endpoints LIST   what the key may call, among email,address,signup (default all three)
  --json             print one JSON object: key, prefix, account, plan, mode, endpoints, id, created_at
  -h, --help         print this help

${DATABASE_HELP}`,
  list: `Usage: npm run keys -- list [--json]

Lists every key (never the key itself: its id, its first 12 characters, its account and plan, mode, endpoints and
whether it is revoked).

  --json       print one JSON array
  -h, --help   print this help

${DATABASE_HELP}`,
  revoke: `Usage: npm run keys -- revoke ID|KEY|PREFIX [--json]

Revokes one key, named by its id, by the whole key, or by a prefix that names exactly one key. Every process refuses
it within 5 seconds.

  --json       print the revoked key's record as one JSON object
  -h, --help   print this help

${DATABASE_HELP}`,
};

const USAGE = `Usage:
  npm run keys -- create --account NAME [--plan PLAN] [--mode live|test] [--endpoints email,address,signup] [--json]
  npm run keys -- list [--json]
  npm run keys -- revoke ID|KEY|PREFIX [--json]

npm run keys -- COMMAND --help says more about one command.

${DATABASE_HELP}`;

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

/** DATABASE_URL without its password (in the authority or as a `password` parameter). */
function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "";
    parsed.searchParams.delete("password");
    return parsed.toString();
  } catch {
    return "(DATABASE_URL, not a URL)";
  }
}

interface DatabaseChoice {
  /** One line that names the database and how the command reaches it. */
  line: string;
  /** Embedded only: no database existed in STATE_DIR before this command. */
  isNew: boolean;
}

/** Which database `openDatabase(config, { joinRunning: true })` is about to use, said before it opens it. */
function chooseDatabase(config: Pick<Config, "databaseUrl" | "stateDir">): DatabaseChoice {
  if (config.databaseUrl) {
    return {
      line: `Database: PostgreSQL at ${withoutPassword(config.databaseUrl)} (DATABASE_URL), directly`,
      isNew: false,
    };
  }
  const dir = resolve(config.stateDir);
  const shown = dir === config.stateDir ? dir : `${config.stateDir} (${dir})`;
  const server = runningServerOf(dir);
  if (server !== undefined) {
    return {
      line: `Database: embedded in STATE_DIR ${shown}, through the socket of the running server (process ${server.pid})`,
      isNew: false,
    };
  }
  return {
    line: `Database: embedded in STATE_DIR ${shown}, opened directly (no running server holds it)`,
    isNew: !existsSync(join(dir, "pgdata", "PG_VERSION")),
  };
}

function parse(argv: string[]) {
  const named = COMMANDS.find((c) => c === argv.find((arg) => !arg.startsWith("-")));
  return parseCommandLine(
    {
      args: argv,
      allowPositionals: true,
      options: {
        account: { type: "string" },
        plan: { type: "string" },
        mode: { type: "string" },
        endpoints: { type: "string" },
        json: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    },
    named
      ? { command: `keys ${named}`, help: `npm run keys -- ${named} --help` }
      : { command: "keys", help: "npm run keys -- --help" },
  );
}

async function run(argv: string[]): Promise<void> {
  const { positionals, values } = parse(argv);
  const [first, second] = positionals;
  // `--help`, `-h`, `help` and `help COMMAND` print on stdout and touch no database.
  if (values.help || first === "help") {
    const topic = (first === "help" ? second : first) as Command | undefined;
    console.log(topic && COMMANDS.includes(topic) ? COMMAND_HELP[topic] : USAGE);
    return;
  }
  if (!first) throw new CommandLineError(USAGE);
  if (!COMMANDS.includes(first as Command)) throw new CommandLineError(`Unknown command "${first}"\n\n${USAGE}`);
  const command = first as Command;
  const ref = second;
  const config = loadConfig();
  const plans = loadPlans(config.plansFile);
  let endpoints: Endpoint[] | undefined;
  if (command === "create") {
    if (!values.account) throw new CommandLineError(`create needs --account NAME\n\n${COMMAND_HELP.create}`);
    if (values.mode !== undefined && values.mode !== "live" && values.mode !== "test")
      throw new CommandLineError("--mode is live or test");
    if (values.endpoints !== undefined) {
      endpoints = values.endpoints
        .split(",")
        .map((e) => e.trim())
        .filter(Boolean) as Endpoint[];
      const unknown = endpoints.filter((e) => !ENDPOINTS.includes(e));
      if (unknown.length > 0 || endpoints.length === 0)
        throw new CommandLineError(`--endpoints takes a list of ${ENDPOINTS.join(", ")}`);
    }
  }
  if (command === "revoke" && !ref)
    throw new CommandLineError(`revoke needs an id, a key or a prefix\n\n${COMMAND_HELP.revoke}`);

  // `npm start` takes the directory's lock before its database serves (a first start makes the database: seconds).
  if (!config.databaseUrl) {
    await waitForOpeningServer(resolve(config.stateDir), {
      timeoutMs: SERVER_OPENING_WAIT_MS,
      onWait: (pid) =>
        console.error(`Waiting for the server (process ${pid}) to open the embedded database in ${config.stateDir}`),
    });
  }
  const choice = chooseDatabase(config);
  console.error(choice.line);
  const db = await openDatabase(config, { joinRunning: true, max: 1 });
  try {
    if (choice.isNew) {
      console.error(
        `Warning: created a new embedded database in ${config.stateDir}: is this the server's STATE_DIR? ` +
          "A server started on another STATE_DIR refuses the keys made here",
      );
    }
    if (command === "create") {
      const { key, record, previousPlan } = await createKey(db.sql, {
        account: values.account!,
        plan: values.plan,
        mode: values.mode as "live" | "test" | undefined,
        endpoints,
        knownPlans: Object.keys(plans),
      });
      if (values.json) console.log(JSON.stringify({ key, ...publicFields(record) }));
      else console.log(key);
      if (previousPlan === null) console.error(`Account ${record.account} created on plan ${record.plan}`);
      else if (previousPlan !== record.plan)
        console.error(`plan of ${record.account} changed: ${previousPlan} → ${record.plan}`);
      if (!values.json)
        console.error(`Created ${describe(record)}\nThe key is shown once: store it now; only its hash is kept.`);
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
    error instanceof CommandLineError ||
    error instanceof KeyStoreError ||
    (error as { code?: string }).code === "STATE_DIR_LOCKED";
  console.error(known ? error.message : `Cannot run keys command: ${(error as Error).message}`);
  process.exit(error instanceof CommandLineError ? USAGE_EXIT : 1);
});
