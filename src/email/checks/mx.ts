// mx: a domain needs at least one MX host with an address. Reasons per docs/contract.md §4.
import type { CheckOutcome } from "../types.ts";
import type { MxAnswer } from "../mx_lookup.ts";
import type { CheckContext } from "./context.ts";

/** Pure mapping of a lookup answer to the check's outcome. */
export function mxOutcome(answer: MxAnswer): CheckOutcome {
  if (answer.ok) return { status: "pass" };
  const definite = answer.reason === "no_mx_record" || answer.reason === "domain_does_not_resolve";
  return { status: definite ? "fail" : "inconclusive", reasons: [answer.reason], settles: true };
}

export async function mx(ctx: CheckContext): Promise<CheckOutcome> {
  const email = ctx.state.parsed!;
  // A top-level domain outside the root zone, or a special-use name that never resolves (the syntax check decides,
  // see tldKind()): no query could answer otherwise, so none is sent.
  if (email.unresolvable === true) return mxOutcome({ ok: false, reason: "domain_does_not_resolve" });
  const answer = await ctx.deps.mxLookup.lookup(email.domain, { signal: ctx.signal });
  if (answer.ok) ctx.state.mx = answer.hosts;
  return mxOutcome(answer);
}
