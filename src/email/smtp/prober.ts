// One SMTP dialogue per recipient: EHLO (HELO fallback), MAIL FROM, RCPT TO, QUIT, over MX hosts in preference
// order. Each dialogue has its own PROBE_TIMEOUT_MS budget; the caller's signal carries the overall deadline.
import type { Logger } from "../../log.ts";
import { SmtpError } from "../errors.ts";
import { isProbeTarget, type Cidr } from "../net/cidr.ts";
import type { MxHost } from "../types.ts";
import type { SmtpDialer } from "./dialer.ts";
import { quit, type SmtpPool, type SmtpSession, type SmtpSlot } from "./pool.ts";
import { classifyReply, type ReplyCategory, type SmtpReply } from "./reply.ts";

export type ProbeOutcome =
  | { kind: "reply"; category: ReplyCategory; reply: SmtpReply; host: string }
  | { kind: "timeout" }
  | { kind: "unavailable"; why: string };

/** The session the real recipient was accepted on, still checked out so the catch-all probe can follow (RSET). */
export interface HeldSession {
  slot: SmtpSlot;
  session: SmtpSession;
  hosts: MxHost[];
}

export interface RecipientProbe {
  outcome: ProbeOutcome;
  held: HeldSession | null;
}

export interface ProbeOptions {
  signal: AbortSignal;
  /** Take an idle session of the host if there is one, and leave ours idle afterwards. */
  reuse: boolean;
  /** Keep the session checked out when the recipient is accepted (for the catch-all probe). */
  hold: boolean;
  /** The recipient has a UTF-8 local part: the server must offer SMTPUTF8. */
  utf8: boolean;
}

export interface SmtpProber {
  probe(hosts: MxHost[], recipient: string, options: ProbeOptions): Promise<RecipientProbe>;
  /** Another recipient on a held session after RSET; null when the server refuses RSET or the session died. */
  probeAgain(held: HeldSession, recipient: string, options: { signal: AbortSignal; utf8: boolean }): Promise<ProbeOutcome | null>;
  /** Gives a held session back (kept idle when reuse is on and it is healthy). */
  release(held: HeldSession, options: { keep: boolean }): void;
  stats(): { smtpConnections: number };
  /** Resolves once every connection being closed (QUIT sent) is gone. */
  settled(): Promise<void>;
}

export interface SmtpProberOptions {
  dialer: SmtpDialer;
  pool: SmtpPool;
  port: number;
  heloName: string;
  mailFrom: string;
  probeTimeoutMs: number;
  allow: readonly Cidr[];
  log: Logger;
}

/** Non-final result of one host: the next MX host is tried. */
interface HostFailure {
  final: false;
  outcome: ProbeOutcome;
}

export function createSmtpProber(options: SmtpProberOptions): SmtpProber {
  const { dialer, pool, port, heloName, mailFrom, probeTimeoutMs, allow, log } = options;
  let connections = 0;
  const quitting = new Set<Promise<void>>();

  function dialogueSignal(signal: AbortSignal): AbortSignal {
    return AbortSignal.any([signal, AbortSignal.timeout(probeTimeoutMs)]);
  }

  function fromSmtpError(error: unknown): ProbeOutcome {
    if (!(error instanceof SmtpError)) throw error;
    if (error.code === "SMTP_ABORTED") throw error; // the caller gave up: not an answer about the address
    if (error.code === "SMTP_TIMEOUT") return { kind: "timeout" };
    return { kind: "unavailable", why: error.code };
  }

  /** Dial, read the banner, EHLO with HELO fallback. A refusal is returned as a host-level outcome. */
  async function open(host: MxHost, address: string, signal: AbortSignal): Promise<SmtpSession | HostFailure> {
    const target = { host: host.exchange, address, port };
    const conn = await dialer.dial(target, { signal });
    connections++;
    try {
      const banner = await conn.read({ signal });
      if (banner.code !== 220) {
        conn.close();
        return { final: false, outcome: { kind: "reply", category: classifyReply(banner, { stage: "banner" }), reply: banner, host: host.exchange } };
      }
      let hello = await conn.command(`EHLO ${heloName}`, { signal });
      let smtpUtf8 = hello.code === 250 && /\bSMTPUTF8\b/i.test(hello.text);
      if (hello.code !== 250) {
        hello = await conn.command(`HELO ${heloName}`, { signal });
        smtpUtf8 = false;
      }
      if (hello.code !== 250) {
        conn.close();
        return { final: false, outcome: { kind: "reply", category: classifyReply(hello, { stage: "helo" }), reply: hello, host: host.exchange } };
      }
      return { conn, target, smtpUtf8 };
    } catch (error) {
      conn.close();
      throw error;
    }
  }

  /** MAIL FROM + RCPT TO on a greeted session. */
  async function transaction(
    session: SmtpSession,
    recipient: string,
    { utf8, signal }: { utf8: boolean; signal: AbortSignal },
  ): Promise<ProbeOutcome & { final: boolean }> {
    const host = session.target.host;
    if (utf8 && !session.smtpUtf8) return { kind: "unavailable", why: "no SMTPUTF8", final: true };
    const mail = await session.conn.command(`MAIL FROM:<${mailFrom}>${utf8 ? " SMTPUTF8" : ""}`, { signal });
    if (mail.code !== 250) {
      return { kind: "reply", category: classifyReply(mail, { stage: "mail" }), reply: mail, host, final: false };
    }
    const rcpt = await session.conn.command(`RCPT TO:<${recipient}>`, { signal });
    return { kind: "reply", category: classifyReply(rcpt), reply: rcpt, host, final: true };
  }

  function finish(slot: SmtpSlot, session: SmtpSession | null, keep: boolean): void {
    if (session === null) return slot.release(null, { keep: false });
    if (keep && !session.conn.closed) return slot.release(session, { keep: true });
    // The permit comes back only once the connection is really gone, so the per-host limit holds.
    const done = quit(session).finally(() => {
      slot.release(null, { keep: false });
      quitting.delete(done);
    });
    quitting.add(done);
  }

  async function attempt(target: { host: MxHost; address: string }, recipient: string, options: ProbeOptions) {
    const { host, address } = target;
    const slot = await pool.acquire(host.exchange, { signal: options.signal, reuse: options.reuse });
    const signal = dialogueSignal(options.signal);
    let session: SmtpSession | null = slot.session;
    try {
      for (let round = 0; round < 2; round++) {
        if (session !== null && round === 0 && slot.session !== null) {
          const rset = await session.conn.command("RSET", { signal }).catch(() => null);
          if (rset === null || rset.code !== 250) {
            session.conn.close();
            session = null;
          }
        }
        const reused = session !== null;
        if (session === null) {
          const opened = await open(host, address, signal);
          if ("final" in opened) return { ...opened, held: null };
          session = opened;
        }
        const outcome = await transaction(session, recipient, { utf8: options.utf8, signal });
        // A server that refuses one more recipient on a reused connection gets a fresh one.
        if (reused && outcome.kind === "reply" && outcome.category === "too_many_recipients") {
          void quit(session);
          session = null;
          continue;
        }
        const { final, ...result } = outcome;
        if (final && options.hold && result.kind === "reply" && result.category === "accepted") {
          return { final, outcome: result as ProbeOutcome, held: { slot, session, hosts: [] as MxHost[] } };
        }
        finish(slot, session, options.reuse && final);
        session = null;
        return { final, outcome: result as ProbeOutcome, held: null };
      }
      finish(slot, null, false);
      return { final: true, outcome: { kind: "unavailable", why: "too many recipients" } as ProbeOutcome, held: null };
    } catch (error) {
      if (session !== null) session.conn.close();
      slot.release(null, { keep: false });
      return { final: false, outcome: fromSmtpError(error), held: null };
    }
  }

  return {
    async probe(hosts, recipient, options) {
      const failures: ProbeOutcome[] = [];
      for (const host of hosts) {
        const address = host.addresses.find((a) => isProbeTarget(a, allow));
        if (address === undefined) {
          log.warn("smtp probe target refused", { mx: host.exchange, addresses: host.addresses });
          failures.push({ kind: "unavailable", why: "target refused" });
          continue;
        }
        let result;
        try {
          result = await attempt({ host, address }, recipient, options);
        } catch (error) {
          failures.push(fromSmtpError(error)); // no free slot before the deadline
          break;
        }
        if (result.held !== null) result.held.hosts = hosts;
        if (result.final) return { outcome: result.outcome, held: result.held };
        failures.push(result.outcome);
        if (options.signal.aborted) break;
      }
      // No host gave a recipient answer: a reply from a host says most, then a timeout, then plain unavailability.
      const outcome =
        failures.find((f) => f.kind === "reply") ??
        failures.find((f) => f.kind === "timeout") ??
        failures[0] ?? { kind: "unavailable", why: "no MX host" };
      return { outcome, held: null };
    },

    async probeAgain(held, recipient, { signal: outer, utf8 }) {
      const signal = dialogueSignal(outer);
      try {
        const rset = await held.session.conn.command("RSET", { signal });
        if (rset.code !== 250) return null;
        const { final, ...outcome } = await transaction(held.session, recipient, { utf8, signal });
        return outcome as ProbeOutcome;
      } catch (error) {
        const outcome = fromSmtpError(error);
        return outcome.kind === "timeout" ? outcome : null;
      }
    },

    release(held, { keep }) {
      finish(held.slot, held.session, keep);
    },

    stats: () => ({ smtpConnections: connections }),

    async settled() {
      await Promise.all([...quitting]);
    },
  };
}
