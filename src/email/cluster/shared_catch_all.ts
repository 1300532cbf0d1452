// Catch-all answers known to every process of the cluster, and one catch-all probe per domain for the whole cluster.
// Before a process asks a domain's catch-all recipient it claims the domain in catch_all_answers (one statement):
// the claim succeeds for one process; the others see the answer already found, or the probe running elsewhere and
// wait for its answer (told over the cluster channel, else read from the table), asking themselves only if it does
// not come before the claim runs out (its process died, or it could not ask). A single call does not wait for a
// probe of another process: it asks on its own session (one more RCPT TO) unless the answer is known.
//
// A process alone on the database (cluster_presence.ts) does not wait for its claim: nobody else could be probing
// the domain, so it asks at once, as a process without a cluster does, and writes the claim meanwhile for a process
// that joins later. Wrong only when a process joined a moment ago and claims the same domain before that row is
// written; the cost is then one catch-all probe more, never a wrong answer.
import type { Logger } from "../../log.ts";
import type { CatchAllMemo } from "../checks/catch_all_memo.ts";
import { knownCatchAll } from "../checks/probe_outcome.ts";
import type { CheckOutcome } from "../types.ts";
import type { ClusterChannel } from "./cluster_channel.ts";

export interface SharedCatchAllOptions {
  channel: ClusterChannel;
  /** How long a definite answer is kept. */
  ttlMs: number;
  /** How long a claim holds the others back: a bulk probe may wait in its MX's queue for a while. */
  claimMs?: number;
  /** True while no other process shares the database (cluster_presence.ts): claims are then made off the path. */
  alone?: () => boolean;
  log: Logger;
  now?: () => number;
}

/** How often a process waiting for another's probe reads the table, in case the message was lost. */
const POLL_MS = 500;

export function shareCatchAll(local: CatchAllMemo, options: SharedCatchAllOptions): CatchAllMemo {
  const { channel, ttlMs, claimMs = 60_000, log, now = Date.now, alone = () => false } = options;
  const { sql, self } = channel;
  /** Answers found by other processes: catch-all or not, until when (this process's clock). */
  const answers = new Map<string, { catchAll: boolean; until: number }>();
  /** Probes other processes run: until when their claim holds. */
  const elsewhere = new Map<string, number>();
  /** Claims this process is making (one statement per domain at a time). */
  const claiming = new Map<string, Promise<boolean>>();
  /** Domains claimed here while alone, whose probe has not been shared yet: until when the claim holds. */
  const claimedHere = new Map<string, number>();
  const heldHere = (domain: string) => {
    const until = claimedHere.get(domain);
    if (until === undefined) return false;
    if (now() < until) return true;
    claimedHere.delete(domain);
    return false;
  };
  /** Callers waiting for another process's answer, per domain. */
  const waiters = new Map<string, Set<() => void>>();

  const wake = (domain: string) => {
    for (const fn of waiters.get(domain) ?? []) fn();
  };
  const answerOf = (domain: string): boolean | undefined => {
    const known = answers.get(domain);
    if (known === undefined) return undefined;
    if (now() < known.until) return known.catchAll;
    answers.delete(domain);
    return undefined;
  };
  const probingElsewhere = (domain: string) => (elsewhere.get(domain) ?? 0) > now();
  const learn = (domain: string, catchAll: boolean, leftMs: number) => {
    answers.set(domain, { catchAll, until: now() + Math.min(leftMs, ttlMs) });
    elsewhere.delete(domain);
    wake(domain);
  };

  channel.on("catch-all", ({ args: [domain, value] }) => {
    if (domain === undefined) return;
    if (value === "true" || value === "false") learn(domain, value === "true", ttlMs);
    else if (value === "probing") elsewhere.set(domain, now() + claimMs);
    else {
      elsewhere.delete(domain); // the other process could not ask
      wake(domain);
    }
  });

  /** Publishes what this process found about the domain (null: it could not ask; the claim is dropped). */
  function publish(domain: string, outcome: CheckOutcome | null): void {
    const definite = outcome?.status === "fail" ? true : outcome?.status === "pass" ? false : null;
    if (definite === null) {
      channel.send("catch-all", domain, "dropped");
      void sql`delete from catch_all_answers where domain = ${domain} and holder = ${self} and catch_all is null`.catch(
        () => {},
      );
      return;
    }
    channel.send("catch-all", domain, String(definite));
    void sql`
      insert into catch_all_answers (domain, catch_all, holder, expires_at)
      values (${domain}, ${definite}, ${self}, now() + ${ttlMs} * interval '1 millisecond')
      on conflict (domain) do update set catch_all = excluded.catch_all, holder = excluded.holder,
        expires_at = excluded.expires_at`.catch((error) =>
      log.warn("cannot share a catch-all answer", { domain, error: String(error) }),
    );
  }

  /** Reads the domain's row: an answer learnt, or a probe running elsewhere noted. */
  async function read(domain: string): Promise<void> {
    const [row] = await sql`
      select catch_all, holder, (extract(epoch from expires_at - now()) * 1000)::float8 as left_ms
        from catch_all_answers where domain = ${domain} and expires_at > now()`;
    if (row === undefined) {
      elsewhere.delete(domain);
      return;
    }
    if (row.catch_all !== null) learn(domain, row.catch_all as boolean, Number(row.left_ms));
    else if (row.holder !== self) elsewhere.set(domain, now() + Number(row.left_ms));
  }

  async function claim(domain: string): Promise<boolean> {
    const rows = await sql`
      insert into catch_all_answers (domain, catch_all, holder, expires_at)
      values (${domain}, null, ${self}, now() + ${claimMs} * interval '1 millisecond')
      on conflict (domain) do update set catch_all = null, holder = excluded.holder, expires_at = excluded.expires_at
       where catch_all_answers.expires_at <= now()
      returning domain`;
    if (rows.length > 0) {
      channel.send("catch-all", domain, "probing");
      return true;
    }
    await read(domain);
    return false;
  }

  /** Waits until the domain's answer is known here, the probe elsewhere is over, or `patienceMs` has passed. */
  async function waitElsewhere(domain: string): Promise<void> {
    while (probingElsewhere(domain) && answerOf(domain) === undefined) {
      await new Promise<void>((resolve) => {
        let set = waiters.get(domain);
        if (set === undefined) waiters.set(domain, (set = new Set()));
        const done = () => {
          clearTimeout(timer);
          set!.delete(done);
          if (set!.size === 0 && waiters.get(domain) === set) waiters.delete(domain);
          resolve();
        };
        const timer = setTimeout(done, POLL_MS);
        set.add(done);
      });
      if (probingElsewhere(domain) && answerOf(domain) === undefined) await read(domain).catch(() => {});
    }
  }

  return {
    known: (domain) => local.known(domain) || answerOf(domain) !== undefined,
    pending: (domain) => local.pending(domain) || claiming.has(domain) || heldHere(domain) || probingElsewhere(domain),
    async claim(domain, { bulk }) {
      if (local.known(domain) || local.pending(domain) || heldHere(domain) || answerOf(domain) !== undefined) {
        return false;
      }
      let mine = claiming.get(domain);
      if (mine !== undefined) {
        // Another caller here claims it: it asks (or learns the answer); this one does not.
        await mine;
        return false;
      }
      if (bulk && probingElsewhere(domain)) return false;
      if (alone()) {
        // Nobody else to agree with: ask now; the row tells a process that joins meanwhile that the probe runs here.
        claimedHere.set(domain, now() + claimMs);
        void claim(domain).catch((error) =>
          log.warn("cannot claim a catch-all probe", { domain, error: String(error) }),
        );
        return true;
      }
      mine = claim(domain).catch((error) => {
        log.warn("cannot claim a catch-all probe", { domain, error: String(error) });
        return true; // the database is away: ask, as a single process would
      });
      claiming.set(domain, mine);
      try {
        const claimed = await mine;
        if (claimed) return true;
        // A single call asks on its own session rather than wait for another process's probe.
        return !bulk && answerOf(domain) === undefined;
      } finally {
        claiming.delete(domain);
      }
    },
    share(domain, answer) {
      claimedHere.delete(domain);
      local.share(domain, answer);
      void answer.then((outcome) => publish(domain, outcome));
    },
    async answer(domain, probe, options) {
      const known = answerOf(domain);
      if (known !== undefined && !local.pending(domain)) return knownCatchAll(known);
      // Bulk work waits for another process's probe; a single call has a deadline, and asks itself.
      if ((options?.bulk ?? true) && !local.known(domain) && !local.pending(domain)) {
        await waitElsewhere(domain);
        const found = answerOf(domain);
        if (found !== undefined) return knownCatchAll(found);
      }
      return local.answer(domain, () =>
        probe().then((outcome) => {
          publish(domain, outcome);
          return outcome;
        }),
      );
    },
  };
}
