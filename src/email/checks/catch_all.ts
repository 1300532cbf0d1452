// catch_all: runs only once the real recipient was accepted. A random local part at the same domain, after RSET on
// the same connection (or on a fresh one when RSET is refused); accepted means the server accepts anything, so the
// first acceptance proved nothing. One probe per domain: concurrent callers share it, answers are cached.
import { LRUCache } from "lru-cache";
import type { CheckOutcome } from "../types.ts";
import { probeOutcome } from "./smtp.ts";
import type { CheckContext } from "./context.ts";

export interface CatchAllMemo {
  known(domain: string): boolean;
  /** The cached answer, the pending probe of another caller, or the result of `probe` (started once per domain). */
  answer(domain: string, probe: () => Promise<CheckOutcome>): Promise<CheckOutcome>;
}

export function createCatchAllMemo(options: { ttlMs?: number; max?: number } = {}): CatchAllMemo {
  const { ttlMs = 60 * 60_000, max = 10_000 } = options;
  const cache = new LRUCache<string, boolean>({ max, ttl: ttlMs });
  const inflight = new Map<string, Promise<CheckOutcome>>();
  return {
    known: (domain) => cache.has(domain),
    answer(domain, probe) {
      const cached = cache.get(domain);
      if (cached !== undefined) return Promise.resolve(catchAllOutcome(cached));
      let pending = inflight.get(domain);
      if (pending === undefined) {
        pending = probe()
          .then((outcome) => {
            // Only definite answers are facts about the domain.
            if (outcome.status === "fail") cache.set(domain, true);
            if (outcome.status === "pass") cache.set(domain, false);
            return outcome;
          })
          .finally(() => inflight.delete(domain));
        inflight.set(domain, pending);
      }
      return pending;
    },
  };
}

export function catchAllOutcome(catchAll: boolean): CheckOutcome {
  return catchAll ? { status: "fail", reasons: ["catch_all_domain"] } : { status: "pass" };
}

export async function catchAll(ctx: CheckContext): Promise<CheckOutcome> {
  const { deps, state, signal } = ctx;
  const domain = state.parsed!.domain;
  const held = state.accepted;
  state.accepted = null;
  let released = held === null;
  const release = () => {
    if (released) return;
    released = true;
    deps.prober.release(held!, { keep: ctx.reuseConnections });
  };
  try {
    return await deps.catchAll.answer(domain, async () => {
      const random = `${deps.randomLocal()}@${domain}`;
      let outcome = held === null ? null : await deps.prober.probeAgain(held, random, { signal, utf8: false });
      if (outcome === null) {
        release();
        outcome = (await deps.prober.probe(state.mx!, random, { signal, reuse: ctx.reuseConnections, hold: false, utf8: false })).outcome;
      }
      if (outcome.kind === "reply" && outcome.category === "accepted") return catchAllOutcome(true);
      if (outcome.kind === "reply" && outcome.category === "mailbox_not_found") return catchAllOutcome(false);
      const failed = probeOutcome(outcome);
      // A random mailbox reported full or refused tells nothing about the domain.
      return failed.status === "fail" ? { status: "inconclusive", reasons: ["probe_unavailable"] } : { ...failed, status: "inconclusive" };
    });
  } finally {
    release();
  }
}
