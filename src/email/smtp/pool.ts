// Per-MX-host connection slots. At most `maxPerHost` connections to one MX host are open at any time (busy or idle),
// so a bulk job never floods a mail exchanger, and idle connections can be handed to the next recipient of the same
// host (verifyMany's connection reuse). A slot is a permit, with an idle session when one could be reused.
import { deadline, isTimeoutReason } from "../../async/deadline.ts";
import { SmtpError } from "../errors.ts";
import type { SmtpConnection, SmtpTarget } from "./dialer.ts";

/** A greeted connection: banner read, EHLO/HELO accepted. */
export interface SmtpSession {
  conn: SmtpConnection;
  target: SmtpTarget;
  smtpUtf8: boolean;
}

export interface SmtpSlot {
  /** An idle greeted session to reuse (send RSET first), or null: dial a new one under this slot. */
  readonly session: SmtpSession | null;
  /** Gives the slot back. keep: the session is healthy and may serve the next recipient of this host. */
  release(session: SmtpSession | null, options: { keep: boolean }): void;
}

export interface SmtpPool {
  acquire(host: string, options: { signal: AbortSignal; reuse: boolean }): Promise<SmtpSlot>;
  /** QUITs every idle session. */
  drain(): Promise<void>;
  /** Per host with a connection or a waiter: open connections (busy or idle), idle ones, callers waiting (metrics). */
  usage(): Array<{ host: string; open: number; idle: number; waiting: number }>;
}

interface Waiter {
  reuse: boolean;
  resolve: (slot: SmtpSlot) => void;
}

interface HostState {
  open: number;
  idle: Array<{ session: SmtpSession; timer: NodeJS.Timeout }>;
  waiters: Waiter[];
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
}

export function createSmtpPool(options: SmtpPoolOptions): SmtpPool {
  const { maxPerHost, idleMs = 2000 } = options;
  if (!Number.isInteger(maxPerHost) || maxPerHost < 1) {
    throw new RangeError("Cannot create SMTP pool: maxPerHost must be a positive integer");
  }
  const hosts = new Map<string, HostState>();
  const closing = new Set<Promise<void>>();

  function stateOf(host: string): HostState {
    let state = hosts.get(host);
    if (state === undefined) hosts.set(host, (state = { open: 0, idle: [], waiters: [] }));
    return state;
  }

  function retire(_state: HostState, session: SmtpSession): Promise<void> {
    const done = quit(session);
    closing.add(done);
    return done.finally(() => closing.delete(done));
  }

  function slot(state: HostState, session: SmtpSession | null): SmtpSlot {
    let released = false;
    return {
      session,
      release(current, { keep }) {
        if (released) return;
        released = true;
        if (keep && current !== null && !current.conn.closed) {
          const waiter = state.waiters.shift();
          if (waiter !== undefined) {
            if (waiter.reuse) return waiter.resolve(slot(state, current));
            // The waiter dials only once this session is gone: never one connection over the limit.
            void retire(state, current).then(() => waiter.resolve(slot(state, null)));
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
    const waiter = state.waiters.shift();
    if (waiter !== undefined) waiter.resolve(slot(state, null));
    else state.open--;
  }

  return {
    acquire(host, { signal, reuse }) {
      const state = stateOf(host);
      if (reuse && state.idle.length > 0) {
        const { session, timer } = state.idle.pop()!;
        clearTimeout(timer);
        return Promise.resolve(slot(state, session));
      }
      if (state.open < maxPerHost) {
        state.open++;
        return Promise.resolve(slot(state, null));
      }
      if (state.idle.length > 0) {
        // A caller that will not reuse takes the permit of an idle session.
        const { session, timer } = state.idle.shift()!;
        clearTimeout(timer);
        return retire(state, session).then(() => slot(state, null));
      }
      return new Promise<SmtpSlot>((resolve, reject) => {
        const waiter: Waiter = {
          reuse,
          resolve: (s) => {
            signal.removeEventListener("abort", onAbort);
            resolve(s);
          },
        };
        const onAbort = () => {
          const at = state.waiters.indexOf(waiter);
          if (at >= 0) state.waiters.splice(at, 1);
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
        state.waiters.push(waiter);
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
      const out: Array<{ host: string; open: number; idle: number; waiting: number }> = [];
      for (const [host, state] of hosts) {
        if (state.open === 0 && state.waiters.length === 0) continue;
        out.push({ host, open: state.open, idle: state.idle.length, waiting: state.waiters.length });
      }
      return out;
    },
  };
}
