// Per-MX-host connection slots. At most `maxPerHost` connections to one MX host are open at any time (busy or idle),
// so a bulk job never floods a mail exchanger, and idle connections can be handed to the next recipient of the same
// host (verifyMany's connection reuse). A slot is a permit, with an idle session when one could be reused.
//
// Interactive before bulk: a single call or a signup (priority "interactive") never waits behind bulk work. Its waiters
// are served before every bulk waiter, it takes an idle or handed-over session at once (the prober RSETs it first), and
// while one waits, `slot.interactiveWaiting()` tells the bulk holders of the host's slots to give theirs back at their
// next recipient boundary (smtp/prober.ts): so even when bulk transactions hold every slot, the call gets one within
// about one RCPT exchange, and the per-host limit still holds.
//
// In a cluster (processes sharing a PostgreSQL, `leases` given), each permit is also one of the host's slots of the
// whole cluster (cluster/slot_leases.ts): a permit beyond those this process holds is leased first, and one that
// nobody here waits for is given back. Interactive callers of other processes count as waiting here too: bulk work
// yields to them, and bulk waiters here let them take the next freed slot. Idle connections are not kept while
// another process waits for the host. Without leases (one process, the embedded database) nothing of this runs.
import { deadline, isTimeoutReason } from "../../async/deadline.ts";
import { SmtpError } from "../errors.ts";
import type { SmtpConnection, SmtpTarget } from "./dialer.ts";
import type { SlotLeases } from "../cluster/slot_leases.ts";
import type { SlotPriority } from "./slot_priority.ts";

/** A greeted connection: banner read, EHLO/HELO accepted. */
export interface SmtpSession {
  conn: SmtpConnection;
  target: SmtpTarget;
  smtpUtf8: boolean;
}

export type { SlotPriority } from "./slot_priority.ts";

export interface SmtpSlot {
  /** An idle greeted session to reuse (send RSET first), or null: dial a new one under this slot. */
  readonly session: SmtpSession | null;
  /**
   * An interactive caller waits for a slot of this host: a bulk holder gives this one back (release with keep) at its
   * next recipient boundary rather than start another recipient on it.
   */
  interactiveWaiting(): boolean;
  /**
   * Gives the slot back. keep: the session is healthy and may serve the next caller of this host (it is handed to a
   * waiter, or left idle; `idle: false` QUITs it rather than leave it idle when nobody waits).
   */
  release(session: SmtpSession | null, options: { keep: boolean; idle?: boolean }): void;
}

export interface SmtpPool {
  /**
   * A slot of `host`, at once when one is free, else in turn: interactive callers before every bulk one. `reuse`: take
   * an idle session when there is one (an interactive caller always does: it saves a dial on a host bulk work keeps busy).
   */
  acquire(host: string, options: { signal: AbortSignal; reuse: boolean; priority: SlotPriority }): Promise<SmtpSlot>;
  /** QUITs every idle session. */
  drain(): Promise<void>;
  /**
   * Per host with a connection or a waiter: open connections (busy or idle), idle ones, callers waiting (metrics),
   * and how many of those waiting are interactive.
   */
  usage(): Array<{ host: string; open: number; idle: number; waiting: number; interactive: number }>;
}

interface Waiter {
  /** Takes a handed-over session (a bulk caller that reuses, or any interactive one). */
  takesSession: boolean;
  resolve: (slot: SmtpSlot) => void;
}

interface HostState {
  host: string;
  open: number;
  /** Cluster: slot leases asked for and not answered yet (each counts against the local limit meanwhile). */
  asking: number;
  /** Cluster: the next try for waiters that could not get a slot. */
  retry: NodeJS.Timeout | null;
  idle: Array<{ session: SmtpSession; timer: NodeJS.Timeout }>;
  /** Single calls and signups waiting: served before every bulk waiter. */
  interactive: Waiter[];
  /** Bulk recipients' drainers (and bulk probes without reuse) waiting, first come, first served. */
  bulk: Waiter[];
}

/** Sends QUIT and lets the server hang up first (bounded waits), then closes. Never throws. Waiting for the
 *  server's close keeps the per-host limit true from the server's side too, not only from ours. */
export async function quit(session: SmtpSession): Promise<void> {
  const limit = deadline(QUIT_WAIT_MS, { what: "QUIT" });
  try {
    if (!session.conn.closed) {
      await session.conn.command("QUIT", { signal: limit.signal });
      await session.conn.waitClosed(QUIT_WAIT_MS);
    }
  } catch {
    // The server may hang up first; QUIT is a courtesy.
  } finally {
    limit.dispose();
    session.conn.close();
  }
}

/** How long QUIT waits for its reply, then for the server to hang up. */
const QUIT_WAIT_MS = 1000;

export interface SmtpPoolOptions {
  maxPerHost: number;
  /** How long an idle session waits for another recipient before it is QUIT. */
  idleMs?: number;
  /** The cluster's slots (processes sharing a PostgreSQL); unset: this process is alone with the MX hosts. */
  leases?: SlotLeases;
}

/**
 * In a cluster, waiters that could not get a slot try again about this often: a fallback, for slots whose holder died
 * (their lease runs out unannounced) and announcements lost. A slot given back is announced, and waiters try at once.
 * Every waiting host of every process asks the database at this pace: at 250 ms, 50 hosts × 2 waiting processes made
 * 400 statements a second and slowed the bench's three-process job by a quarter.
 */
const LEASE_RETRY_MS = 1000;

export function createSmtpPool(options: SmtpPoolOptions): SmtpPool {
  const { maxPerHost, idleMs = 2000, leases } = options;
  if (!Number.isInteger(maxPerHost) || maxPerHost < 1) {
    throw new RangeError("Cannot create SMTP pool: maxPerHost must be a positive integer");
  }
  const hosts = new Map<string, HostState>();
  const closing = new Set<Promise<void>>();

  function stateOf(host: string): HostState {
    let state = hosts.get(host);
    if (state === undefined) {
      state = { host, open: 0, asking: 0, retry: null, idle: [], interactive: [], bulk: [] };
      hosts.set(host, state);
    }
    return state;
  }

  /** Another process's interactive caller waits for the host: bulk work here yields to it. */
  const othersInteractive = (state: HostState) => leases?.othersWant(state.host) === "interactive";

  /** The next waiter of the host: interactive ones first; bulk ones not while another process's caller waits. */
  function nextWaiter(state: HostState): Waiter | undefined {
    const waiter = state.interactive.shift() ?? (othersInteractive(state) ? undefined : state.bulk.shift());
    // Served here: the others must not go on yielding to a wish that is over.
    if (waiter !== undefined) settle(state);
    return waiter;
  }

  /** The permit of a connection that is gone and that nobody here waits for: a leased slot goes back. */
  function letGo(state: HostState): void {
    state.open--;
    if (leases === undefined) return;
    leases.give(state.host);
    pump(state);
  }

  /**
   * Cluster: leases slots for the waiters that no permit here serves, as far as the local limit lets it, and tells the
   * others what this process waits for. Waiters left unserved try again on a timer and whenever a slot is freed.
   */
  function pump(state: HostState): void {
    if (leases === undefined) return;
    for (;;) {
      const waiting = state.interactive.length + state.bulk.length;
      if (waiting <= state.asking || state.open + state.asking >= maxPerHost) break;
      // Interactive waiters first; bulk ones take no slot while another process's caller waits for one.
      if (state.interactive.length <= state.asking && othersInteractive(state)) break;
      state.asking++;
      void leases.take(state.host).then((granted) => {
        state.asking--;
        if (granted) {
          state.open++;
          const waiter = nextWaiter(state);
          if (waiter !== undefined) waiter.resolve(slot(state, null));
          else letGo(state); // its waiter gave up meanwhile
        }
        settle(state);
      });
    }
    settle(state);
  }

  /** Cluster: what this process waits for is told to the others, and tried again later while it waits. */
  function settle(state: HostState): void {
    if (leases === undefined) return;
    const waiting = state.interactive.length + state.bulk.length > state.asking;
    // Only a slot of the cluster would serve them: with every local permit in use, bulk work here yields to an
    // interactive caller here without the others' help.
    const short = waiting && state.open + state.asking < maxPerHost;
    const wish = !short ? null : state.interactive.length > 0 ? "interactive" : "bulk";
    leases.want(state.host, wish);
    if (short && state.retry === null) {
      // Spread, so that the processes waiting for one host do not ask together.
      state.retry = setTimeout(
        () => {
          state.retry = null;
          pump(state);
        },
        LEASE_RETRY_MS * (0.75 + Math.random() / 2),
      );
      state.retry.unref();
    } else if (!short && state.retry !== null) {
      clearTimeout(state.retry);
      state.retry = null;
    }
  }

  // Another process freed a slot of a host or wants one: waiters here try now, and idle connections here go, so that
  // a process with work gets the host's slots rather than one with none.
  leases?.onChange((host) => {
    const state = hosts.get(host);
    if (state === undefined) return;
    if (leases.othersWant(host) !== null) {
      for (const { session, timer } of state.idle.splice(0)) {
        clearTimeout(timer);
        void retire(state, session).finally(() => free(state));
      }
    }
    pump(state);
  });

  function retire(_state: HostState, session: SmtpSession): Promise<void> {
    const done = quit(session);
    closing.add(done);
    return done.finally(() => closing.delete(done));
  }

  function slot(state: HostState, session: SmtpSession | null): SmtpSlot {
    let released = false;
    return {
      session,
      interactiveWaiting: () => !released && (state.interactive.length > 0 || othersInteractive(state)),
      release(current, { keep, idle = true }) {
        if (released) return;
        released = true;
        if (keep && current !== null && !current.conn.closed) {
          const waiter = nextWaiter(state);
          if (waiter !== undefined) {
            if (waiter.takesSession) return waiter.resolve(slot(state, current));
            // The waiter dials only once this session is gone: never one connection over the limit.
            void retire(state, current).then(() => waiter.resolve(slot(state, null)));
            return;
          }
          // Idle, the connection would keep a slot another process waits for.
          if (!idle || leases?.othersWant(state.host) != null) {
            void retire(state, current).finally(() => free(state));
            return;
          }
          const entry = {
            session: current,
            timer: setTimeout(() => {
              state.idle.splice(state.idle.indexOf(entry), 1);
              void retire(state, current).finally(() => free(state));
            }, idleMs),
          };
          entry.timer.unref();
          state.idle.push(entry);
          return;
        }
        if (current !== null) current.conn.close();
        free(state);
      },
    };
  }

  // A permit comes back: the next waiter gets it, or the count of open connections drops.
  function free(state: HostState): void {
    const waiter = nextWaiter(state);
    if (waiter !== undefined) waiter.resolve(slot(state, null));
    else letGo(state);
  }

  return {
    acquire(host, { signal, reuse, priority }) {
      const state = stateOf(host);
      const takesSession = reuse || priority === "interactive";
      // Bulk work takes nothing here while another process's single call waits for the host.
      const yields = priority === "bulk" && othersInteractive(state);
      if (takesSession && state.idle.length > 0 && !yields) {
        const { session, timer } = state.idle.pop()!;
        clearTimeout(timer);
        return Promise.resolve(slot(state, session));
      }
      if (leases === undefined && state.open < maxPerHost) {
        state.open++;
        return Promise.resolve(slot(state, null));
      }
      if (state.idle.length > 0 && !yields) {
        // A caller that will not reuse takes the permit of an idle session (without leases, all are held by now).
        const { session, timer } = state.idle.shift()!;
        clearTimeout(timer);
        return retire(state, session).then(() => slot(state, null));
      }
      return new Promise<SmtpSlot>((resolve, reject) => {
        const queue = priority === "interactive" ? state.interactive : state.bulk;
        const waiter: Waiter = {
          takesSession,
          resolve: (s) => {
            signal.removeEventListener("abort", onAbort);
            resolve(s);
          },
        };
        const onAbort = () => {
          const at = queue.indexOf(waiter);
          if (at >= 0) queue.splice(at, 1);
          settle(state);
          const timeout = isTimeoutReason(signal.reason);
          reject(
            new SmtpError(
              timeout ? "SMTP_TIMEOUT" : "SMTP_ABORTED",
              `Cannot probe ${host}: no free connection in time`,
              { cause: signal.reason },
            ),
          );
        };
        if (signal.aborted) return onAbort();
        signal.addEventListener("abort", onAbort, { once: true });
        queue.push(waiter);
        pump(state);
      });
    },
    async drain() {
      for (const state of hosts.values()) {
        for (const { session, timer } of state.idle.splice(0)) {
          clearTimeout(timer);
          void retire(state, session).finally(() => free(state));
        }
      }
      await Promise.all([...closing]);
    },
    usage() {
      const out: Array<{ host: string; open: number; idle: number; waiting: number; interactive: number }> = [];
      for (const [host, state] of hosts) {
        const waiting = state.interactive.length + state.bulk.length;
        if (state.open === 0 && waiting === 0) continue;
        out.push({ host, open: state.open, idle: state.idle.length, waiting, interactive: state.interactive.length });
      }
      return out;
    },
  };
}
