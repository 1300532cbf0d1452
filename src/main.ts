// `npm start`: one process serving the API (ROLE=all|api) and/or working bulk jobs (ROLE=all|worker), on the
// embedded database by default or on a shared PostgreSQL (DATABASE_URL).
import { loadConfig } from "./config.ts";
import { createLogger } from "./log.ts";
import { buildCore } from "./deps.ts";
import { createApp } from "./http/app.ts";
import { secureStateDir } from "./store/owner_only.ts";
import { serve, type RunningServer } from "./http/serve.ts";
import { createEmailEngine } from "./email/engine.ts";
import { startEgressCheck } from "./email/egress/self_check.ts";
import { coolOffFor } from "./email/smtp/mx_health.ts";
import { startAddressService, type AddressService } from "./address/service.ts";
import { createJobQueue } from "./jobs/job_queue.ts";
import { startJobRunner, type JobRunner } from "./jobs/runner.ts";
import { startAddressJobRunner, type AddressJobRunner } from "./jobs/address_runner.ts";
import { startSweeper, type Sweeper } from "./jobs/sweeper.ts";
import type { AddressVerifier, Services } from "./services.ts";
import { createMetrics } from "./metrics/metrics.ts";

// At info until the configuration is read (a bad one is reported at error), then at LOG_LEVEL.
let log = createLogger();

async function main(): Promise<void> {
  const config = loadConfig();
  log = createLogger({ level: config.logLevel });
  // The embedded database's directory is the owner's alone; what others could reach is named here, in this log.
  if (!config.databaseUrl) secureStateDir(config.stateDir, { log });
  // A PostgreSQL not reachable yet does not stop the start: /healthz answers, /readyz and calls say 503 meanwhile.
  const core = await buildCore(config, { waitForDatabase: { log } });
  // One set of instruments per process, shared by the engines, the job runner and GET /metrics.
  const metrics = createMetrics();
  const email = createEmailEngine(config, { log, metrics });
  // Can probes leave this host? Checked in the background (start never waits for it), logged once, shown in /readyz.
  const egress = startEgressCheck(config, { log });
  const serving = config.role !== "worker";
  const working = config.role !== "api";
  // Every process loads the street index: a server answers address calls, a worker matches the rows of bulk address
  // jobs. It is loaded (or first imported) in the background: the server listens meanwhile, and /readyz says where
  // the index stands; bulk address rows are claimed once it answers.
  const address: AddressService = startAddressService(config, { log, metrics });
  let server: RunningServer | undefined;
  let runner: JobRunner | undefined;
  let addressRunner: AddressJobRunner | undefined;
  let sweeper: Sweeper | undefined;
  if (!working && core.db.kind === "embedded") {
    log.warn(
      "nobody works bulk jobs: ROLE=api on the embedded database; use ROLE=all, or DATABASE_URL with worker processes",
    );
  }
  let stopping = false;
  address.started.catch((error) => {
    if (stopping) return;
    log.error("cannot start", { error: error instanceof Error ? error.message : String(error) });
    process.exit(1);
  });
  // SIGHUP: take up the indexes written into BAN_INDEX_DIR since (`npm run ban -- import` run beside the server).
  process.on("SIGHUP", () => void address.reload({ trigger: "SIGHUP" }));
  const startWorking = () => {
    if (stopping || !working) return;
    // The embedded database has one process: whatever is claimed at start was held by a process that died.
    runner = startJobRunner({
      sql: core.db.sql,
      verifier: email,
      log,
      exclusive: core.db.kind === "embedded",
      metrics,
      // A timed-out address is tried again once its MX's cool-off is over, or the retry would meet the same skip.
      timeoutRetryDelayMs: coolOffFor(config.probeTimeoutMs) + config.probeTimeoutMs,
    });
    addressRunner = startAddressJobRunner({
      sql: core.db.sql,
      verifier: address,
      log,
      exclusive: core.db.kind === "embedded",
    });
    sweeper = startSweeper({ sql: core.db.sql, log });
  };
  if (serving) {
    const jobs = createJobQueue(core.db.sql);
    const services: Services = {
      ...core,
      config,
      log,
      email,
      address: address as AddressVerifier,
      egress,
      metrics,
      jobs: {
        ...jobs,
        submit: (...args) => jobs.submit(...args).finally(() => runner?.wake()),
        submitAddresses: (...args) => jobs.submitAddresses(...args).finally(() => addressRunner?.wake()),
      },
    };
    server = await serve(createApp(services), {
      port: config.port,
      host: config.host,
      log,
      limits: {
        headersTimeoutMs: config.httpHeadersTimeoutMs,
        requestTimeoutMs: config.httpRequestTimeoutMs,
        keepAliveTimeoutMs: config.httpKeepAliveTimeoutMs,
        maxConnections: config.httpMaxConnections,
      },
    });
  }
  log.info("started", { role: config.role, port: server?.port, database: core.db.kind, workers: config.workers });
  // Jobs are worked once the database is migrated; a failure that waiting cannot fix (a refused password, a failed
  // migration) ends the process as it did before it served.
  void (core.db.ready ?? Promise.resolve()).then(
    () => {
      if (core.db.kind === "postgres") log.info("database ready", {});
      startWorking();
    },
    (error) => {
      if (stopping) return;
      log.error("cannot start", { error: error instanceof Error ? error.message : String(error) });
      process.exit(1);
    },
  );

  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info("stopping", { signal });
    // Stop accepting and finish what is in flight, then hand claimed job items back, then close the stores.
    await server?.close();
    await runner?.stop();
    await addressRunner?.stop();
    await sweeper?.stop();
    await address.close();
    await email.close();
    await core.db.close();
    log.info("stopped", {});
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

main().catch((error) => {
  log.error("cannot start", { error: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
