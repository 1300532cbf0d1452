// mx: a domain needs at least one MX host with an address. Reasons per DECISIONS §4.
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
  const answer = await ctx.deps.mxLookup.lookup(ctx.state.parsed!.domain, { signal: ctx.signal });
  if (answer.ok) ctx.state.mx = answer.hosts;
  return mxOutcome(answer);
}
