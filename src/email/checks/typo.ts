// Suggests the address the user meant when its domain is one slip away from a popular mailbox domain, or its TLD
// is a known slip (.con, .fe). A popular domain itself is never flagged; the suggestion is never applied for the
// caller (spec: "must never be applied automatically").
import { readFileSync } from "node:fs";
import { parse as parseDomain } from "tldts";
import type { CheckOutcome, ParsedEmail } from "../types.ts";
import type { CheckContext } from "./context.ts";
import { PROVIDER_RULES } from "./provider_rules.ts";

interface TypoFile {
  popular: Array<{ domain: string }>;
  known_real: Array<{ domain: string }>;
  tld_slips: Record<string, string>;
}

const file = JSON.parse(
  readFileSync(new URL("../../../data/email/typo_domains.json", import.meta.url), "utf8"),
) as TypoFile;

/** Popular domains in list order (earlier = preferred on a tie). */
export const POPULAR_DOMAINS: readonly string[] = file.popular.map((p) => p.domain);
const POPULAR = new Set(POPULAR_DOMAINS);
/** Domains never flagged: the popular ones, real neighbours of them, and every provider with local-part rules. */
const PROTECTED = new Set([...POPULAR_DOMAINS, ...file.known_real.map((k) => k.domain), ...PROVIDER_RULES.keys()]);

/** Mistyped TLD → intended TLD. Keys that are real TLDs are dropped: they may be meant. */
export const TLD_SLIPS: ReadonlyMap<string, string> = new Map(
  Object.entries(file.tld_slips).filter(
    ([bad]) => bad !== "_comment" && parseDomain(`x.${bad}`, { allowPrivateDomains: false }).isIcann !== true,
  ),
);

// Three rolling rows reused by every call: the check runs on every address, and allocating a matrix per popular
// domain dominated its cost.
let previous2 = new Int32Array(64);
let previous = new Int32Array(64);
let current = new Int32Array(64);

/** Optimal string alignment distance (Damerau-Levenshtein with adjacent transpositions), capped for speed. */
export function editDistance(a: string, b: string, options: { cap?: number } = {}): number {
  const { cap = 3 } = options;
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  if (b.length + 1 > current.length) {
    previous2 = new Int32Array(b.length + 1);
    previous = new Int32Array(b.length + 1);
    current = new Int32Array(b.length + 1);
  }
  for (let j = 0; j <= b.length; j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a.charCodeAt(i - 1) === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === b.charCodeAt(j - 1)) {
        d = Math.min(d, previous2[j - 2]! + 1);
      }
      current[j] = d;
      if (d < rowMin) rowMin = d;
    }
    // Every later row is at least this row's minimum: past the cap, the answer is only "too far".
    if (rowMin > cap) return cap + 1;
    [previous2, previous, current] = [previous, current, previous2];
  }
  return previous[b.length]!;
}

// Short popular domains (me.com, sfr.fr) sit one slip away from many real domains (be.com, sfe.fr): only their
// TLD slips are corrected. Longer ones tolerate one slip, very long ones two.
function allowedDistance(candidate: string): number {
  const label = candidate.slice(0, candidate.indexOf("."));
  if (label.length < 5) return 0;
  return candidate.length >= 13 ? 2 : 1;
}

const FUZZY_CANDIDATES = POPULAR_DOMAINS.map((candidate) => ({ candidate, allowed: allowedDistance(candidate) })).filter(
  (c) => c.allowed > 0,
);

/** The corrected domain, or null when the domain is fine or no correction is clear. Pure. */
export function suggestDomain(domain: string): string | null {
  if (PROTECTED.has(domain)) return null;
  let fixed = domain;
  const dot = domain.lastIndexOf(".");
  const tldFix = TLD_SLIPS.get(domain.slice(dot + 1));
  if (tldFix !== undefined) fixed = `${domain.slice(0, dot)}.${tldFix}`;
  if (POPULAR.has(fixed)) return fixed;
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const { candidate, allowed } of FUZZY_CANDIDATES) {
    if (Math.abs(candidate.length - fixed.length) > allowed) continue;
    const d = editDistance(fixed, candidate, { cap: allowed });
    if (d <= allowed && d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  if (best !== null) return best;
  return fixed === domain ? null : fixed;
}

/** Suggested full address for a parsed email, or null. */
export function suggestEmail(email: ParsedEmail): string | null {
  const domain = suggestDomain(email.domain);
  return domain === null ? null : `${email.local}@${domain}`;
}

export async function typo(ctx: CheckContext): Promise<CheckOutcome> {
  const suggestion = suggestEmail(ctx.state.parsed!);
  if (suggestion === null) return { status: "pass" };
  return { status: "fail", reasons: ["domain_typo"], settles: true, suggestion };
}
