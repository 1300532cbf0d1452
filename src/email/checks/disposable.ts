// Throwaway-mailbox domains from the npm package `disposable-email-domains-js`: a republication, updated weekly by
// its CI, of the community blocklist (disposable-email-domains/disposable-email-domains, disposable_email_blocklist.conf).
// The package `disposable-email-domains` used before stopped following that list in 2024 and misses domains such as
// emailondeck.com. Matched on the domain and each of its parent domains, so that sub.mailinator.com is caught too.
import { createRequire } from "node:module";
import type { CheckOutcome } from "../types.ts";
import type { CheckContext } from "./context.ts";

const require = createRequire(import.meta.url);
const DISPOSABLE = new Set<string>(
  require("disposable-email-domains-js/dist/dict/disposable_email_blocklist.json") as string[],
);

/** True when the domain, or a parent domain of it, is a known disposable domain. Pure. */
export function isDisposableDomain(domain: string): boolean {
  if (DISPOSABLE.has(domain)) return true;
  for (let dot = domain.indexOf("."); dot >= 0; dot = domain.indexOf(".", dot + 1)) {
    const parent = domain.slice(dot + 1);
    if (!parent.includes(".")) break; // never match on a bare TLD
    if (DISPOSABLE.has(parent)) return true;
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
