// A real server on port 0 over a real database, for tests that speak HTTP to it as a client would.
import type { TestContext } from "node:test";
import { loadConfig, type Config } from "../../src/config.ts";
import { silentLogger, type Logger } from "../../src/log.ts";
import { buildCore, type CoreServices } from "../../src/deps.ts";
import { createApp } from "../../src/http/app.ts";
import { serve } from "../../src/http/serve.ts";
import { createKey, type Endpoint } from "../../src/auth/key_store.ts";
import type { AddressVerifier, JobQueue, Services } from "../../src/services.ts";
import type { EmailVerifier } from "../../src/email/verifier.ts";
import { testDatabase, type DatabaseKind } from "./database.ts";
import { createJobQueue } from "../../src/jobs/job_queue.ts";
import type { Metrics } from "../../src/metrics/metrics.ts";

export interface TestServer {
  url: string;
  services: Services;
  core: CoreServices;
  key(options?: { account?: string; plan?: string; mode?: "live" | "test"; endpoints?: Endpoint[] }): Promise<string>;
  post(path: string, key: string | undefined, body: unknown, headers?: Record<string, string>): Promise<Response>;
  get(path: string, key?: string): Promise<Response>;
  /** Runs `stop` at the end of the test, before the server and its database close (last registered, first run). */
  onClose(stop: () => Promise<unknown> | unknown): void;
}

export interface StartOptions {
  database?: DatabaseKind;
  env?: Record<string, string>;
  email?: Pick<EmailVerifier, "verify">;
  address?: AddressVerifier;
  jobs?: JobQueue;
  log?: Logger;
  /** The app's instruments (to share them with engines the test builds); unset: the app makes its own. */
  metrics?: Metrics;
  /** Runs after core services exist, before the server starts: to build engines needing the database. */
  engines?: (core: CoreServices, config: Config) => Promise<Partial<Pick<Services, "email" | "address" | "jobs">>>;
}

const missing = (what: string) =>
  new Proxy(
    {},
    {
      get: (_t, prop) =>
        prop === "ready" ? true : () => Promise.reject(new Error(`${what} is not part of this test`)),
    },
  );

export async function startTestServer(t: TestContext, options: StartOptions = {}): Promise<TestServer> {
  const db = testDatabase(options.database ?? "embedded");
  const config = loadConfig({
    PORT: "0",
    HOST: "127.0.0.1",
    STATE_DIR: db.stateDir,
    ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}),
    ...options.env,
  });
  const core = await buildCore(config, { schema: db.schema });
  const engines = options.engines ? await options.engines(core, config) : {};
  const services: Services = {
    ...core,
    config,
    log: options.log ?? silentLogger,
    email: engines.email ?? options.email ?? (missing("email engine") as Pick<EmailVerifier, "verify">),
    address: engines.address ?? options.address ?? (missing("address engine") as AddressVerifier),
    jobs: engines.jobs ?? options.jobs ?? createJobQueue(core.db.sql),
    metrics: options.metrics,
  };
  const server = await serve(createApp(services), { port: 0, host: "127.0.0.1", log: silentLogger });
  // PUBLIC_URL is only known once the port is: problem types and poll URLs use it.
  services.config.publicUrl = server.url;
  const stops: Array<() => Promise<unknown> | unknown> = [];
  t.after(async () => {
    for (const stop of stops.reverse()) await stop();
    await server.close(1000);
    // An engine the test built here is closed here too: no probe or pooled SMTP connection outlives the test.
    await (engines.email as { close?: () => Promise<void> } | undefined)?.close?.();
    await core.db.close();
    await db.dispose();
  });
  let n = 0;
  return {
    url: server.url,
    services,
    core,
    onClose: (stop) => stops.push(stop),
    async key(opts = {}) {
      const { key } = await createKey(core.db.sql, {
        account: opts.account ?? `acct-${++n}`,
        plan: opts.plan ?? "free",
        mode: opts.mode ?? "live",
        endpoints: opts.endpoints,
        knownPlans: Object.keys(core.plans),
      });
      return key;
    },
    post(path, key, body, headers = {}) {
      return fetch(server.url + path, {
        method: "POST",
        headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
    },
    get(path, key) {
      return fetch(server.url + path, { headers: key ? { authorization: `Bearer ${key}` } : {} });
    },
  };
}
