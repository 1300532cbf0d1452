// What the cluster tests share: two loopback mail servers (on addresses each test file names, so that files run at
// once never bind the same one), a DNS zone, a PostgreSQL schema of their own with an account and a key, and the real
// program started as several processes on it.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { createKey } from "../../src/auth/key_store.ts";
import { openDatabase } from "../../src/store/db.ts";
import { startDnsmasq, startFastSmtpPeer, type FastSmtpPeer } from "../email/peers.ts";
import { testDatabase, urlWithSchema } from "../helpers/database.ts";
import { startServerProcess, type ServerProcess } from "../helpers/process.ts";

export const ZONE = "vrai-cluster.net";
/** A domain whose mail server knows the `user*` mailboxes and no other; replies take a while (a busy server). */
export const BUSY = `busy.${ZONE}`;
/** A domain whose mail server accepts any recipient. */
export const CATCH_ALL = `any.${ZONE}`;
/** The connection limit the cluster is configured with, and must keep toward each mail server. */
export const MAX_PER_MX = 3;

export interface ClusterWorld {
  busy: FastSmtpPeer;
  catchAll: FastSmtpPeer;
  key: string;
  accountId: string;
  schema: string;
  /** Environment every process of the cluster gets. */
  env: Record<string, string>;
  /** Starts the program (src/main.ts) with ROLE and more environment; killed when the test ends. */
  start(role: "all" | "api" | "worker", env?: Record<string, string>): Promise<ServerProcess>;
  /** Quota charged to the account for email calls (bulk addresses included) this month. */
  charged(): Promise<number>;
}

export interface ClusterWorldOptions {
  /** Loopback addresses of the busy mail server and the catch-all one (127.0.41.x, one pair per test file). */
  peers: { busy: string; catchAll: string };
  /** Each reply of the busy server waits this long (ms). */
  busyDelayMs?: number;
  /** SMTP_LEASE_TTL_MS of the processes. */
  leaseTtlMs?: number;
}

export async function startClusterWorld(t: TestContext, options: ClusterWorldOptions): Promise<ClusterWorld> {
  const { peers, busyDelayMs = 15, leaseTtlMs = 3000 } = options;
  const dns = await startDnsmasq({
    zones: [ZONE],
    mx: [
      { domain: BUSY, exchange: `mx.${BUSY}`, priority: 10 },
      { domain: CATCH_ALL, exchange: `mx.${CATCH_ALL}`, priority: 10 },
    ],
    hosts: [
      { name: `mx.${BUSY}`, address: peers.busy },
      { name: `mx.${CATCH_ALL}`, address: peers.catchAll },
    ],
  });
  t.after(() => dns.stop());
  // Without PIPELINING every RCPT TO is a round trip: the job keeps every connection it may open busy.
  const busy = await startFastSmtpPeer({
    host: peers.busy,
    delayMs: busyDelayMs,
    pipelining: false,
    mailboxes: (local) => local.startsWith("user"),
  });
  t.after(() => busy.stop());
  const catchAll = await startFastSmtpPeer({ host: peers.catchAll, delayMs: 5, pipelining: false, mailboxes: ["*"] });
  t.after(() => catchAll.stop());

  const place = testDatabase("postgres");
  t.after(() => place.dispose());
  const setup = await openDatabase({ databaseUrl: place.databaseUrl, stateDir: "" }, { schema: place.schema });
  // A plan with a quota, so that what each call and each bulk address is charged can be counted.
  const plansFile = join(place.stateDir, "plans.json");
  const metered = {
    quota: { email: 1_000_000, address: 10 },
    rate: { per_minute: 100_000, burst: 0 },
    batch_max: 5000,
  };
  writeFileSync(plansFile, JSON.stringify({ plans: { metered } }));
  const created = await createKey(setup.sql, { account: "cluster", plan: "metered", knownPlans: ["metered"] });
  await setup.close();
  const databaseUrl = urlWithSchema(place.schema!);
  const env = {
    DATABASE_URL: databaseUrl,
    PLANS_FILE: plansFile,
    DNS_SERVERS: dns.server,
    PROBE_ALLOW_CIDRS: "127.0.0.0/8",
    SMTP_MAX_PER_MX: String(MAX_PER_MX),
    SMTP_LEASE_TTL_MS: String(leaseTtlMs),
    // Small claims: every worker of the cluster gets a share of a few hundred addresses.
    JOB_BATCH_SIZE: "40",
    // A dead worker's items come back to the queue this soon.
    JOB_LEASE_MS: "4000",
    LOG_LEVEL: "info",
  };
  return {
    busy,
    catchAll,
    key: created.key,
    accountId: created.record.accountId,
    schema: place.schema!,
    env,
    start: (role, more = {}) => startServerProcess(t, { ...env, ROLE: role, ...more }),
    async charged() {
      const db = await openDatabase({ databaseUrl: place.databaseUrl, stateDir: "" }, { schema: place.schema });
      try {
        const [row] = await db.sql`
          select coalesce(sum(used), 0)::int as used from quota_usage where endpoint = 'email'`;
        return Number(row?.used ?? 0);
      } finally {
        await db.close();
      }
    },
  };
}

/** Submits a bulk email job through `url` and returns its id; anything but 202 fails the test with the answer. */
export async function submitBulk(url: string, key: string, emails: string[]): Promise<string> {
  const submitted = await fetch(`${url}/v1/email/bulk`, {
    method: "POST",
    headers: headersFor(key),
    body: JSON.stringify({ emails }),
  });
  assert.equal(submitted.status, 202, await submitted.clone().text());
  return ((await submitted.json()) as { job_id: string }).job_id;
}

export const headersFor = (key: string) => ({ "content-type": "application/json", authorization: `Bearer ${key}` });

/** The catch-all probes a mail server received: recipients with the random local part the engine makes up. */
export const catchAllProbes = (peer: FastSmtpPeer) => peer.recipients.filter((r) => r.startsWith("vrai-"));
