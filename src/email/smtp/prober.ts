// One SMTP dialogue per recipient: EHLO (HELO fallback), MAIL FROM, RCPT TO, then QUIT or RSET, over MX hosts in
// preference order. The prober is the one owner of a checked-out session: when the real recipient is accepted it asks
// the catch-all recipient on the same session (after RSET, or on a fresh connection when RSET is refused) and hands
// both answers back together, so the session is released in one place.
//
// Time: a dialogue's budget (PROBE_TIMEOUT_MS) starts once a connection slot is ours, never while the probe waits
// for one: time spent in our own queue is not the mail server's fault. The caller's signal ends every wait (queue
// included): the single-call deadline, a client that hung up, or a job runner that stops.
//
// Bulk (reuse: true): recipients of one MX host share transactions (issue 13). Each waits in its host's queue; a
// drainer that holds one of the host's connection slots takes every recipient waiting (up to the recipients a
// transaction may hold) and asks them in one transaction: one MAIL FROM, then one RCPT TO each, pipelined when the
// server offers PIPELINING (RFC 2920), the catch-all recipient right after its owner; RSET only between transactions.
// A `452 too many recipients` sends the rest to the next transaction (and the host is asked fewer at a time from
// then on); a connection that drops sends the unanswered ones to a new connection. Each reply has its own budget,
// from the previous reply on: a recipient's wait behind the others of its transaction is queue time, not its own.
import { setMaxListeners } from "node:events";
import type { Logger } from "../../log.ts";
import { deadline, isTimeoutReason, type Deadline } from "../../async/deadline.ts";
import { SmtpError } from "../errors.ts";
import { isProbeTarget, type Cidr } from "../net/cidr.ts";
import type { MxHost } from "../types.ts";
import type { SmtpDialer } from "./dialer.ts";
import { coolOffFor, createMxHealth, type MxHealth } from "./mx_health.ts";
import { quit, type SmtpPool, type SmtpSession, type SmtpSlot } from "./pool.ts";
import { classifyReply, type ReplyCategory, type SmtpReply } from "./reply.ts";

export type ProbeOutcome =
  | { kind: "reply"; category: ReplyCategory; reply: SmtpReply; host: string }
  | { kind: "timeout" }
  | { kind: "unavailable"; why: string };

export interface RecipientProbe {
  /** The answer about the recipient. */
  outcome: ProbeOutcome;
  /** The answer about `catchAllRecipient`, asked only when the recipient was accepted; null when not asked. */
  catchAll: ProbeOutcome | null;
}

export interface ProbeOptions {
  /** Ends every wait of the probe, the wait for a connection slot included. */
  signal: AbortSignal;
  /** Take an idle session of the host if there is one, and leave ours idle afterwards. */
  reuse: boolean;
  /** The recipient has a UTF-8 local part: the server must offer SMTPUTF8. */
  utf8: boolean;
  /** A recipient no real mailbox has, asked right after an accepted recipient (catch-all detection); or null. */
  catchAllRecipient?: string | null;
  /**
   * Answer `timeout` at once for MX hosts that keep timing out (mx_health.ts) instead of tying up their slots for a
   * whole budget each: for bulk work, where many addresses share one mail exchanger.
   */
  skipFailingHosts?: boolean;
  /** Where this probe's lines go (a request's logger, carrying its id); default the prober's. */
  log?: Logger;
}

/** RFC 5321 §4.5.3.1.8: a server must accept at least 100 recipients in a transaction. */
export const DEFAULT_RECIPIENTS_PER_TRANSACTION = 100;

export interface SmtpProber {
  probe(hosts: MxHost[], recipient: string, options: ProbeOptions): Promise<RecipientProbe>;
  stats(): { smtpConnections: number };
  /** Resolves once every connection being closed (QUIT sent) is gone. */
  settled(): Promise<void>;
  /** Bulk recipients waiting in each MX host's queue (metrics). */
  queued?(): Map<string, number>;
}

export interface SmtpProberOptions {
  dialer: SmtpDialer;
  pool: SmtpPool;
  /** Hosts that keep timing out, consulted when a probe asks to skip failing hosts (default: cool-off of 6 budgets). */
  health?: MxHealth;
  port: number;
  heloName: string;
  mailFrom: string;
  probeTimeoutMs: number;
  allow: readonly Cidr[];
  log: Logger;
  /** Bulk: recipients (catch-all probes included) asked in one transaction at most. */
  recipientsPerTransaction?: number;
  /** The pool's connections per host: a host's waiting recipients are shared out over that many transactions. */
  connectionsPerHost?: number;
}

/** A greeted session, and whether its server said PIPELINING in its EHLO reply. */
type Session = SmtpSession & { pipelining?: boolean };

/** A bulk recipient waiting in its host's queue, then part of a transaction, then answered. */
interface Waiting {
  recipient: string;
  utf8: boolean;
  catchAllRecipient: string | null;
  skipFailingHosts: boolean;
  signal: AbortSignal;
  state: "queued" | "taken" | "done";
  /** The transaction it is part of, while taken. */
  transaction: Transaction | null;
  settle(result: HostResult): void;
}

interface Transaction {
  /** Ends the dialogue once every recipient in it is gone (their callers gave up). */
  stop: AbortController;
  members: Waiting[];
}

/** One MX host's queue of bulk recipients. */
interface HostQueue {
  host: MxHost;
  address: string;
  waiting: Waiting[];
  /** The drainer waiting for a connection slot, if any: aborted when the queue empties meanwhile. */
  asking: AbortController | null;
  /** Recipients per transaction: lowered to what the server took when it answers 452 too many recipients. */
  limit: number;
  /** Drainers started and not finished: the queue is forgotten once none is left and nobody waits. */
  drainers: number;
  /** Recipients in transactions right now. */
  asked: number;
}

/** What one MX host said: `final` when it answered about the recipient, otherwise the next host is tried. */
interface HostResult {
  final: boolean;
  outcome: ProbeOutcome;
  catchAll: ProbeOutcome | null;
}

const TIMEOUT: ProbeOutcome = { kind: "timeout" };

/**
 * Calls `fn` when `signal` aborts; returns the unsubscribe. Thousands of bulk recipients wait on one signal (their
 * batch's): each signal gets one listener that fans out, since EventTarget's add and remove cost O(listeners).
 */
const fanOuts = new WeakMap<AbortSignal, { fns: Set<() => void>; fire: () => void }>();
function whenAborted(signal: AbortSignal, fn: () => void): () => void {
  let fan = fanOuts.get(signal);
  if (fan === undefined) {
    const fns = new Set<() => void>();
    const created = {
      fns,
      fire: () => {
        fanOuts.delete(signal);
        for (const f of fns) f();
      },
    };
    fan = created;
    fanOuts.set(signal, created);
    signal.addEventListener("abort", created.fire, { once: true });
  }
  const { fns, fire } = fan;
  fns.add(fn);
  return () => {
    fns.delete(fn);
    if (fns.size === 0 && fanOuts.get(signal) === fan) {
      fanOuts.delete(signal);
      signal.removeEventListener("abort", fire);
    }
  };
}

export function createSmtpProber(options: SmtpProberOptions): SmtpProber {
  const { dialer, pool, port, heloName, mailFrom, probeTimeoutMs, allow, log } = options;
  const { health = createMxHealth({ coolOffMs: coolOffFor(probeTimeoutMs) }) } = options;
  const { recipientsPerTransaction = DEFAULT_RECIPIENTS_PER_TRANSACTION, connectionsPerHost = 3 } = options;
  if (!Number.isInteger(recipientsPerTransaction) || recipientsPerTransaction < 2) {
    throw new RangeError("Cannot create SMTP prober: recipientsPerTransaction must be an integer >= 2");
  }
  const queues = new Map<string, HostQueue>();
  let connections = 0;
  const quitting = new Set<Promise<void>>();

  function fromSmtpError(error: unknown): ProbeOutcome {
    if (!(error instanceof SmtpError)) throw error;
    if (error.code === "SMTP_ABORTED") throw error; // the caller gave up: not an answer about the address
    if (error.code === "SMTP_TIMEOUT") return TIMEOUT;
    return { kind: "unavailable", why: error.code };
  }

  /** Dial, read the banner, EHLO with HELO fallback. A refusal is returned as a host-level outcome. */
  async function open(host: MxHost, address: string, signal: AbortSignal): Promise<Session | HostResult> {
    const target = { host: host.exchange, address, port };
    const conn = await dialer.dial(target, { signal });
    connections++;
    const refused = (reply: SmtpReply, stage: "banner" | "helo"): HostResult => {
      conn.close();
      const outcome: ProbeOutcome = {
        kind: "reply",
        category: classifyReply(reply, { stage }),
        reply,
        host: host.exchange,
      };
      return { final: false, outcome, catchAll: null };
    };
    try {
      const banner = await conn.read({ signal });
      if (banner.code !== 220) return refused(banner, "banner");
      let hello = await conn.command(`EHLO ${heloName}`, { signal });
      let smtpUtf8 = hello.code === 250 && /\bSMTPUTF8\b/i.test(hello.text);
      if (hello.code !== 250) {
        hello = await conn.command(`HELO ${heloName}`, { signal });
        smtpUtf8 = false;
      }
      if (hello.code !== 250) return refused(hello, "helo");
      return { conn, target, smtpUtf8, pipelining: /\bPIPELINING\b/i.test(hello.text) };
    } catch (error) {
      conn.close();
      throw error;
    }
  }

  /** MAIL FROM + RCPT TO on a greeted session; `final` when the server answered about the recipient. */
  async function transaction(
    session: SmtpSession,
    recipient: string,
    { utf8, signal }: { utf8: boolean; signal: AbortSignal },
  ): Promise<{ final: boolean; outcome: ProbeOutcome }> {
    const host = session.target.host;
    if (utf8 && !session.smtpUtf8) return { final: true, outcome: { kind: "unavailable", why: "no SMTPUTF8" } };
    const mail = await session.conn.command(`MAIL FROM:<${mailFrom}>${utf8 ? " SMTPUTF8" : ""}`, { signal });
    if (mail.code !== 250) {
      return {
        final: false,
        outcome: { kind: "reply", category: classifyReply(mail, { stage: "mail" }), reply: mail, host },
      };
    }
    const rcpt = await session.conn.command(`RCPT TO:<${recipient}>`, { signal });
    return { final: true, outcome: { kind: "reply", category: classifyReply(rcpt), reply: rcpt, host } };
  }

  /** RSET on a session that served a transaction; false when the server refuses it or the session died. */
  async function reset(session: SmtpSession, signal: AbortSignal): Promise<boolean> {
    const rset = await session.conn.command("RSET", { signal }).catch(() => null);
    return rset !== null && rset.code === 250;
  }

  /** Gives the slot back: the session stays idle for the next recipient, or is QUIT first. */
  function finish(slot: SmtpSlot, session: SmtpSession | null, keep: boolean): void {
    if (session === null) {
      slot.release(null, { keep: false });
      return;
    }
    if (keep && !session.conn.closed) {
      slot.release(session, { keep: true });
      return;
    }
    // The permit comes back only once the connection is really gone, so the per-host limit holds.
    const done = quit(session).finally(() => {
      slot.release(null, { keep: false });
      quitting.delete(done);
    });
    quitting.add(done);
  }

  /** The catch-all recipient on the session that just accepted the real one; null when the session cannot serve it. */
  async function catchAllOnSession(
    session: SmtpSession,
    recipient: string,
    signal: AbortSignal,
  ): Promise<ProbeOutcome | null> {
    if (!(await reset(session, signal))) return null;
    const { final, outcome } = await transaction(session, recipient, { utf8: false, signal });
    return final ? outcome : null;
  }

  /** One MX host: a slot (waiting in the queue on the caller's signal only), then a dialogue on its own budget. */
  async function attempt(host: MxHost, address: string, recipient: string, options: ProbeOptions): Promise<HostResult> {
    const slot = await pool.acquire(host.exchange, { signal: options.signal, reuse: options.reuse });
    // The host may have been found failing while this probe waited for its slot.
    if (options.skipFailingHosts && health.failing(host.exchange)) {
      finish(slot, slot.session, options.reuse);
      return { final: false, outcome: TIMEOUT, catchAll: null };
    }
    const dialogue = deadline(probeTimeoutMs, { parents: [options.signal], what: `probe ${host.exchange}` });
    const signal = dialogue.signal;
    let session: SmtpSession | null = slot.session;
    try {
      for (let round = 0; round < 2; round++) {
        if (session !== null && round === 0 && !(await reset(session, signal))) {
          session.conn.close();
          session = null;
        }
        const reused = session !== null;
        if (session === null) {
          const opened = await open(host, address, signal);
          if ("final" in opened) {
            health.answered(host.exchange);
            finish(slot, null, false);
            return opened;
          }
          session = opened;
        }
        const { final, outcome } = await transaction(session, recipient, { utf8: options.utf8, signal });
        health.answered(host.exchange);
        // A server that refuses one more recipient on a reused connection gets a fresh one.
        if (reused && outcome.kind === "reply" && outcome.category === "too_many_recipients") {
          void quit(session);
          session = null;
          continue;
        }
        const accepted = final && outcome.kind === "reply" && outcome.category === "accepted";
        let catchAll: ProbeOutcome | null = null;
        if (accepted && options.catchAllRecipient) {
          catchAll = await catchAllOnSession(session, options.catchAllRecipient, signal).catch(fromSmtpError);
          // A session that could not serve it is not reused.
          if (catchAll === null || catchAll.kind !== "reply") session.conn.close();
        }
        finish(slot, session, options.reuse && final);
        session = null;
        return { final, outcome, catchAll };
      }
      finish(slot, null, false);
      return { final: true, outcome: { kind: "unavailable", why: "too many recipients" }, catchAll: null };
    } catch (error) {
      if (session !== null) session.conn.close();
      slot.release(null, { keep: false });
      const outcome = fromSmtpError(error);
      if (outcome.kind === "timeout" && !options.signal.aborted) health.timedOut(host.exchange);
      return { final: false, outcome, catchAll: null };
    } finally {
      dialogue.dispose();
    }
  }

  // ---- Bulk: recipients of one host share transactions ----

  function abortError(host: string, signal: AbortSignal): SmtpError {
    const timeout = isTimeoutReason(signal.reason);
    return new SmtpError(timeout ? "SMTP_TIMEOUT" : "SMTP_ABORTED", `Cannot probe ${host}: no answer in time`, {
      cause: signal.reason,
    });
  }

  /** One host's answer for a bulk recipient: it waits in the host's queue until a drainer asks it. */
  function queued(host: MxHost, address: string, recipient: string, options: ProbeOptions): Promise<HostResult> {
    const { signal } = options;
    return new Promise<HostResult>((resolve, reject) => {
      if (signal.aborted) return reject(abortError(host.exchange, signal));
      let queue = queues.get(host.exchange);
      if (queue === undefined) {
        queue = { host, address, waiting: [], asking: null, limit: recipientsPerTransaction, drainers: 0, asked: 0 };
        queues.set(host.exchange, queue);
      }
      const q = queue;
      const onAbort = () => {
        if (waiting.state === "queued") {
          q.waiting.splice(q.waiting.indexOf(waiting), 1);
          if (q.waiting.length === 0) q.asking?.abort();
        }
        const transaction = waiting.transaction;
        waiting.state = "done";
        if (transaction?.members.every((m) => m.state === "done")) transaction.stop.abort();
        reject(abortError(host.exchange, signal));
      };
      const waiting: Waiting = {
        recipient,
        utf8: options.utf8,
        catchAllRecipient: options.catchAllRecipient ?? null,
        skipFailingHosts: options.skipFailingHosts ?? false,
        signal,
        state: "queued",
        transaction: null,
        settle(result) {
          if (waiting.state === "done") return;
          waiting.state = "done";
          unsubscribe();
          resolve(result);
        },
      };
      const unsubscribe = whenAborted(signal, onAbort);
      q.waiting.push(waiting);
      kick(q);
    });
  }

  /** Starts a drainer for the host unless one is already waiting for a slot (it will take what is queued). */
  function kick(q: HostQueue): void {
    if (q.waiting.length === 0 || q.asking !== null) return;
    q.drainers++;
    void drain(q).finally(() => {
      q.drainers--;
      if (q.drainers === 0 && q.waiting.length === 0 && queues.get(q.host.exchange) === q) {
        queues.delete(q.host.exchange);
      }
    });
  }

  /**
   * The recipients of the next transaction: the host's share of those waiting (spread over its connections, so that
   * they all work at once), at most as many as a transaction holds, catch-all probes counted.
   */
  function take(q: HostQueue): Waiting[] {
    const batch: Waiting[] = [];
    const share = Math.max(1, Math.ceil((q.waiting.length + q.asked) / connectionsPerHost));
    let lines = 0;
    while (q.waiting.length > 0 && batch.length < share) {
      const next = q.waiting[0]!;
      const cost = next.catchAllRecipient ? 2 : 1;
      if (batch.length > 0 && lines + cost > q.limit) break;
      q.waiting.shift();
      next.state = "taken";
      batch.push(next);
      lines += cost;
    }
    return batch;
  }

  /** Puts recipients back at the head of the queue, in order, for the next transaction or connection. */
  function requeue(q: HostQueue, rest: Waiting[]): void {
    const back = rest.filter((w) => w.state === "taken");
    for (const w of back) {
      w.state = "queued";
      w.transaction = null;
    }
    q.waiting.unshift(...back);
  }

  /** Holds one connection slot of the host for as long as recipients wait, one transaction after another. */
  async function drain(q: HostQueue): Promise<void> {
    const asking = new AbortController();
    q.asking = asking;
    let slot: SmtpSlot;
    try {
      slot = await pool.acquire(q.host.exchange, { signal: asking.signal, reuse: true });
    } catch {
      return; // every recipient it was for gave up
    } finally {
      if (q.asking === asking) q.asking = null;
    }
    let session: Session | null = slot.session;
    let keep = true;
    try {
      for (;;) {
        const batch = take(q);
        if (batch.length === 0) break;
        kick(q); // recipients still waiting get a drainer of their own, on another slot
        const failing = health.failing(q.host.exchange);
        const asked = batch.filter((w) => {
          if (!(failing && w.skipFailingHosts)) return true;
          w.settle({ final: false, outcome: TIMEOUT, catchAll: null });
          return false;
        });
        if (asked.length === 0) continue;
        q.asked += asked.length;
        const next = await transact(q, session, asked).finally(() => {
          q.asked -= asked.length;
        });
        session = next;
        if (session === null) {
          keep = false;
          break;
        }
      }
    } finally {
      finish(slot, session, keep && session !== null);
      kick(q);
    }
  }

  /**
   * One transaction for `batch` on `session` (RSET first when it served one before) or on a new connection. Settles
   * every recipient it answers, puts back the others; returns the session when it can serve the next transaction.
   */
  async function transact(q: HostQueue, reused: Session | null, batch: Waiting[]): Promise<Session | null> {
    const host = q.host.exchange;
    const stop = new AbortController();
    const transaction: Transaction = { stop, members: batch };
    for (const w of batch) w.transaction = transaction;
    // Every command of the transaction listens to `roll`; each awaited reply arms its own budget, which aborts it.
    const roll = new AbortController();
    let budget = null as Deadline | null;
    const arm = () => {
      budget?.dispose();
      const limit = deadline(probeTimeoutMs, { parents: [stop.signal], what: `probe ${host}` });
      limit.signal.addEventListener("abort", () => roll.abort(limit.signal.reason), { once: true });
      budget = limit;
    };
    setMaxListeners(0, roll.signal); // one listener per pipelined reply
    const signal = roll.signal;
    let session: Session | null = reused;
    let answered = 0;
    let current = 0; // index in batch of the recipient whose reply is awaited
    // An accepted recipient waiting for the reply about its catch-all recipient.
    let owner: { w: Waiting; outcome: ProbeOutcome } | null = null;
    const rest = () => batch.slice(current);
    try {
      arm();
      if (session !== null && !(await reset(session, signal))) {
        session.conn.close();
        session = null;
      }
      const fresh = session === null;
      if (session === null) {
        const opened = await open(q.host, q.address, signal);
        if ("final" in opened) {
          health.answered(host);
          for (const w of batch) w.settle(opened);
          return null;
        }
        session = opened;
      }
      const live = session;
      const asked = batch.filter((w) => {
        if (!w.utf8 || live.smtpUtf8) return true;
        w.settle({ final: true, outcome: { kind: "unavailable", why: "no SMTPUTF8" }, catchAll: null });
        return false;
      });
      batch = asked;
      if (batch.length === 0) return live;
      arm();
      const utf8 = batch.some((w) => w.utf8);
      const mail = await live.conn.command(`MAIL FROM:<${mailFrom}>${utf8 ? " SMTPUTF8" : ""}`, { signal });
      if (mail.code !== 250) {
        health.answered(host);
        const outcome: ProbeOutcome = {
          kind: "reply",
          category: classifyReply(mail, { stage: "mail" }),
          reply: mail,
          host,
        };
        for (const w of batch) w.settle({ final: false, outcome, catchAll: null });
        live.conn.close();
        return null;
      }
      // The lines, in order: each recipient, and its catch-all recipient right after it.
      const lines: Array<{ w: Waiting; catchAll: boolean }> = [];
      for (const w of batch) {
        lines.push({ w, catchAll: false });
        if (w.catchAllRecipient) lines.push({ w, catchAll: true });
      }
      const command = (line: { w: Waiting; catchAll: boolean }) =>
        live.conn.command(`RCPT TO:<${line.catchAll ? line.w.catchAllRecipient : line.w.recipient}>`, { signal });
      // Pipelined: every RCPT goes at once, the replies are read in order.
      const sent = live.pipelining ? lines.map(command) : null;
      for (const p of sent ?? []) p.catch(() => {}); // read below, or dropped with the connection
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i]!;
        current = batch.indexOf(line.w);
        if (line.catchAll) {
          const accepted = owner!.outcome.kind === "reply" && owner!.outcome.category === "accepted";
          if (!accepted && sent === null) {
            owner!.w.settle({ final: true, outcome: owner!.outcome, catchAll: null });
            owner = null;
            continue; // not asked: only an accepted recipient needs it
          }
          arm();
          const reply = await (sent?.[i] ?? command(line));
          const catchAll: ProbeOutcome = { kind: "reply", category: classifyReply(reply), reply, host };
          owner!.w.settle({ final: true, outcome: owner!.outcome, catchAll: accepted ? catchAll : null });
          owner = null;
          continue;
        }
        if (owner !== null) owner.w.settle({ final: true, outcome: owner.outcome, catchAll: null });
        owner = null;
        arm();
        const reply = await (sent?.[i] ?? command(line));
        health.answered(host);
        const category = classifyReply(reply);
        if (category === "too_many_recipients") {
          // RFC 5321 §4.5.3.1.10: the rest goes in the next transaction; the host takes this many from now on.
          if (answered === 0) {
            if (!fresh) {
              requeue(q, rest());
              live.conn.close();
              return null;
            }
            line.w.settle({
              final: true,
              outcome: { kind: "unavailable", why: "too many recipients" },
              catchAll: null,
            });
            current++;
          } else q.limit = Math.max(1, Math.min(q.limit, answered));
          requeue(q, rest());
          // Replies still due for pipelined lines are read by their own promises before RSET's.
          return live;
        }
        answered++;
        owner = { w: line.w, outcome: { kind: "reply", category, reply, host } };
        if (!line.w.catchAllRecipient) {
          line.w.settle({ final: true, outcome: owner.outcome, catchAll: null });
          owner = null;
        }
      }
      return live;
    } catch (error) {
      session?.conn.close();
      if (!(error instanceof SmtpError)) {
        for (const w of batch)
          w.settle({ final: false, outcome: { kind: "unavailable", why: String(error) }, catchAll: null });
        return null;
      }
      if (error.code === "SMTP_ABORTED" || stop.signal.aborted) return null; // every caller gave up
      // An owner whose catch-all reply was lost keeps its own answer; probe() asks the catch-all anew.
      if (owner !== null) {
        owner.w.settle({ final: true, outcome: owner.outcome, catchAll: null });
        current++;
      }
      const stuck = batch[current];
      if (stuck !== undefined && stuck.state === "taken" && answered > 0 && error.code !== "SMTP_TIMEOUT") {
        requeue(q, rest()); // progress was made: the rest goes to a new connection
        return null;
      }
      const outcome = fromSmtpError(error);
      if (outcome.kind === "timeout") health.timedOut(host);
      stuck?.settle({ final: false, outcome, catchAll: null });
      requeue(q, batch.slice(current + 1));
      // Recipients before `current` were answered; any left taken (none should be) go back too.
      requeue(q, batch.slice(0, current));
      return null;
    } finally {
      budget?.dispose();
      for (const w of batch) if (w.transaction === transaction) w.transaction = null;
    }
  }

  async function probeHosts(hosts: MxHost[], recipient: string, options: ProbeOptions): Promise<RecipientProbe> {
    const failures: ProbeOutcome[] = [];
    const lines = options.log ?? log;
    for (const host of hosts) {
      const address = host.addresses.find((a) => isProbeTarget(a, allow));
      if (address === undefined) {
        lines.warn("smtp probe target refused", { mx: host.exchange, addresses: host.addresses });
        failures.push({ kind: "unavailable", why: "target refused" });
        continue;
      }
      if (options.skipFailingHosts && health.failing(host.exchange)) {
        failures.push(TIMEOUT);
        continue;
      }
      let result: HostResult;
      const started = performance.now();
      try {
        result = options.reuse
          ? await queued(host, address, recipient, options)
          : await attempt(host, address, recipient, options);
      } catch (error) {
        failures.push(fromSmtpError(error)); // no free slot before the caller's deadline
        break;
      }
      // What the host said about the recipient (never who the recipient is), slot wait included.
      const { outcome } = result;
      lines.debug("smtp probe", {
        mx: host.exchange,
        address,
        outcome: outcome.kind === "reply" ? outcome.category : outcome.kind,
        code: outcome.kind === "reply" ? outcome.reply.code : undefined,
        why: outcome.kind === "unavailable" ? outcome.why : undefined,
        final: result.final,
        ms: Math.round(performance.now() - started),
      });
      if (result.final) return { outcome: result.outcome, catchAll: result.catchAll };
      failures.push(result.outcome);
      if (options.signal.aborted) break;
    }
    // No host gave a recipient answer: a reply from a host says most, then a timeout, then plain unavailability.
    const outcome = failures.find((f) => f.kind === "reply") ??
      failures.find((f) => f.kind === "timeout") ??
      failures[0] ?? { kind: "unavailable", why: "no MX host" };
    return { outcome, catchAll: null };
  }

  return {
    async probe(hosts, recipient, options) {
      const result = await probeHosts(hosts, recipient, options);
      const { catchAllRecipient } = options;
      const accepted = result.outcome.kind === "reply" && result.outcome.category === "accepted";
      if (!accepted || !catchAllRecipient || result.catchAll !== null) return result;
      // The accepting session could not ask the catch-all recipient (RSET refused, dropped): a fresh dialogue does.
      const fresh = await probeHosts(hosts, catchAllRecipient, { ...options, utf8: false, catchAllRecipient: null });
      return { outcome: result.outcome, catchAll: fresh.outcome };
    },

    stats: () => ({ smtpConnections: connections }),

    queued: () => new Map([...queues].map(([host, q]) => [host, q.waiting.length])),

    async settled() {
      await Promise.all([...quitting]);
    },
  };
}
