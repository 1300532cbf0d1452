// Suggests the address the user meant when its domain is one slip away from a popular mailbox domain, its TLD is a
// known slip (.con, .fe) or is not in the root zone (.ifno), or a stray character precedes it (#gmail.com). A popular
// or known real domain is never flagged; the suggestion is never applied for the caller (spec: "must never be applied
// automatically"). Data and the source of every entry: data/email/typo_domains.json.
import { readFileSync } from "node:fs";
import { projectFile } from "../../paths.ts";
import { parse as parseDomain } from "tldts";
import type { CheckOutcome, ParsedEmail } from "../types.ts";
import type { CheckContext } from "./context.ts";
import { PROVIDER_RULES } from "./provider_rules.ts";
import { tldKind } from "./syntax.ts";
import { editDistance } from "../../text/edit_distance.ts";

interface Source {
  url: string;
  date: string;
}

interface TypoFile {
  popular: Array<{ domain: string; source: Source }>;
  known_real: Array<{ domain: string; source: Source }>;
  tld_slips: Array<{ typed: string; meant: string; source: Source }>;
  domain_slips: Array<{ typed: string; meant: string; source: Source }>;
  single_domain_labels: Array<{ label: string; domain: string; source: Source }>;
  common_tlds: Array<{ tld: string; source: Source }>;
}

const file = JSON.parse(readFileSync(projectFile("data/email/typo_domains.json"), "utf8")) as TypoFile;

/** Popular domains in list order (earlier = preferred on a tie). */
export const POPULAR_DOMAINS: readonly string[] = file.popular.map((p) => p.domain);
const POPULAR = new Set(POPULAR_DOMAINS);
/** Real domains one slip from a popular one (never flagged). */
export const KNOWN_REAL_DOMAINS: readonly string[] = file.known_real.map((k) => k.domain);
/** Domains never flagged: the popular ones, real neighbours of them, and every provider with local-part rules. */
const PROTECTED = new Set([...POPULAR_DOMAINS, ...KNOWN_REAL_DOMAINS, ...PROVIDER_RULES.keys()]);

/** Mistyped TLD → intended TLD. Keys that are real TLDs are dropped: they may be meant. */
export const TLD_SLIPS: ReadonlyMap<string, string> = new Map(
  file.tld_slips.filter((s) => tldKind(s.typed) === "undelegated").map((s) => [s.typed, s.meant]),
);
/** Whole-domain slips of short provider names, where no generic rule is safe (see the file's description). */
const DOMAIN_SLIPS: ReadonlyMap<string, string> = new Map(file.domain_slips.map((s) => [s.typed, s.meant]));
/** First label → the only domain its provider issues mailboxes under (gmail → gmail.com). */
const SINGLE_DOMAIN: ReadonlyMap<string, string> = new Map(file.single_domain_labels.map((s) => [s.label, s.domain]));
const COMMON_TLDS: readonly string[] = file.common_tlds.map((t) => t.tld);

/** Popular domains by everything before their TLD (hotmail → hotmail.com, hotmail.fr), list order kept. */
const POPULAR_BY_HEAD = new Map<string, string[]>();
for (const domain of POPULAR_DOMAINS) {
  const head = domain.slice(0, domain.lastIndexOf("."));
  POPULAR_BY_HEAD.set(head, [...(POPULAR_BY_HEAD.get(head) ?? []), domain]);
}

// Short popular domains (me.com, sfr.fr) sit one slip away from many real domains (be.com, sfe.fr): only their
// TLD slips and the listed domain_slips are corrected. Longer ones tolerate one slip, very long ones two.
function allowedDistance(candidate: string): number {
  const label = candidate.slice(0, candidate.indexOf("."));
  if (label.length < 5) return 0;
  return candidate.length >= 13 ? 2 : 1;
}

const FUZZY_CANDIDATES = POPULAR_DOMAINS.map((candidate) => ({
  candidate,
  allowed: allowedDistance(candidate),
})).filter((c) => c.allowed > 0);

/** The one common TLD a single edit away from an undelegated TLD (ifno → info), or null when none or several are. */
function nearestCommonTld(tld: string): string | null {
  const near = COMMON_TLDS.filter((t) => editDistance(tld, t, { cap: 1 }) <= 1);
  return near.length === 1 ? near[0]! : null;
}

/** Of several domains, the one whose TLD is nearest to `tld` (list order on a tie). */
function nearestByTld(candidates: readonly string[], tld: string): string {
  let best = candidates[0]!;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = editDistance(tld, candidate.slice(candidate.lastIndexOf(".") + 1), { cap: 8 });
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/** The corrected domain, or null when the domain is fine or no correction is clear. Pure. */
export function suggestDomain(domain: string): string | null {
  // A stray leading character (the syntax check lets exactly one through, see STRAY there): the user meant the rest,
  // so there is always a suggestion, itself corrected when it needs to be (mailcheck: test@#gmail.com → gmail.com).
  if (/^[^a-z0-9]/.test(domain)) {
    const rest = domain.slice(1);
    return suggestDomain(rest) ?? rest;
  }
  if (PROTECTED.has(domain)) return null;
  const dot = domain.lastIndexOf(".");
  const head = domain.slice(0, dot);
  const tld = domain.slice(dot + 1);
  const kind = tldKind(tld);
  // Special-use names are written on purpose (RFC 6761 §6: staging and test set-ups): never "corrected".
  if (kind === "special_resolved" || kind === "never_resolves") return null;

  const listed = DOMAIN_SLIPS.get(domain);
  if (listed !== undefined) return listed;
  // gmail.fr, gmail.edd, gmail.co.uk: the provider's name right before a public suffix (never a subdomain such as
  // gmail.acme.com, which is someone else's).
  const parts = parseDomain(domain, { allowPrivateDomains: false });
  const single =
    parts.subdomain === "" && parts.domainWithoutSuffix ? SINGLE_DOMAIN.get(parts.domainWithoutSuffix) : undefined;
  if (single !== undefined) return single;
  // A popular provider's name before a TLD that does not exist (wanadoo.ff, comcast.nry): that provider's domain
  // with the nearest TLD (hotmail.ff → hotmail.fr rather than hotmail.com). Names under 5 letters are left to the
  // TLD repair below: mail.ff is more likely mail.fr than mail.ru.
  const sameHead = kind === "undelegated" && head.length >= 5 ? POPULAR_BY_HEAD.get(head) : undefined;
  if (sameHead !== undefined) return nearestByTld(sameHead, tld);

  let fixed = domain;
  const tldFix = TLD_SLIPS.get(tld) ?? (kind === "undelegated" ? nearestCommonTld(tld) : null);
  if (tldFix != null) fixed = `${head}.${tldFix}`;
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
