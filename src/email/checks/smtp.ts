// smtp: ask the domain's MX hosts whether they accept the recipient, without sending anything. When the domain's
// catch-all answer is not known yet, the prober asks a random recipient on the same session too (see catch_all.ts).
import type { CheckOutcome } from "../types.ts";
import type { CheckContext } from "./context.ts";
import { catchAllOutcome, recipientOutcome } from "./probe_outcome.ts";

export async function smtp(ctx: CheckContext): Promise<CheckOutcome> {
  const { local, domain, utf8Local } = ctx.state.parsed!;
  const memo = ctx.deps.catchAll;
  // One catch-all probe per domain: not when the answer is known, nor while another call is finding it out (in a
  // cluster, another process: claim).
  const askCatchAll =
    memo.claim === undefined
      ? !memo.known(domain) && !memo.pending(domain)
      : await memo.claim(domain, { bulk: ctx.bulk });
  const probing = ctx.deps.prober.probe(ctx.state.mx!, `${local}@${domain}`, {
    signal: ctx.signal,
    reuse: ctx.reuseConnections,
    utf8: utf8Local,
    catchAllRecipient: askCatchAll ? `${ctx.deps.randomLocal()}@${domain}` : null,
    skipFailingHosts: ctx.bulk,
    // A single call or a signup goes before bulk work at the MX (smtp/pool.ts).
    priority: ctx.bulk ? "bulk" : "interactive",
    log: ctx.log,
  });
  if (askCatchAll) {
    memo.share(
      domain,
      probing.then(
        (p) => (p.catchAll === null ? null : catchAllOutcome(p.catchAll)),
        () => null,
      ),
    );
  }
  const { outcome, catchAll } = await probing;
  ctx.state.catchAllProbe = catchAll;
  return recipientOutcome(outcome);
}
