// The Prometheus instruments of one process, on a registry of its own (never prom-client's global one: tests build
// several apps in one process, and each must count only its own traffic). Callers record through small methods that
// take plain values; label values come from closed vocabularies (route patterns, verdicts, reasons, outcomes) or are
// capped (MX hosts), so no caller's input can make a series. Gauges of pools are read when scraped, never pushed.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { createHttpMetrics } from "./http_metrics.ts";

/** One MX host's connection slots, as the SMTP pool and prober see them at scrape time. */
export interface MxPoolUse {
  host: string;
  /** Connections held by a dialogue. */
  busy: number;
  /** Greeted connections waiting for the next recipient of the host. */
  idle: number;
  /** Callers and bulk recipients waiting for a connection of the host. */
  waiting: number;
}

/** Where an answer came from: the live pipeline, or the offline reserved answers of a test key. */
export type AnswerMode = "live" | "test";

export interface Metrics {
  readonly registry: Registry;
  /** The scrape: Prometheus text exposition format. */
  scrape(): Promise<string>;
  readonly contentType: string;
  /** One HTTP answer; `route` is the matched route pattern ("(none)" when no route matched), never the path. */
  httpRequest(method: string, route: string, status: number, seconds: number): void;
  /** One email answer: counted once by verdict, and once per reason ("none" for an answer without one). */
  emailAnswer(answer: { verdict: string; reasons: readonly string[] }, mode: AnswerMode): void;
  /** One recipient's SMTP probe over the MX hosts of its domain, waiting for a connection slot included. */
  smtpDialogue(outcome: string, seconds: number): void;
  /** One DNS query of the engine: `type` mx or address, `outcome` ok or the DnsError code. */
  dnsLookup(type: "mx" | "address", outcome: string, seconds: number): void;
  addressMatch(verdict: string, mode: AnswerMode, seconds: number): void;
  quotaRefusal(endpoint: string): void;
  bulkQueued(items: number): void;
  bulkClaimed(items: number): void;
  bulkDone(verdict: string): void;
  /** Claimed items found with their lease run out (their worker died or stalled), put back in the queue. */
  leaseExpired(items: number): void;
  /** Reads the per-MX pool use at each scrape; returns the function that stops it. */
  watchSmtpPool(source: () => Iterable<MxPoolUse>): () => void;
  /** Reads the address worker pool's queue (piscina `queueSize`) at each scrape; returns the function that stops it. */
  watchWorkerPool(source: () => number): () => void;
}

export interface CreateMetricsOptions {
  /** Process metrics (CPU, memory, event loop lag, GC, handles) from prom-client, under their standard names. */
  defaults?: boolean;
  /** Per-MX series shown at most, the busiest first; the totals count every host. */
  maxMxHosts?: number;
}

// Seconds. HTTP answers are sub-millisecond (test mode) to EMAIL_DEADLINE_MS (a live probe).
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30];
const NETWORK_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30, 60];
const MATCH_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

export function createMetrics(options: CreateMetricsOptions = {}): Metrics {
  const { defaults = true, maxMxHosts = 50 } = options;
  if (!Number.isInteger(maxMxHosts) || maxMxHosts < 0) {
    throw new RangeError("Cannot create metrics: maxMxHosts must be an integer >= 0");
  }
  const registry = new Registry();
  const registers = [registry];
  // Unprefixed on purpose: the standard Node.js dashboards look for process_* and nodejs_*.
  if (defaults) collectDefaultMetrics({ register: registry });

  // Counted on every request: a leaner path than prom-client's own (http_metrics.ts).
  const http = createHttpMetrics(registry, { buckets: HTTP_BUCKETS });
  // Every email answer is counted on the request's path: tallied in plain maps, handed to prom-client when scraped.
  const answerTally = new Map<string, { labels: { verdict: string; mode: string }; n: number }>();
  const reasonTally = new Map<string, { labels: { verdict: string; reason: string; mode: string }; n: number }>();
  new Counter({
    name: "vrai_email_answers_total",
    help: "Email answers by verdict and mode (live: every verification the engine finished; test: test-key answers)",
    labelNames: ["verdict", "mode"] as const,
    registers,
    collect() {
      this.reset();
      for (const { labels, n } of answerTally.values()) this.inc(labels, n);
    },
  });
  new Counter({
    name: "vrai_email_answer_reasons_total",
    help: 'Reasons of email answers, each reason of an answer once ("none" for an answer without reasons)',
    labelNames: ["verdict", "reason", "mode"] as const,
    registers,
    collect() {
      this.reset();
      for (const { labels, n } of reasonTally.values()) this.inc(labels, n);
    },
  });
  const tallyReason = (verdict: string, reason: string, mode: string) => {
    const key = `${verdict} ${reason} ${mode}`;
    const entry = reasonTally.get(key);
    if (entry === undefined) reasonTally.set(key, { labels: { verdict, reason, mode }, n: 1 });
    else entry.n++;
  };
  const smtpDialogues = new Histogram({
    name: "vrai_smtp_dialogue_duration_seconds",
    help: "SMTP probes of one recipient by outcome (the reply category, timeout or unavailable), slot wait included",
    labelNames: ["outcome"] as const,
    buckets: NETWORK_BUCKETS,
    registers,
  });
  const dnsLookups = new Histogram({
    name: "vrai_dns_lookup_duration_seconds",
    help: "DNS queries of the email engine by type (mx, address) and outcome (ok or the DNS error code)",
    labelNames: ["type", "outcome"] as const,
    buckets: NETWORK_BUCKETS,
    registers,
  });
  const addressMatches = new Histogram({
    name: "vrai_address_match_duration_seconds",
    help: "Address answers by verdict and mode, with the time to match (queue and worker thread included)",
    labelNames: ["verdict", "mode"] as const,
    buckets: MATCH_BUCKETS,
    registers,
  });
  const quotaRefusals = new Counter({
    name: "vrai_quota_refusals_total",
    help: "Calls refused 402 quota-exceeded, by the endpoint quota that was spent",
    labelNames: ["endpoint"] as const,
    registers,
  });
  const bulkQueued = new Counter({
    name: "vrai_bulk_items_queued_total",
    help: "Bulk items put in the queue at job submission (deduplicated; test-key jobs are stored answered)",
    registers,
  });
  const bulkClaimed = new Counter({
    name: "vrai_bulk_items_claimed_total",
    help: "Bulk items handed to this process's job runner (a retried item is claimed again)",
    registers,
  });
  const bulkDone = new Counter({
    name: "vrai_bulk_items_done_total",
    help: "Bulk items given their final answer by this process's job runner, by verdict",
    labelNames: ["verdict"] as const,
    registers,
  });
  const leaseExpiries = new Counter({
    name: "vrai_bulk_lease_expiries_total",
    help: "Claimed bulk items whose lease ran out (a worker died or stalled), put back in the queue",
    registers,
  });

  const smtpSources = new Set<() => Iterable<MxPoolUse>>();
  const workerSources = new Set<() => number>();
  new Gauge({
    name: "vrai_smtp_mx_connections",
    help: `Open SMTP connections per MX host by state (busy, idle); the ${maxMxHosts} busiest hosts`,
    labelNames: ["mx", "state"] as const,
    registers,
    collect() {
      // One read of the pools feeds the four SMTP gauges, here in the first one registered (a registry collects in
      // registration order, so the others are set before they are read); the series of hosts gone quiet disappear.
      const uses: MxPoolUse[] = [];
      for (const source of smtpSources) for (const use of source()) uses.push(use);
      const totals = { busy: 0, idle: 0, waiting: 0 };
      for (const use of uses) {
        totals.busy += use.busy;
        totals.idle += use.idle;
        totals.waiting += use.waiting;
      }
      smtpConnections.set({ state: "busy" }, totals.busy);
      smtpConnections.set({ state: "idle" }, totals.idle);
      smtpWaiting.set(totals.waiting);
      this.reset();
      mxWaiting.reset();
      const active = uses.filter((u) => u.busy + u.idle + u.waiting > 0);
      active.sort((a, b) => b.busy + b.waiting - (a.busy + a.waiting));
      for (const use of active.slice(0, maxMxHosts)) {
        this.set({ mx: use.host, state: "busy" }, use.busy);
        this.set({ mx: use.host, state: "idle" }, use.idle);
        mxWaiting.set({ mx: use.host }, use.waiting);
      }
    },
  });
  const mxWaiting = new Gauge({
    name: "vrai_smtp_mx_waiting",
    help: `Probes waiting for a connection per MX host; the ${maxMxHosts} busiest hosts`,
    labelNames: ["mx"] as const,
    registers,
  });
  const smtpConnections = new Gauge({
    name: "vrai_smtp_connections",
    help: "Open SMTP connections over every MX host by state (busy, idle)",
    labelNames: ["state"] as const,
    registers,
  });
  const smtpWaiting = new Gauge({
    name: "vrai_smtp_waiting",
    help: "Probes waiting for an SMTP connection over every MX host",
    registers,
  });
  new Gauge({
    name: "vrai_address_worker_queue",
    help: "Address match tasks waiting for a worker thread (piscina queueSize), read at scrape",
    registers,
    collect() {
      let queued = 0;
      for (const source of workerSources) queued += source();
      this.set(queued);
    },
  });

  return {
    registry,
    contentType: registry.contentType,
    scrape: () => registry.metrics(),
    httpRequest: (method, route, status, seconds) => http.record(method, route, status, seconds),
    emailAnswer({ verdict, reasons }, mode) {
      const key = `${verdict} ${mode}`;
      const entry = answerTally.get(key);
      if (entry === undefined) answerTally.set(key, { labels: { verdict, mode }, n: 1 });
      else entry.n++;
      if (reasons.length === 0) tallyReason(verdict, "none", mode);
      for (const reason of reasons) tallyReason(verdict, reason, mode);
    },
    smtpDialogue: (outcome, seconds) => smtpDialogues.observe({ outcome }, seconds),
    dnsLookup: (type, outcome, seconds) => dnsLookups.observe({ type, outcome }, seconds),
    addressMatch: (verdict, mode, seconds) => addressMatches.observe({ verdict, mode }, seconds),
    quotaRefusal: (endpoint) => quotaRefusals.inc({ endpoint }),
    bulkQueued: (items) => bulkQueued.inc(items),
    bulkClaimed: (items) => bulkClaimed.inc(items),
    bulkDone: (verdict) => bulkDone.inc({ verdict }),
    leaseExpired: (items) => leaseExpiries.inc(items),
    watchSmtpPool(source) {
      smtpSources.add(source);
      return () => smtpSources.delete(source);
    },
    watchWorkerPool(source) {
      workerSources.add(source);
      return () => workerSources.delete(source);
    },
  };
}
