// The only module that reads process.env (with deps.ts). Every other module receives a Config.
import { isIP } from "node:net";
import { availableParallelism, hostname } from "node:os";
import { LOG_LEVELS, type LogLevel } from "./log.ts";
import { callbackPolicy } from "./callbacks/callback_target.ts";

export type Role = "all" | "api" | "worker";

export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  /** Unset: embedded PGlite in stateDir. Set: a real PostgreSQL shared by any number of processes. */
  databaseUrl: string | undefined;
  stateDir: string;
  /**
   * DB_QUERY_TIMEOUT_MS (PostgreSQL): bound on connecting, on each statement, and on a connection that stops
   * answering; a call that meets it gets 503 service-unavailable with Retry-After.
   */
  dbQueryTimeoutMs: number;
  plansFile: string | undefined;
  /** `ip` or `ip:port` entries; empty means the system resolver configuration. */
  dnsServers: string[];
  smtpPort: number;
  smtpHeloName: string;
  smtpMailFrom: string;
  probeTimeoutMs: number;
  emailDeadlineMs: number;
  /** CIDR ranges that probes may reach although private, loopback or link-local (tests only). */
  probeAllowCidrs: string[];
  banDepartements: string[];
  /** A directory holding adresses-XX.csv.gz files, or a URL base. */
  banSource: string;
  /** Directory of the compiled street index (data/ban by default). */
  banIndexDir: string;
  workers: number;
  role: Role;
  /** A request's headers must arrive within this (slow clients are cut off: docs/decisions.md "Hostile clients"). */
  httpHeadersTimeoutMs: number;
  /** A whole request (headers and body) must arrive within this; never less than httpHeadersTimeoutMs. */
  httpRequestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  httpKeepAliveTimeoutMs: number;
  /** Concurrent client connections; those beyond are closed on arrival. */
  httpMaxConnections: number;
  /** STOP_DRAIN_MS: on SIGTERM or SIGINT, the process has stopped and exited 0 within this, whatever its database does. */
  stopDrainMs: number;
  /**
   * STOP_UNREADY_MS: on SIGTERM or SIGINT, a process that serves HTTP first answers 503 on /readyz and goes on serving
   * for this long, so that a load balancer has stopped sending calls before the listener closes; part of the drain.
   */
  stopUnreadyMs: number;
  /** SMTP_PROXY: socks5://[user:pass@]host:port every probe goes through (unless SMTP_PROXY_RULES says otherwise). */
  smtpProxy: string | undefined;
  /** SMTP_PROXY_RULES: path of a JSON file routing probes per MX host suffix or domain (direct or a proxy). */
  smtpProxyRules: string | undefined;
  /** SMTP_LOCAL_ADDRESS: local addresses direct probes are bound to (at most one IPv4 and one IPv6). */
  smtpLocalAddresses: string[];
  /** SMTP_SELFTEST_HOST: mail server the egress self-check connects to; unset: the first MX of a large provider. */
  smtpSelftestHost: string | undefined;
  /**
   * AUTH_FAILURES_PER_MINUTE: failed authentications (401) allowed per client address and minute; beyond, calls
   * without a known key from that address are answered 429 before any key lookup. 0 turns the limit off.
   */
  authFailuresPerMinute: number;
  /** METRICS_TOKEN: bearer token GET /metrics asks for; unset, the metrics are open (docs/decisions.md "Metrics"). */
  metricsToken: string | undefined;
  /** LOG_LEVEL: lines below this level are not written (`silent`: none). */
  logLevel: LogLevel;
  /**
   * CALLBACK_ALLOW_CIDRS: ranges completion callbacks may reach although private, loopback or link-local (an
   * operator's own receivers; empty: none).
   */
  callbackAllowCidrs: string[];
  /** CALLBACK_ALLOW_HTTP_HOSTS: hosts callbacks may be sent to over plain http (empty: https only). */
  callbackAllowHttpHosts: string[];
  /** CALLBACK_TIMEOUT_MS: bound on one callback attempt, from the host's resolution to the receiver's status. */
  callbackTimeoutMs: number;
  /** PAGE: `on` serves the page for people at `GET /` (and its assets); `off` leaves the API alone (GET / is JSON). */
  page: boolean;
  /**
   * SMTP_MAX_PER_MX: connections open to one MX host at most, for the whole cluster when processes share a PostgreSQL
   * (docs/decisions.md, "A cluster of processes").
   */
  smtpMaxPerMx: number;
  /** SMTP_LEASE_TTL_MS: on a shared PostgreSQL, how long the MX slots of a process that died stay held. */
  smtpLeaseTtlMs: number;
  /** JOB_BATCH_SIZE: bulk items one claim takes; smaller claims spread a job over more worker processes. */
  jobBatchSize: number;
  /** JOB_LEASE_MS: how long the bulk items a worker claimed stay its own after it died, before others take them. */
  jobLeaseMs: number;
}

export const OFFICIAL_BAN_SOURCE = "https://adresse.data.gouv.fr/data/ban/adresses/latest/csv";

function list(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new RangeError(`Cannot read configuration: ${name} must be an integer >= ${min}, got "${raw}"`);
  }
  return value;
}

/** Reads the configuration table of docs/contract.md §3; throws RangeError naming the first bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = integer(env, "PORT", 8080);
  const host = env.HOST || "0.0.0.0";
  const name = hostname();
  const role = (env.ROLE || "all") as Role;
  if (!["all", "api", "worker"].includes(role)) {
    throw new RangeError(`Cannot read configuration: ROLE must be all, api or worker, got "${role}"`);
  }
  const httpHeadersTimeoutMs = integer(env, "HTTP_HEADERS_TIMEOUT_MS", 10_000, 1);
  const httpRequestTimeoutMs = integer(env, "HTTP_REQUEST_TIMEOUT_MS", 30_000, 1);
  if (httpRequestTimeoutMs < httpHeadersTimeoutMs) {
    throw new RangeError(
      `Cannot read configuration: HTTP_REQUEST_TIMEOUT_MS (${httpRequestTimeoutMs}) must be at least HTTP_HEADERS_TIMEOUT_MS (${httpHeadersTimeoutMs})`,
    );
  }
  const stopDrainMs = integer(env, "STOP_DRAIN_MS", 10_000, 100);
  const stopUnreadyMs = integer(env, "STOP_UNREADY_MS", 0, 0);
  if (stopDrainMs - stopUnreadyMs < 100) {
    throw new RangeError(
      `Cannot read configuration: STOP_UNREADY_MS (${stopUnreadyMs}) must leave at least 100 ms of STOP_DRAIN_MS (${stopDrainMs}) for the calls in flight and the rest of the stop`,
    );
  }
  const smtpLocalAddresses = list(env.SMTP_LOCAL_ADDRESS);
  const families = smtpLocalAddresses.map((a) => isIP(a));
  if (families.includes(0) || new Set(families).size !== families.length) {
    throw new RangeError(
      `Cannot read configuration: SMTP_LOCAL_ADDRESS must be one IP address (or one IPv4 and one IPv6, comma-separated), got "${env.SMTP_LOCAL_ADDRESS}"`,
    );
  }
  // RFC 6750 §2.1 b64token, long enough not to be guessed.
  if (env.METRICS_TOKEN && !/^[A-Za-z0-9\-._~+/]{16,}=*$/.test(env.METRICS_TOKEN)) {
    throw new RangeError(
      "Cannot read configuration: METRICS_TOKEN must be at least 16 characters of A-Z a-z 0-9 - . _ ~ + / (then = padding)",
    );
  }
  const logLevel = (env.LOG_LEVEL || "info") as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new RangeError(
      `Cannot read configuration: LOG_LEVEL must be ${LOG_LEVELS.slice(0, -1).join(", ")} or ${LOG_LEVELS.at(-1)}, got "${env.LOG_LEVEL}"`,
    );
  }
  if (env.SMTP_PROXY && !/^socks5:\/\//i.test(env.SMTP_PROXY)) {
    throw new RangeError("Cannot read configuration: SMTP_PROXY must be a socks5://[user:pass@]host:port URL");
  }
  const page = (env.PAGE || "on").toLowerCase();
  if (page !== "on" && page !== "off") {
    throw new RangeError(`Cannot read configuration: PAGE must be on or off, got "${env.PAGE}"`);
  }
  const callbackAllowCidrs = list(env.CALLBACK_ALLOW_CIDRS);
  const callbackAllowHttpHosts = list(env.CALLBACK_ALLOW_HTTP_HOSTS);
  // Read now, so that a bad entry stops the start with its name rather than the first submission.
  callbackPolicy({ allowCidrs: callbackAllowCidrs, allowHttpHosts: callbackAllowHttpHosts });
  return {
    port,
    host,
    publicUrl: (env.PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, ""),
    databaseUrl: env.DATABASE_URL || undefined,
    stateDir: env.STATE_DIR || "./state",
    dbQueryTimeoutMs: integer(env, "DB_QUERY_TIMEOUT_MS", 5_000, 1),
    plansFile: env.PLANS_FILE || undefined,
    dnsServers: list(env.DNS_SERVERS),
    smtpPort: integer(env, "SMTP_PORT", 25, 1),
    smtpHeloName: env.SMTP_HELO_NAME || name,
    smtpMailFrom: env.SMTP_MAIL_FROM || `verify@${name}`,
    probeTimeoutMs: integer(env, "PROBE_TIMEOUT_MS", 10_000, 1),
    emailDeadlineMs: integer(env, "EMAIL_DEADLINE_MS", 15_000, 1),
    probeAllowCidrs: list(env.PROBE_ALLOW_CIDRS),
    banDepartements: list(env.BAN_DEPARTEMENTS ?? "75"),
    banSource: env.BAN_SOURCE || OFFICIAL_BAN_SOURCE,
    banIndexDir: env.BAN_INDEX_DIR || "./data/ban",
    workers: integer(env, "WORKERS", availableParallelism(), 1),
    role,
    httpHeadersTimeoutMs,
    httpRequestTimeoutMs,
    httpKeepAliveTimeoutMs: integer(env, "HTTP_KEEP_ALIVE_TIMEOUT_MS", 5_000, 1),
    httpMaxConnections: integer(env, "HTTP_MAX_CONNECTIONS", 1024, 1),
    stopDrainMs,
    stopUnreadyMs,
    smtpProxy: env.SMTP_PROXY || undefined,
    smtpProxyRules: env.SMTP_PROXY_RULES || undefined,
    smtpLocalAddresses,
    smtpSelftestHost: env.SMTP_SELFTEST_HOST || undefined,
    authFailuresPerMinute: integer(env, "AUTH_FAILURES_PER_MINUTE", 30, 0),
    metricsToken: env.METRICS_TOKEN || undefined,
    logLevel,
    callbackAllowCidrs,
    callbackAllowHttpHosts,
    callbackTimeoutMs: integer(env, "CALLBACK_TIMEOUT_MS", 10_000, 1),
    page: page === "on",
    smtpMaxPerMx: integer(env, "SMTP_MAX_PER_MX", 3, 1),
    smtpLeaseTtlMs: integer(env, "SMTP_LEASE_TTL_MS", 15_000, 300),
    jobBatchSize: integer(env, "JOB_BATCH_SIZE", 500, 1),
    jobLeaseMs: integer(env, "JOB_LEASE_MS", 60_000, 1000),
  };
}
