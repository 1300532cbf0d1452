// How the DNS treats a top-level domain: in the root zone, a special-use name (RFC 6761 §6, RFC 6762, RFC 7686,
// RFC 9476), or not delegated at all. Read by the syntax check (an undelegated TLD is no syntax error) and the typo
// check (an undelegated TLD is surely a slip).
import { parse as parseDomain } from "tldts";

export type TldKind = "delegated" | "special_resolved" | "never_resolves" | "undelegated";

// RFC 6761 §6.2 (.test) and §6.5 (.example): "Application software SHOULD NOT recognize" these names as special and
// resolvers send their queries to the configured DNS servers like any other. Staging environments and test peers
// use them (docs/contract.md §1 names vrai.test), so they go to DNS_SERVERS: a live key gets whatever DNS says (the
// reserved test addresses aside, which http/test_inputs.ts refuses to a live key before any check runs).
const SPECIAL_RESOLVED: ReadonlySet<string> = new Set(["test", "example"]);
// Names that no DNS query may answer, so none is sent and the answer is domain_does_not_resolve:
// - localhost, RFC 6761 §6.3: resolvers SHOULD answer loopback for addresses and "negative responses for all other
//   query types" (so: no MX), and SHOULD NOT send the query to DNS. Loopback is no one's mailbox anyway.
// - invalid, RFC 6761 §6.4: resolvers "SHOULD always return immediately with a negative response".
// - onion, RFC 7686 §2: applications that do not speak Tor "SHOULD NOT perform a DNS lookup".
// - local, RFC 6762 §3: multicast DNS on the local link only, never unicast DNS.
// - alt, RFC 9476 §2: reserved for non-DNS resolution systems, never delegated in the DNS root.
// tldts lists onion as an ICANN suffix, hence the explicit check before asking it.
const NEVER_RESOLVES: ReadonlySet<string> = new Set(["localhost", "invalid", "onion", "local", "alt"]);

/** How the DNS treats a top-level domain (lower-case ASCII, A-label for IDN TLDs). Pure. */
export function tldKind(tld: string): TldKind {
  if (SPECIAL_RESOLVED.has(tld)) return "special_resolved";
  if (NEVER_RESOLVES.has(tld)) return "never_resolves";
  return parseDomain(`x.${tld}`, { allowPrivateDomains: false }).isIcann === true ? "delegated" : "undelegated";
}
