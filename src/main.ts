// `npm start`: one process serving the API (ROLE=all|api) and/or working bulk jobs (ROLE=all|worker), on the
// embedded database by default or on a shared PostgreSQL (DATABASE_URL).
import { sleep } from "./async/deadline.ts";
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
import { ABANDONED_UPLOAD_MS, startSweeper, type Sweeper } from "./jobs/sweeper.ts";
import { startCallbackDeliverer, type CallbackDeliverer } from "./callbacks/deliverer.ts";
import { callbackPolicy } from "./callbacks/callback_target.ts";
import { createDnsResolver } from "./email/net/mx_resolver.ts";
import type { AddressVerifier, Services } from "./services.ts";
import { createMetrics } from "./metrics/metrics.ts";
import { inFlightShare, stopInPhases } from "./stop_in_phases.ts";
import type { CoreServices } from "./deps.ts";
import type { EmailEngine } from "./email/engine.ts";
import { logProcessWarnings } from "./process_warnings.ts";
import { createMailServerCluster, type MailServerCluster } from "./email/cluster/mail_server_cluster.ts";

// At info until the configuration is read (a bad one is reported at error), then at LOG_LEVEL.
let log = createLogger();
logProcessWarnings(() => log);

async function main(): Promise<void> {
  const config = loadConfig();
  log = createLogger({ level: config.logLevel });
  // What exists so far, for a stop that may come at any point of the start.
  let core: CoreServices | undefined;
  let email: EmailEngine | undefined;
  let cluster: MailServerCluster | undefined;
  let address: AddressService | undefined;
  let server: RunningServer | undefined;
  let runner: JobRunner | undefined;
  let sweeper: Sweeper | undefined;
  let callbacks: CallbackDeliverer | undefined;
  let addressRunner: AddressJobRunner | undefined;
  let stopping = false;
  // Behind a balancer, a stop first waits unready (STOP_UNREADY_MS, part of the drain): /readyz answers 503 while calls
  // are still served, until the balancer has taken the process out. Closing the listener at once lost calls: a
  // connection the balancer had just opened was closed unread, and HAProxy then closed its client's keep-alive
  // connection unanswered (docs/decisions.md, "Deployment recipe"). A process that serves no HTTP does not wait.
  const unreadyMs = config.role === "worker" ? 0 : config.stopUnreadyMs;
  const drainMs = config.stopDrainMs - unreadyMs;
  // Requests in flight and the runner's probes get most of the drain time; handing items back and closing the rest.
  const inFlightMs = inFlightShare(drainMs);
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info("stopping", { signal, drain_ms: config.stopDrainMs, unready_ms: unreadyMs });
    if (unreadyMs > 0) await sleep(unreadyMs);
    // Stop accepting and finish what is in flight while the runner hands its claimed items back, then close the
    // engines and the stores. Whatever the database does (gone, or no longer answering), this ends within the drain
    // time: a step that fails or is still running then is logged and left (job items to their lease).
    const left = await stopInPhases(
      [
        [
          { name: "http server", stop: () => server?.close(inFlightMs) },
          { name: "job runner", stop: () => runner?.stop() },
          { name: "address job runner", stop: () => addressRunner?.stop() },
          { name: "job sweeper", stop: () => sweeper?.stop() },
          { name: "callback deliverer", stop: () => callbacks?.stop() },
        ],
        [
          { name: "address service", stop: () => address?.close() },
          { name: "email engine", stop: () => email?.close() },
        ],
        // Once the engine's connections are closed, its MX slots go back to the cluster at once (not at lease end).
        [{ name: "mail server cluster", stop: () => cluster?.close() }],
        [{ name: "database", stop: () => core?.db.close() }],
      ],
      { drainMs, log },
    );
    log.info("stopped", left.length > 0 ? { left } : {});
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));

  // The embedded database's directory is the owner's alone; what others could reach is named here, in this log.
  if (!config.databaseUrl) secureStateDir(config.stateDir, { log });
  // A PostgreSQL not reachable yet does not stop the start: /healthz answers, /readyz and calls say 503 meanwhile.
  const built = await buildCore(config, { waitForDatabase: { log } });
  core = built;
  if (stopping) return;
  // One set of instruments per process, shared by the engines, the job runner and GET /metrics.
  const metrics = createMetrics();
  // Processes sharing a PostgreSQL are one client toward each mail server (email/cluster/); it joins once the
  // database is ready, and probes wait for their MX slots until then.
  if (built.db.kind === "postgres") {
    cluster = createMailServerCluster(built.db.sql, {
      maxPerHost: config.smtpMaxPerMx,
      leaseTtlMs: config.smtpLeaseTtlMs,
      log,
    });
  }
  const engine = createEmailEngine(config, { log, metrics, cluster });
  email = engine;
  // Can probes leave this host? Checked in the background (start never waits for it), logged once, shown in /readyz.
  const egress = startEgressCheck(config, { log });
  const serving = config.role !== "worker";
  const working = config.role !== "api";
  // Every process loads the street index: a server answers address calls, a worker matches the rows of bulk address
  // jobs. It is loaded (or first imported) in the background: the server listens meanwhile, and /readyz says where
  // the index stands; bulk address rows are claimed once it answers.
  const addressService: AddressService = startAddressService(config, { log, metrics });
  address = addressService;
  if (!working && built.db.kind === "embedded") {
    log.warn(
      "nobody works bulk jobs: ROLE=api on the embedded database; use ROLE=all, or DATABASE_URL with worker processes",
    );
  }
  addressService.started.catch((error) => {
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
      sql: built.db.sql,
      verifier: engine,
      log,
      exclusive: built.db.kind === "embedded",
      metrics,
      batchSize: config.jobBatchSize,
      leaseMs: config.jobLeaseMs,
      // A timed-out address is tried again once its MX's cool-off is over, or the retry would meet the same skip.
      timeoutRetryDelayMs: coolOffFor(config.probeTimeoutMs) + config.probeTimeoutMs,
      stopTimeoutMs: inFlightMs,
    });
    sweeper = startSweeper({
      sql: built.db.sql,
      log,
      // However long requests may last, an upload is left alone for as long as one of them could still be running it.
      abandonedUploadMs: Math.max(ABANDONED_UPLOAD_MS, 2 * config.httpRequestTimeoutMs),
    });
    // Completion callbacks are sent by the processes that work jobs, whatever kind of job ended.
    callbacks = startCallbackDeliverer({
      sql: built.db.sql,
      log,
      policy: callbackPolicy({ allowCidrs: config.callbackAllowCidrs, allowHttpHosts: config.callbackAllowHttpHosts }),
      resolver: createDnsResolver({ servers: config.dnsServers, timeoutMs: config.callbackTimeoutMs }),
      publicUrl: () => config.publicUrl,
      timeoutMs: config.callbackTimeoutMs,
      exclusive: built.db.kind === "embedded",
    });
    addressRunner = startAddressJobRunner({
      sql: built.db.sql,
      verifier: addressService,
      log,
      exclusive: built.db.kind === "embedded",
    });
  };
  if (serving && !stopping) {
    const jobs = createJobQueue(built.db.sql);
    const services: Services = {
      ...built,
      config,
      log,
      email: engine,
      address: address as AddressVerifier,
      egress,
      metrics,
      stopping: () => stopping,
      // A job stored already ended (test keys) has its callback due at once.
      jobs: {
        ...jobs,
        submit: (...args) =>
          jobs.submit(...args).finally(() => {
            runner?.wake();
            if (args[2]?.callbackUrl !== undefined) callbacks?.wake();
          }),
        commitAddressUpload: (...args) =>
          jobs.commitAddressUpload(...args).finally(() => {
            addressRunner?.wake();
            if (args[1]?.callbackUrl !== undefined) callbacks?.wake();
          }),
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
  log.info("started", { role: config.role, port: server?.port, database: built.db.kind, workers: config.workers });
  // Jobs are worked once the database is migrated; a failure that waiting cannot fix (a refused password, a failed
  // migration) ends the process as it did before it served.
  void (built.db.ready ?? Promise.resolve()).then(
    () => {
      if (built.db.kind === "postgres") log.info("database ready", {});
      cluster?.join().catch((error) => {
        if (stopping) return;
        log.error("cannot start", { error: `mail server cluster: ${error instanceof Error ? error.message : error}` });
        process.exit(1);
      });
      startWorking();
    },
    (error) => {
      if (stopping) return;
      log.error("cannot start", { error: error instanceof Error ? error.message : String(error) });
      process.exit(1);
    },
  );
}

main().catch((error) => {
  log.error("cannot start", { error: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
