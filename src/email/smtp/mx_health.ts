// Mail exchangers that keep failing us. A tarpit accepts the connection and never speaks: in a bulk job, each of its
// addresses would hold one of the host's few connection slots for a whole PROBE_TIMEOUT_MS, and the job would take
// (addresses / slots) × timeout. A host that refuses us before any recipient (`421 too many connections` at its
// greeting, a 4xx/5xx banner or HELO reply, the connection refused) costs less per probe, but asking it again at once
// is hammering a server that asked us to go away. After a few such failures in a row, with no answer about a recipient
// between them, the host counts as failing for a cool-off period; bulk probes then answer at once what the host last
// said: `timeout` after time-outs (the runner retries them once after the cool-off), the refusal itself after a
// refusal (a 4xx deferral is `greylisted` and retried on the greylisting schedule, anything else probe_unavailable),
// never a reason the host did not give. Any answer from the host in a transaction clears its count.
import type { ProbeOutcome } from "./probe_outcome.ts";

export interface MxHealth {
  /** True while the host is cooling off after repeated time-outs or refusals. */
  failing(host: string): boolean;
  /** What a probe skipped during the host's cool-off answers: the failure that started it (or the last since). */
  skipped(host: string): ProbeOutcome;
  /** A dialogue with the host ran out of time. */
  timedOut(host: string): void;
  /** The host refused us before any recipient: at its greeting, or by refusing the connection. */
  refused(host: string, outcome: ProbeOutcome): void;
  /** The host answered a command of a transaction (any reply, even a refusal of the recipient): it is serving us. */
  answered(host: string): void;
}

export interface MxHealthOptions {
  /** Time-outs or refusals in a row, with no answer between them, that make a host failing. */
  tripAfter?: number;
  /** How long a failing host is skipped. */
  coolOffMs: number;
  now?: () => number;
}

/** Failures in a row before a host is skipped: one slot's worth at the default per-MX limit of 3. */
export const DEFAULT_TRIP_AFTER = 3;

const TIMEOUT: ProbeOutcome = { kind: "timeout" };

/**
 * The cool-off that goes with a probe budget: six budgets (a minute at the default 10 s) lets a host that was only
 * briefly overloaded recover, while a tarpit costs a job a few budgets instead of one per address.
 */
export function coolOffFor(probeTimeoutMs: number): number {
  return 6 * probeTimeoutMs;
}

export function createMxHealth(options: MxHealthOptions): MxHealth {
  const { tripAfter = DEFAULT_TRIP_AFTER, coolOffMs, now = Date.now } = options;
  if (!Number.isInteger(tripAfter) || tripAfter < 1)
    throw new RangeError("Cannot track MX health: tripAfter must be >= 1");
  if (!(coolOffMs >= 0)) throw new RangeError("Cannot track MX health: coolOffMs must be >= 0");
  // Only hosts with a failure since their last answer are kept: a map that stays as small as the trouble.
  const hosts = new Map<string, { failures: number; failingUntil: number; last: ProbeOutcome }>();
  const failed = (host: string, outcome: ProbeOutcome) => {
    const state = hosts.get(host) ?? { failures: 0, failingUntil: 0, last: outcome };
    state.failures++;
    state.last = outcome;
    if (state.failures >= tripAfter && state.failingUntil === 0) state.failingUntil = now() + coolOffMs;
    hosts.set(host, state);
  };
  return {
    failing(host) {
      const state = hosts.get(host);
      if (state === undefined || state.failingUntil === 0) return false;
      if (now() < state.failingUntil) return true;
      // Cool-off over: the host gets a fresh chance, and trips again after as many failures.
      hosts.delete(host);
      return false;
    },
    skipped: (host) => hosts.get(host)?.last ?? TIMEOUT,
    timedOut: (host) => failed(host, TIMEOUT),
    refused: (host, outcome) => failed(host, outcome),
    answered(host) {
      hosts.delete(host);
    },
  };
}
