// Suggests the address the user meant when its domain is a slip of one of the mailbox domains people actually use
// (gmial.com, hotmail.fe, bbo.xfr, gamil.om), its TLD is a known slip (.con) or is not in the root zone (.ifno), or a
// stray character precedes it (#gmail.com). A suggestion is made only towards the one target clearly closest: a slip
// as close to two targets, or to a real domain, is left alone, and a real domain is never corrected. The whole domain
// is corrected or nothing is: never a fixed TLD after a name still misspelt. The suggestion is never applied for the
// caller (spec: "must never be applied automatically"). Data and the source of every entry: data/email/typo_domains.json;
// where the lists come from and how they are kept current: docs/decisions.md (Email).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { parse as parseDomain } from "tldts";
import { projectFile } from "../../paths.ts";
import { editDistance } from "../../text/edit_distance.ts";
import type { CheckOutcome, ParsedEmail } from "../types.ts";
import type { CheckContext } from "./context.ts";
import { PROVIDER_RULES } from "./provider_rules.ts";
import { slipDistance } from "./slip_distance.ts";
import { type TldKind, tldKind } from "./tld_kind.ts";

interface Source {
  url: string;
  date: string;
}

interface TypoFile {
  targets: Array<{ domain: string; family: string; source: Source }>;
  siblings: Array<{ domain: string; family: string; source: Source }>;
  real_neighbours: Array<{ domain: string; source: Source }>;
  tld_slips: Array<{ typed: string; meant: string; source: Source }>;
  delegated_tld_slips: Array<{ typed: string; meant: string; source: Source }>;
  domain_slips: Array<{ typed: string; meant: string; source: Source }>;
  single_domain_labels: Array<{ label: string; domain: string; source: Source }>;
  common_tlds: Array<{ tld: string; source: Source }>;
}

const file = JSON.parse(readFileSync(projectFile("data/email/typo_domains.json"), "utf8")) as TypoFile;
const require = createRequire(import.meta.url);

/** The mailbox domains a slip is corrected to, French first. */
export const TARGET_DOMAINS: readonly string[] = file.targets.map((t) => t.domain);
/** Real mailbox domains beside a target (gmx.at, yahoo.gr, laposte.fr): never corrected. */
export const SIBLING_DOMAINS: readonly string[] = file.siblings.map((s) => s.domain);
/** Real domains, not mailbox providers, one slip from a short target (life.com, tree.fr): never corrected. */
export const REAL_NEIGHBOUR_DOMAINS: readonly string[] = file.real_neighbours.map((r) => r.domain);
/** The mail domains of npm's email-providers ranked in the Majestic Million's first 100,000: real, so never
 *  corrected. Its full list is not used: it holds typo domains people signed up with (gmai.com, hotmail.con). */
export const COMMON_MAIL_DOMAINS: readonly string[] = require("email-providers/common.json") as string[];

const TARGETS = new Set(TARGET_DOMAINS);
/** Domains never corrected: the targets, the real domains beside them, email-providers' ranked list, and every provider
 *  with local-part rules. */
const PROTECTED = new Set([
  ...TARGET_DOMAINS,
  ...SIBLING_DOMAINS,
  ...REAL_NEIGHBOUR_DOMAINS,
  ...COMMON_MAIL_DOMAINS,
  ...PROVIDER_RULES.keys(),
]);

/** Mistyped TLD that is not a real one → intended TLD (hotmail.fe → .fr). Keys that are real TLDs are dropped. */
export const TLD_SLIPS: ReadonlyMap<string, string> = new Map(
  file.tld_slips.filter((s) => tldKind(s.typed) === "undelegated").map((s) => [s.typed, s.meant]),
);
/** Real TLDs that are the usual slips of a target's TLD (.cm for .com): only ever read towards a target. */
const DELEGATED_TLD_SLIPS: ReadonlyMap<string, string> = new Map(
  file.delegated_tld_slips.map((s) => [s.typed, s.meant]),
);
/** Whole-domain slips of short provider names that the keyboard distance counts as unlikely (gmsn.com). */
const DOMAIN_SLIPS: ReadonlyMap<string, string> = new Map(file.domain_slips.map((s) => [s.typed, s.meant]));
/** First label → the only domain its provider issues mailboxes under (gmail → gmail.com). */
const SINGLE_DOMAIN: ReadonlyMap<string, string> = new Map(file.single_domain_labels.map((s) => [s.label, s.domain]));
const COMMON_TLDS: readonly string[] = file.common_tlds.map((t) => t.tld);

interface Target {
  domain: string;
  /** Which letters and digits it holds (letterMask). */
  mask: number;
  /** The provider's name: the label before the public suffix (yahoo of yahoo.co.uk). */
  name: string;
  /** The last label (uk of yahoo.co.uk). */
  tld: string;
}

const TARGET_ENTRIES: readonly Target[] = TARGET_DOMAINS.map((domain) => ({
  domain,
  mask: letterMask(domain),
  name: parseDomain(domain, { allowPrivateDomains: false }).domainWithoutSuffix!,
  tld: lastLabel(domain),
}));

/** The most slips any target tolerates; a slip farther than this from every target is no slip of one. */
const MAX_SLIPS = 2;

/**
 * The real domains a slip of `target` may be as close to (then it is left alone): those near enough to the target for
 * a domain to be within MAX_SLIPS of both. The margin is wide (a weighted distance keeps the triangle inequality only
 * roughly); the few hundred others are never compared on a call. Worked out the first time a slip of that target is
 * seen, not at start: a few milliseconds per target.
 */
function realRivals(target: Target): readonly { domain: string; tld: string }[] {
  let rivals = REAL_RIVALS.get(target.domain);
  if (rivals === undefined) {
    const reach = 3 * MAX_SLIPS;
    rivals = [...PROTECTED]
      .filter((real) => !TARGETS.has(real) && slipsAtLeast(letterMask(real), target.mask) <= reach)
      .filter((real) => slipDistance(real, target.domain, reach) <= reach)
      .map((domain) => ({ domain, tld: lastLabel(domain) }));
    REAL_RIVALS.set(target.domain, rivals);
  }
  return rivals;
}
const REAL_RIVALS = new Map<string, readonly { domain: string; tld: string }[]>();

/** One bit per letter a domain holds, one for any digit, one for '-'. Each letter that one of two domains holds and
 *  the other lacks costs at least one slip: a bound worked out without the table, which most targets fail. */
function letterMask(domain: string): number {
  let mask = 0;
  for (let i = 0; i < domain.length; i++) {
    const c = domain.charCodeAt(i);
    if (c >= 97 && c <= 122) mask |= 1 << (c - 97);
    else if (c >= 48 && c <= 57) mask |= 1 << 26;
    else if (c === 45) mask |= 1 << 27;
  }
  return mask;
}

function bitCount(n: number): number {
  let count = 0;
  for (let m = n; m !== 0; m &= m - 1) count++;
  return count;
}

/** At least this many slips between two domains of these letter masks. */
function slipsAtLeast(a: number, b: number): number {
  return Math.max(bitCount(a & ~b), bitCount(b & ~a));
}

function lastLabel(domain: string): string {
  return domain.slice(domain.lastIndexOf(".") + 1);
}

/**
 * How many slips a target tolerates. Long names (gmail, orange) two: nothing real lies two slips from them but the
 * siblings listed. Names of three or four letters (sfr, live, bbox) sit one slip from many real domains (sfe.fr,
 * life.com): one slip, or two when the domain typed cannot be real (its TLD is not in the root zone, or it is not even
 * well-formed). Names of one or two letters (me.com): every one-slip neighbour is a real domain, so only the TLD and
 * the dot may be off.
 */
function tolerance(target: Target, surelySlip: boolean): number {
  if (target.name.length >= 5) return 2;
  if (target.name.length >= 3) return surelySlip ? 2 : 1;
  return 1;
}

/** For a target's name of one or two letters: the name was typed intact (me.con, mecom), only the rest slipped. */
function nameIntact(typed: string, target: Target): boolean {
  const head = typed.split(/[.,]/, 1)[0]!;
  return head === target.name || typed.replace(/[.,]/g, "") === target.domain.replace(/\./g, "");
}

/** The same letters with the dot elsewhere (laposten.et): the TLD typed is no other country's, it is a moved dot. */
function onlyTheDotSlipped(typed: string, target: string): boolean {
  return typed.length === target.length && typed.replaceAll(".", "") === target.replaceAll(".", "");
}

/**
 * The one target clearly closest to `typed`, or null. `typed` is a domain in lower case, well-formed or not (gmailcom,
 * gmail,com). `tld`: how the DNS treats its TLD, null when it is not even well-formed, and so surely a slip.
 */
function nearestTarget(typed: string, tld: TldKind | null): string | null {
  const surelySlip = tld !== "delegated";
  const typedTld = lastLabel(typed);
  // A TLD that is a known slip (hotmail.fe) says which TLD was meant: the targets under it are read with that TLD,
  // one slip spent, and the real domains under other TLDs are no rivals. Without that, hotmail.fe would be as close to
  // the real hotmail.de as to hotmail.fr. Targets under other TLDs still are (gmx.fe: gmx.de as near as gmx.fr).
  const meantTld = TLD_SLIPS.get(typedTld);
  const repaired = meantTld === undefined ? typed : `${typed.slice(0, typed.length - typedTld.length)}${meantTld}`;
  // A TLD in the root zone is changed only when it is a known slip of the target's (gmail.cm): yahoo.gr, sfr.re,
  // orange.be are other countries' real domains.
  const typedTldReal = meantTld === undefined && tld === "delegated";
  let best: Target | null = null;
  let bestSlips = MAX_SLIPS + 1;
  let tied = false;
  const typedMask = letterMask(typed);
  const repairedMask = meantTld === undefined ? typedMask : letterMask(repaired);
  for (const target of TARGET_ENTRIES) {
    if (Math.abs(target.domain.length - typed.length) > MAX_SLIPS + 1) continue;
    const viaTld = target.tld === meantTld && slipsAtLeast(repairedMask, target.mask) + 1 <= MAX_SLIPS;
    if (slipsAtLeast(typedMask, target.mask) > MAX_SLIPS && !viaTld) continue;
    let slips = slipDistance(typed, target.domain, MAX_SLIPS);
    if (viaTld) slips = Math.min(slips, slipDistance(repaired, target.domain, MAX_SLIPS - 1) + 1);
    if (slips > MAX_SLIPS || slips > bestSlips) continue;
    if (slips === bestSlips) {
      tied = true;
      continue;
    }
    const allowed =
      slips <= tolerance(target, surelySlip || meantTld !== undefined) &&
      (target.name.length > 2 || nameIntact(typed, target)) &&
      (!typedTldReal ||
        typedTld === target.tld ||
        DELEGATED_TLD_SLIPS.get(typedTld) === target.tld ||
        onlyTheDotSlipped(typed, target.domain));
    // A nearer target that may not be corrected to still shadows the farther ones: they are not clearly closest.
    best = allowed ? target : null;
    bestSlips = slips;
    tied = false;
  }
  if (best === null || tied) return null;
  // As close to a real domain (gmx.ay: gmx.at as near as gmx.de) is no clear slip of the target.
  for (const real of realRivals(best)) {
    if (meantTld !== undefined) {
      if (real.tld === meantTld && slipDistance(repaired, real.domain, bestSlips - 1) + 1 <= bestSlips) return null;
    } else if (slipDistance(typed, real.domain, bestSlips) <= bestSlips) return null;
  }
  return best.domain;
}

/** The one common TLD a single edit away from an undelegated TLD (ifno → info), or null when none or several are. */
function nearestCommonTld(tld: string): string | null {
  const near = COMMON_TLDS.filter((t) => editDistance(tld, t, { cap: 1 }) <= 1);
  return near.length === 1 ? near[0]! : null;
}

/** True when some target is within two slips of the domain. */
function nearTarget(domain: string): boolean {
  for (const target of TARGET_ENTRIES) {
    if (Math.abs(target.domain.length - domain.length) > MAX_SLIPS) continue;
    if (slipDistance(domain, target.domain, MAX_SLIPS) <= MAX_SLIPS) return true;
  }
  return false;
}

/** True when a target of another name is within two slips of the domain: its name looks misspelt too (sdr.fr). */
function nameLooksMisspelt(domain: string): boolean {
  const name = domain.slice(0, domain.indexOf("."));
  for (const target of TARGET_ENTRIES) {
    if (target.name === name || Math.abs(target.domain.length - domain.length) > MAX_SLIPS) continue;
    if (slipDistance(domain, target.domain, MAX_SLIPS) <= MAX_SLIPS) return true;
  }
  return false;
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

  const target = nearestTarget(domain, kind);
  if (target !== null) return target;

  // Any other domain with a TLD slip (example.con, acme.ifno): the TLD repaired, but only when the name is not itself
  // a slip of a target (sdr.fd is no sdr.fr: a half fix would invent a domain nobody meant).
  const tldFix = TLD_SLIPS.get(tld) ?? (kind === "undelegated" ? nearestCommonTld(tld) : null);
  if (tldFix == null) return null;
  // A slip of a target that could not be settled (gmx.fe: gmx.de, or gmx.fr?) is left alone, not repaired into one.
  if (nearTarget(domain)) return null;
  const fixed = `${head}.${tldFix}`;
  if (PROTECTED.has(fixed)) return fixed;
  return nameLooksMisspelt(fixed) ? null : fixed;
}

/**
 * For a domain that is not even well-formed because of a slip: a comma for a dot or a doubled dot (gmail,com,
 * acme..fr), or a dropped dot in a target (gmailcom). The domain meant, or null. `typed` is the text after the '@';
 * the caller checks that the address with this domain is well-formed. Pure.
 */
export function suggestBrokenDomain(typed: string): string | null {
  const lower = typed.toLowerCase();
  if (!/^[a-z0-9.,-]+$/.test(lower)) return null;
  const separated = lower.replace(/[.,]+/g, ".").replace(/^\.|\.$/g, "");
  if (separated.includes(".")) {
    if (separated === lower) return null;
    // The dots put back, corrected further if need be; never a domain that cannot exist (acme,zz is no acme.zz).
    return suggestDomain(separated) ?? (tldKind(lastLabel(separated)) === "delegated" ? separated : null);
  }
  return nearestTarget(lower, null);
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
