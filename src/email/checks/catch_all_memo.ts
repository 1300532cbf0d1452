// What is known of each domain's catch-all behaviour, shared by every call of the engine: definite answers cached
// for a while, and the answer some call is finding out right now, so that one probe per domain serves all.
import { LRUCache } from "lru-cache";
import type { CheckOutcome } from "../types.ts";
import { knownCatchAll } from "./probe_outcome.ts";

export interface CatchAllMemo {
  known(domain: string): boolean;
  /** True while a caller is finding the domain's answer out. */
  pending(domain: string): boolean;
  /** Registers the answer a caller is finding out; null when it turns out it could not be asked. */
  share(domain: string, answer: Promise<CheckOutcome | null>): void;
  /**
   * The cached answer, the pending one of another caller, or the result of `probe` (started once per domain). Null
   * when the pending caller could not ask: the caller then asks itself.
   */
  answer(domain: string, probe: () => Promise<CheckOutcome>, options?: { bulk: boolean }): Promise<CheckOutcome | null>;
  /**
   * Processes sharing a PostgreSQL (cluster/shared_catch_all.ts): whether this caller should ask the domain's
   * catch-all recipient, which one caller of the whole cluster does. Unset: the memo of a single process, where
   * `known` and `pending` say it.
   */
  claim?(domain: string, options: { bulk: boolean }): Promise<boolean>;
}

export function createCatchAllMemo(options: { ttlMs?: number; max?: number } = {}): CatchAllMemo {
  const { ttlMs = 60 * 60_000, max = 10_000 } = options;
  const cache = new LRUCache<string, boolean>({ max, ttl: ttlMs });
  const inflight = new Map<string, Promise<CheckOutcome | null>>();
  function share(domain: string, answer: Promise<CheckOutcome | null>): Promise<CheckOutcome | null> {
    const pending = answer
      .then((outcome) => {
        // Only definite answers are facts about the domain.
        if (outcome?.status === "fail") cache.set(domain, true);
        if (outcome?.status === "pass") cache.set(domain, false);
        return outcome;
      })
      .finally(() => {
        if (inflight.get(domain) === pending) inflight.delete(domain);
      });
    inflight.set(domain, pending);
    return pending;
  }
  return {
    known: (domain) => cache.has(domain),
    pending: (domain) => inflight.has(domain),
    share(domain, answer) {
      void share(domain, answer);
    },
    answer(domain, probe) {
      const cached = cache.get(domain);
      if (cached !== undefined) return Promise.resolve(knownCatchAll(cached));
      return inflight.get(domain) ?? share(domain, probe());
    },
  };
}
