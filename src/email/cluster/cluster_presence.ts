// Which other processes share the database right now, told over the cluster channel: each process says "here" when
// it starts listening and again every interval, and "gone" when it closes. A process that hears a newcomer answers at
// once, so that the newcomer learns of it within a round trip rather than an interval.
//
// What it is for: a process alone on the database may skip the round trips that only serve to agree with others,
// where skipping them is harmless if it turns out wrong (shared_catch_all.ts: the worst is one catch-all probe more).
// Nothing that keeps a promise to mail servers (the per-MX slots, slot_leases.ts) relies on it.
import type { ClusterChannel } from "./cluster_channel.ts";

export interface ClusterPresence {
  /**
   * True when no other process was heard from lately, and this one has listened long enough (one interval, in which
   * every live process says "here") to know. False before the channel listens.
   */
  alone(): boolean;
  /** Other live processes heard from (tests, metrics). */
  others(): number;
  /** Says "gone" and stops saying "here". */
  close(): void;
}

export interface ClusterPresenceOptions {
  /** How often a process says "here". */
  intervalMs?: number;
  now?: () => number;
}

/** A process says "here" this often; one not heard from for three intervals is gone (died, or its messages lost). */
export const PRESENCE_INTERVAL_MS = 1000;

export function createClusterPresence(channel: ClusterChannel, options: ClusterPresenceOptions = {}): ClusterPresence {
  const { intervalMs = PRESENCE_INTERVAL_MS, now = Date.now } = options;
  /** Other processes: until when each counts as live without a word from it. */
  const live = new Map<string, number>();
  let listeningSince: number | null = null;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;

  channel.on("here", ({ from, args: [greeting] }) => {
    const known = (live.get(from) ?? 0) > now();
    live.set(from, now() + 3 * intervalMs);
    // A newcomer (its first word, or one we had given up on) hears of us now rather than at our next interval.
    if ((greeting === "hello" || !known) && !closed) channel.send("here", "reply");
  });
  channel.on("gone", ({ from }) => {
    live.delete(from);
  });
  void channel.opened.then(() => {
    if (closed) return;
    listeningSince = now();
    channel.send("here", "hello");
    timer = setInterval(() => channel.send("here"), intervalMs);
    timer.unref();
  });

  return {
    alone() {
      if (listeningSince === null || closed || now() - listeningSince < intervalMs) return false;
      const at = now();
      for (const [from, until] of live) {
        if (until > at) return false;
        live.delete(from);
      }
      return true;
    },
    others() {
      const at = now();
      return [...live.values()].filter((until) => until > at).length;
    },
    close() {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      if (listeningSince !== null) channel.send("gone");
    },
  };
}
