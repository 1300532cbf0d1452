// One SMTP dialogue per recipient: EHLO (HELO fallback), MAIL FROM, RCPT TO, then QUIT or RSET, over MX hosts in
// preference order. The prober is the one owner of a checked-out session: when the real recipient is accepted it asks
// the catch-all recipient on the same session (after RSET, or on a fresh connection when RSET is refused) and hands
// both answers back together, so the session is released in one place.
//
// Time: a dialogue's budget (PROBE_TIMEOUT_MS) starts once a connection slot is ours, never while the probe waits
// for one: time spent in our own queue is not the mail server's fault. The caller's signal ends every wait (queue
// included): the single-call deadline, a client that hung up, or a job runner that stops.
//
// Bulk (reuse: true): recipients of one MX host share transactions (docs/decisions.md, "Bulk jobs"). Each waits in its host's queue; a
// drainer that holds one of the host's connection slots asks them in one transaction: one MAIL FROM, then one RCPT TO
// each, pipelined when the server offers PIPELINING (RFC 2920), the catch-all recipient right after its owner. The
// host's connections pull from its queue as they go, so that they share its recipients and end together: without
// PIPELINING (and before the greeting tells) a connection takes one recipient, and the next one waiting joins once it
// is answered; with PIPELINING it takes its share of those waiting (spread over the host's connections), and more join
// once PIPELINE_LOW_WATER lines or fewer are unanswered, so the server has the next lines before it answers the last.
// A transaction stays open after its recipients are answered: recipients that arrive later (the next chunk of a job)
// are added to it with more RCPT TO, on whichever drainer holds the session next, with no RSET and no new MAIL FROM;
// RSET comes only when the transaction is full (recipients per transaction), after a 452, or when a UTF-8 recipient
// needs MAIL FROM ... SMTPUTF8.
// A `452 too many recipients` sends the rest to the next transaction (and the host is asked fewer at a time from
// then on); a connection that drops sends the unanswered ones to a new connection. Each reply has its own budget,
// from the previous reply on: a recipient's wait behind the others of its transaction is queue time, not its own.
//
// Interactive before bulk: a single call or a signup asks its slot with priority "interactive" (pool.ts serves it
// before every bulk waiter). While it waits, bulk work stops taking recipients onto the host's connections: a drainer
// gives its slot (and its greeted session) to the call at its next recipient boundary, and the recipients left waiting
// get a new drainer, which waits for a slot behind the call.
import { setMaxListeners } from "node:events";
import type { Logger } from "../../log.ts";
import { deadline, isTimeoutReason, timeoutReason } from "../../async/deadline.ts";
import { SmtpError } from "../errors.ts";
import { isProbeTarget, type Cidr } from "../net/cidr.ts";
import type { MxHost } from "../types.ts";
import type { SmtpDialer } from "./dialer.ts";
import { coolOffFor, createMxHealth, type MxHealth } from "./mx_health.ts";
import { quit, type SlotPriority, type SmtpPool, type SmtpSession, type SmtpSlot } from "./pool.ts";
import type { ProbeOutcome } from "./probe_outcome.ts";
import { classifyReply, type SmtpReply } from "./reply.ts";

export type { ProbeOutcome } from "./probe_outcome.ts";

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
  /**
   * "interactive" for a single call or a signup: its slot comes before any bulk work's, and bulk work on the host
   * gives a slot up for it at the next recipient. Default "bulk".
   */
  priority?: SlotPriority;
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

/**
 * Bulk, on a server with PIPELINING: once this few RCPT TO lines are left unanswered on a connection, recipients
 * waiting for its host join the transaction, so that the server has the next lines before it answers the last ones.
 */
const PIPELINE_LOW_WATER = 8;

/**
 * Bulk, on a server with PIPELINING: the RCPT TO lines out ahead of their replies are what that server answers in
 * about this long (at least two, and this many before its pace is known): enough to keep a fast server busy across a
 * round trip, few enough that a single call waiting for the connection gets it within about one RCPT exchange.
 */
const PIPELINE_AHEAD_MS = 300;
const PIPELINE_FIRST_WINDOW = 4;

/** How many lines may be out unanswered on `session`, from the pace its server answered at so far. */
function pipelineWindow(session: Session, limit: number): number {
  if (session.replyMs === undefined) return PIPELINE_FIRST_WINDOW;
  return Math.min(limit, Math.max(2, Math.ceil(PIPELINE_AHEAD_MS / Math.max(session.replyMs, 0.01))));
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

/**
 * A greeted session, whether its server said PIPELINING in its EHLO reply, and the bulk transaction open on it (MAIL
 * FROM accepted, no RSET since), which the next recipients of the host join.
 */
type Session = SmtpSession & { pipelining?: boolean; open?: OpenTransaction | null; replyMs?: number };

/** A transaction left open on a session: later recipients join it while it has room. */
interface OpenTransaction {
  /** MAIL FROM carried SMTPUTF8. */
  utf8: boolean;
  /** RCPT TO lines sent in it (catch-all probes included). */
  lines: number;
  /** Recipients the server took into it (any reply but 452). */
  answered: number;
  /** No more recipients may join (a 452 came, or replies to pipelined lines after it): RSET first. */
  full: boolean;
}

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

/** The host would not take the connection (refused, unreachable): a refusal of us, as a 421 greeting is. */
const connectRefused = (error: unknown) => error instanceof SmtpError && error.code === "SMTP_CONNECT";

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
    const priority = options.priority ?? "bulk";
    const slot = await pool.acquire(host.exchange, { signal: options.signal, reuse: options.reuse, priority });
    // The host may have been found failing while this probe waited for its slot.
    if (options.skipFailingHosts && health.failing(host.exchange)) {
      finish(slot, slot.session, options.reuse);
      return { final: false, outcome: health.skipped(host.exchange), catchAll: null };
    }
    const dialogue = deadline(probeTimeoutMs, { parents: [options.signal], what: `probe ${host.exchange}` });
    const signal = dialogue.signal;
    let session: Session | null = slot.session;
    try {
      for (let round = 0; round < 2; round++) {
        if (session !== null && round === 0) {
          // A session handed over by bulk work may have its transaction open: RSET ends it.
          session.open = null;
          if (!(await reset(session, signal))) {
            session.conn.close();
            session = null;
          }
        }
        const reused = session !== null;
        if (session === null) {
          const opened = await open(host, address, signal);
          if ("final" in opened) {
            health.refused(host.exchange, opened.outcome);
            finish(slot, null, false);
            return opened;
          }
          session = opened;
        }
        const { final, outcome } = await transaction(session, recipient, { utf8: options.utf8, signal });
        health.answered(host.exchange);
        // A server that refuses one more recipient on a reused connection gets a fresh one, dialled once the old one is
        // gone (a single call may hold a session bulk work handed over): never one connection over the per-host limit.
        if (reused && outcome.kind === "reply" && outcome.category === "too_many_recipients") {
          await quit(session);
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
        // Our transaction stays open on the session: whoever takes it next sends RSET first.
        session.open = { utf8: options.utf8, lines: 1, answered: 1, full: true };
        if (options.reuse || priority !== "interactive") finish(slot, session, options.reuse && final);
        // A single call keeps no idle connection, but hands a healthy one to a bulk drainer waiting for the host.
        else if (final && !session.conn.closed) slot.release(session, { keep: true, idle: false });
        else finish(slot, session, false);
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
      else if (connectRefused(error)) health.refused(host.exchange, outcome);
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

  /** RCPT TO lines a recipient costs: itself, and its catch-all recipient when it carries one. */
  const costOf = (w: Waiting) => (w.catchAllRecipient ? 2 : 1);

  /**
   * The recipients of the next chunk: the host's share of those waiting (spread over its connections, so that they
   * all work at once) unless `share` says how many, at most `room` lines, catch-all probes counted. A chunk for a new
   * transaction takes its first recipient whatever it costs; a chunk that joins an open one (`joining`) never goes
   * over its room.
   */
  function take(
    q: HostQueue,
    room: number,
    joining: boolean,
    share = Math.max(1, Math.ceil((q.waiting.length + q.asked) / connectionsPerHost)),
  ): Waiting[] {
    const batch: Waiting[] = [];
    let lines = 0;
    while (q.waiting.length > 0 && batch.length < share) {
      const next = q.waiting[0]!;
      const cost = costOf(next);
      if ((batch.length > 0 || joining) && lines + cost > room) break;
      q.waiting.shift();
      next.state = "taken";
      batch.push(next);
      lines += cost;
    }
    return batch;
  }

  /** Lines the transaction open on `session` still takes, or null when the next chunk needs a new transaction. */
  function roomIn(q: HostQueue, session: Session | null): number | null {
    const open = session?.open;
    if (open == null || open.full || session!.conn.closed) return null;
    return q.limit - open.lines >= 1 ? q.limit - open.lines : null;
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

  /** Holds one connection slot of the host for as long as recipients wait, one chunk after another. */
  async function drain(q: HostQueue): Promise<void> {
    const asking = new AbortController();
    q.asking = asking;
    let slot: SmtpSlot;
    try {
      slot = await pool.acquire(q.host.exchange, { signal: asking.signal, reuse: true, priority: "bulk" });
    } catch {
      return; // every recipient it was for gave up
    } finally {
      if (q.asking === asking) q.asking = null;
    }
    let session: Session | null = slot.session;
    let keep = true;
    try {
      for (;;) {
        // A single call or a signup waits for this host: it gets this slot and its session now (released with keep);
        // the recipients still waiting get a drainer of their own, which waits behind it.
        if (slot.interactiveWaiting()) break;
        // Join the session's open transaction while it has room; otherwise a new one.
        // A chunk's recipients are tied to its connection until answered. Without PIPELINING each RCPT TO waits for
        // the previous reply anyway, so such a session (and a connection not yet greeted, whose server may not
        // pipeline) takes one recipient at a time from the host's queue: a slow connection then keeps no recipients
        // that the host's other connections, done sooner, could ask, and the connections end together.
        const single = session === null || session.conn.closed || !session.pipelining;
        const room = roomIn(q, session);
        const share = single ? 1 : undefined;
        let batch = room === null ? [] : take(q, room, true, share);
        if (batch.length === 0) batch = take(q, q.limit, false, share);
        if (batch.length === 0) break;
        kick(q); // recipients still waiting get a drainer of their own, on another slot
        const failing = health.failing(q.host.exchange);
        const asked = batch.filter((w) => {
          if (!(failing && w.skipFailingHosts)) return true;
          w.settle({ final: false, outcome: health.skipped(q.host.exchange), catchAll: null });
          return false;
        });
        if (asked.length === 0) continue;
        q.asked += asked.length;
        const next = await transact(q, session, asked, slot).finally(() => {
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
   * One chunk of recipients on `session`: joined to its open transaction when it has room, else in a new one (RSET
   * first when a transaction is open), or on a new connection. Settles every recipient it answers, puts back the
   * others; returns the session when it can serve the next chunk, its transaction left open for it.
   */
  async function transact(
    q: HostQueue,
    reused: Session | null,
    batch: Waiting[],
    slot: SmtpSlot,
  ): Promise<Session | null> {
    const host = q.host.exchange;
    const stop = new AbortController();
    const transaction: Transaction = { stop, members: batch };
    for (const w of batch) w.transaction = transaction;
    // Every command of the chunk listens to `roll`; each awaited reply restarts the budget, one timer of ours that
    // aborts it (refreshed, not made anew per reply: a bulk job waits for thousands of replies), cleared at the end.
    const roll = new AbortController();
    setMaxListeners(0, roll.signal); // one listener per pipelined reply
    let budget: NodeJS.Timeout | undefined;
    const arm = () => {
      if (budget !== undefined) budget.refresh();
      else budget = setTimeout(() => roll.abort(timeoutReason(`probe ${host}`, probeTimeoutMs)), probeTimeoutMs);
    };
    const onStop = () => roll.abort(stop.signal.reason);
    stop.signal.addEventListener("abort", onStop, { once: true });
    const signal = roll.signal;
    let session: Session | null = reused !== null && !reused.conn.closed ? reused : null;
    let answered = 0; // RCPT TO replies read in this call
    let joined = false; // the chunk went into a transaction a previous chunk opened
    let fresh = false; // the connection was opened for this chunk
    let current = 0; // index in batch of the recipient whose reply is awaited
    let joinedLater = 0; // recipients that joined the pipeline while its replies were read (counted in q.asked)
    // An accepted recipient waiting for the reply about its catch-all recipient.
    let owner: { w: Waiting; outcome: ProbeOutcome } | null = null;
    const rest = () => batch.slice(current);
    /** Settles the recipients the session cannot ask (UTF-8 local part, no SMTPUTF8); returns the others. */
    const askable = (s: Session) =>
      batch.filter((w) => {
        if (!w.utf8 || s.smtpUtf8) return true;
        w.settle({ final: true, outcome: { kind: "unavailable", why: "no SMTPUTF8" }, catchAll: null });
        return false;
      });
    try {
      arm();
      if (session !== null) {
        batch = askable(session);
        if (batch.length === 0) return session;
        const tx = session.open;
        const utf8 = batch.some((w) => w.utf8);
        const lines = batch.reduce((n, w) => n + costOf(w), 0);
        joined = tx != null && !tx.full && (tx.utf8 || !utf8) && tx.lines + lines <= q.limit;
        if (tx != null && !joined) {
          session.open = null;
          if (!(await reset(session, signal))) {
            session.conn.close();
            session = null;
          }
        }
      }
      fresh = session === null;
      if (session === null) {
        const opened = await open(q.host, q.address, signal);
        if ("final" in opened) {
          health.refused(host, opened.outcome);
          for (const w of batch) w.settle(opened);
          return null;
        }
        session = opened;
        batch = askable(session);
        if (batch.length === 0) return session;
      }
      const live = session;
      if (!joined) {
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
        live.open = { utf8, lines: 0, answered: 0, full: false };
      }
      const tx = live.open!;
      // The lines, in order: each recipient, and its catch-all recipient right after it.
      const lines: Array<{ w: Waiting; catchAll: boolean }> = [];
      for (const w of batch) {
        lines.push({ w, catchAll: false });
        if (w.catchAllRecipient) lines.push({ w, catchAll: true });
      }
      const command = (line: { w: Waiting; catchAll: boolean }) => {
        tx.lines++;
        return live.conn.command(`RCPT TO:<${line.catchAll ? line.w.catchAllRecipient : line.w.recipient}>`, {
          signal,
        });
      };
      // Pipelined: the RCPT lines go ahead of their replies, as many as the server answers in about PIPELINE_AHEAD_MS
      // (pipelineWindow), a recipient's catch-all line with it; the replies are read in order. Lines not sent yet can
      // go back to the queue: a single call that waits for the host gets this connection once the lines sent are
      // answered, within about one RCPT exchange however slow the server.
      const sent: Array<Promise<SmtpReply>> | null = live.pipelining ? [] : null;
      const sentAt: number[] = [];
      let lastReplyAt = 0;
      const sendOne = () => {
        const reply = command(lines[sent!.length]!);
        reply.catch(() => {}); // read below, or dropped with the connection
        sent!.push(reply);
        sentAt.push(performance.now());
      };
      const fill = (read: number) => {
        if (sent === null) return;
        const ahead = pipelineWindow(live, q.limit);
        // While a single call waits for the host, no line goes out beyond the one about to be read.
        const yielding = slot.interactiveWaiting();
        while (sent.length < lines.length && sent.length < read + ahead && !(yielding && sent.length > read)) {
          sendOne();
          if (sent.length < lines.length && lines[sent.length]!.catchAll) sendOne();
        }
      };
      /**
       * Learns the server's pace from the reply to line `i`: when the line was out before the previous reply came, the
       * time between the two replies is the server's own (a line sent later would count our round trip too).
       */
      const paced = (i: number) => {
        const now = performance.now();
        if (i > 0 && lastReplyAt > 0 && sentAt[i]! <= lastReplyAt) {
          const gap = now - lastReplyAt;
          live.replyMs = live.replyMs === undefined ? gap : live.replyMs * 0.7 + gap * 0.3;
        }
        lastReplyAt = now;
      };
      /**
       * Recipients waiting for the host join this transaction while it runs (at most `share` of them, within its room),
       * so that a connection keeps pulling from its host's queue instead of holding a chunk taken up front: the host's
       * connections share the work as it comes and end together. Returns how many joined.
       */
      const join = (share: number): number => {
        // No recipient joins while a single call waits for the host: the connection goes to it once these are answered.
        if (tx.full || live.conn.closed || health.failing(host) || slot.interactiveWaiting()) return 0;
        // Lines taken but not sent yet (pipelined, beyond the window) count against the transaction's room too.
        const room = q.limit - tx.lines - (sent === null ? 0 : lines.length - sent.length);
        const head = q.waiting[0];
        if (room < 1 || head === undefined || (head.utf8 && !(tx.utf8 && live.smtpUtf8))) return 0;
        const more = take(q, room, true, share).filter((w) => {
          if (!w.utf8 || (tx.utf8 && live.smtpUtf8)) return true;
          requeue(q, [w]); // behind a compatible one: the next transaction asks it
          return false;
        });
        for (const w of more) {
          w.transaction = transaction;
          batch.push(w);
          if (transaction.members !== batch) transaction.members.push(w);
          joinedLater++;
          q.asked++;
          lines.push({ w, catchAll: false });
          if (w.catchAllRecipient) lines.push({ w, catchAll: true });
        }
        // Pipelined: their lines go out as the window lets them (fill), behind those still unanswered.
        return more.length;
      };
      // Pipelined: once few lines are left unanswered, the connection's share of those waiting joins, so that the
      // server has the next lines before it answers the last ones (no round trip, nor turn of our event loop, between
      // chunks). Without PIPELINING each line waits for the previous reply anyway: one recipient joins when every line
      // is answered.
      const topUp = (read: number) => {
        if (sent !== null && lines.length - read <= PIPELINE_LOW_WATER)
          join(Math.max(1, Math.ceil(q.waiting.length / connectionsPerHost)));
      };
      topUp(0);
      for (let i = 0; i < lines.length || (sent === null && join(1) > 0); i++) {
        if (i > 0) topUp(i);
        const line = lines[i]!;
        current = batch.indexOf(line.w);
        if (sent !== null && i >= sent.length && !line.catchAll && slot.interactiveWaiting()) {
          // A single call waits for the host: the lines not sent yet go back to the queue, and the connection to it.
          if (owner !== null) owner.w.settle({ final: true, outcome: owner.outcome, catchAll: null });
          owner = null;
          requeue(q, rest());
          return live;
        }
        fill(i);
        if (line.catchAll) {
          const accepted = owner!.outcome.kind === "reply" && owner!.outcome.category === "accepted";
          if (!accepted && sent === null) {
            owner!.w.settle({ final: true, outcome: owner!.outcome, catchAll: null });
            owner = null;
            continue; // not asked: only an accepted recipient needs it
          }
          arm();
          const reply = await (sent?.[i] ?? command(line));
          if (sent !== null) paced(i);
          answered++;
          if (classifyReply(reply) !== "too_many_recipients") tx.answered++;
          const catchAll: ProbeOutcome = { kind: "reply", category: classifyReply(reply), reply, host };
          owner!.w.settle({ final: true, outcome: owner!.outcome, catchAll: accepted ? catchAll : null });
          owner = null;
          continue;
        }
        if (owner !== null) owner.w.settle({ final: true, outcome: owner.outcome, catchAll: null });
        owner = null;
        arm();
        const reply = await (sent?.[i] ?? command(line));
        if (sent !== null) paced(i);
        answered++;
        health.answered(host);
        const category = classifyReply(reply);
        if (category === "too_many_recipients") {
          // RFC 5321 §4.5.3.1.10: the rest goes in the next transaction; the host takes this many from now on.
          // Replies still due for pipelined lines are read by their own promises before RSET's.
          tx.full = true;
          if (tx.answered === 0) {
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
          } else q.limit = Math.max(1, Math.min(q.limit, tx.answered));
          requeue(q, rest());
          return live;
        }
        tx.answered++;
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
      // Progress was made, or the session had served earlier chunks (it may have gone bad while it sat idle): the rest
      // goes to a new connection, which is fresh, so this happens once per chunk at most without progress.
      const progress = answered > 0 || !fresh;
      if (stuck !== undefined && stuck.state === "taken" && progress && error.code !== "SMTP_TIMEOUT") {
        requeue(q, rest());
        return null;
      }
      const outcome = fromSmtpError(error);
      if (outcome.kind === "timeout") health.timedOut(host);
      else if (connectRefused(error)) health.refused(host, outcome);
      stuck?.settle({ final: false, outcome, catchAll: null });
      requeue(q, batch.slice(current + 1));
      // Recipients before `current` were answered; any left taken (none should be) go back too.
      requeue(q, batch.slice(0, current));
      return null;
    } finally {
      clearTimeout(budget);
      q.asked -= joinedLater;
      stop.signal.removeEventListener("abort", onStop);
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
        failures.push(health.skipped(host.exchange));
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
