// Throwaway-mailbox domains from the maintained npm list `disposable-email-domains` (exact list plus its wildcard
// list), matched on the domain and each of its parent domains, so that sub.mailinator.com is caught too.
import { createRequire } from "node:module";
import type { CheckOutcome } from "../types.ts";
import type { CheckContext } from "./context.ts";

const require = createRequire(import.meta.url);
const EXACT = new Set<string>(require("disposable-email-domains/index.json") as string[]);
const WILDCARD = new Set<string>(require("disposable-email-domains/wildcard.json") as string[]);

/** True when the domain, or a parent domain of it, is a known disposable domain. Pure. */
export function isDisposableDomain(domain: string): boolean {
  if (EXACT.has(domain) || WILDCARD.has(domain)) return true;
  for (let dot = domain.indexOf("."); dot >= 0; dot = domain.indexOf(".", dot + 1)) {
    const parent = domain.slice(dot + 1);
    if (!parent.includes(".")) break; // never match on a bare TLD
    if (EXACT.has(parent) || WILDCARD.has(parent)) return true;
  }
  return false;
}

export async function disposable(ctx: CheckContext): Promise<CheckOutcome> {
  // Settles as risky: probing a throwaway domain costs a connection and cannot change the verdict.
  if (isDisposableDomain(ctx.state.parsed!.domain)) {
    return { status: "fail", reasons: ["disposable_domain"], settles: true };
  }
  return { status: "pass" };
}
