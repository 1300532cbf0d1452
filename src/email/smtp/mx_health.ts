// Mail exchangers that keep timing out. A tarpit accepts the connection and never speaks: in a bulk job, each of its
// addresses would hold one of the host's few connection slots for a whole PROBE_TIMEOUT_MS, and the job would take
// (addresses / slots) × timeout. After a few timeouts in a row, with no answer between them, the host counts as
// failing for a cool-off period; bulk probes then answer `timeout` at once (the runner retries them once after the
// cool-off). Any answer from the host clears its count.

export interface MxHealth {
  /** True while the host is cooling off after repeated timeouts. */
  failing(host: string): boolean;
  /** A dialogue with the host ran out of time. */
  timedOut(host: string): void;
  /** The host answered (any reply, even a refusal): it is alive. */
  answered(host: string): void;
}

export interface MxHealthOptions {
  /** Timeouts in a row, with no answer between them, that make a host failing. */
  tripAfter?: number;
  /** How long a failing host is skipped. */
  coolOffMs: number;
  now?: () => number;
}

/** Timeouts in a row before a host is skipped: one slot's worth at the default per-MX limit of 3. */
export const DEFAULT_TRIP_AFTER = 3;

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
  // Only hosts with a timeout since their last answer are kept: a map that stays as small as the trouble.
  const hosts = new Map<string, { timeouts: number; failingUntil: number }>();
  return {
    failing(host) {
      const state = hosts.get(host);
      if (state === undefined || state.failingUntil === 0) return false;
      if (now() < state.failingUntil) return true;
      // Cool-off over: the host gets a fresh chance, and trips again after as many timeouts.
      hosts.delete(host);
      return false;
    },
    timedOut(host) {
      const state = hosts.get(host) ?? { timeouts: 0, failingUntil: 0 };
      state.timeouts++;
      if (state.timeouts >= tripAfter && state.failingUntil === 0) state.failingUntil = now() + coolOffMs;
      hosts.set(host, state);
    },
    answered(host) {
      hosts.delete(host);
    },
  };
}
