// catch_all: runs only once the real recipient was accepted. A random local part at the same domain, asked by the
// prober on the session that accepted the real one (after RSET, or on a fresh connection when RSET is refused);
// accepted means the server accepts anything, so the first acceptance proved nothing. One probe per domain:
// concurrent callers share it, definite answers are cached.
import type { CheckOutcome } from "../types.ts";
import type { CheckContext } from "./context.ts";
import { catchAllOutcome } from "./probe_outcome.ts";

export async function catchAll(ctx: CheckContext): Promise<CheckOutcome> {
  const { deps, state, signal } = ctx;
  const domain = state.parsed!.domain;
  const asked = state.catchAllProbe;
  state.catchAllProbe = null;
  // Our own session's answer, else the memo's (cached, or another call's), else a dialogue of our own.
  if (asked !== null) return catchAllOutcome(asked);
  const fresh = async () => {
    const { outcome } = await deps.prober.probe(state.mx!, `${deps.randomLocal()}@${domain}`, {
      signal,
      reuse: ctx.reuseConnections,
      utf8: false,
      skipFailingHosts: ctx.bulk,
      // A single call or a signup goes before bulk work at the MX (smtp/pool.ts).
      priority: ctx.bulk ? "bulk" : "interactive",
      log: ctx.log,
    });
    return catchAllOutcome(outcome);
  };
  const bulk = { bulk: ctx.bulk };
  return (
    (await deps.catchAll.answer(domain, fresh, bulk)) ?? (await deps.catchAll.answer(domain, fresh, bulk)) ?? fresh()
  );
}
