// Local-part rules of big providers, kept as data (data/email/provider_rules.json) with a source per rule.
// A quoted local part that needs no quotes ("jean.dupont"@gmail.com) reaches this check unquoted (the syntax check
// strips quotes that RFC 5322 §3.2.4 calls semantically invisible), so it is judged as jean.dupont@gmail.com.
import { readFileSync } from "node:fs";
import { projectFile } from "../../paths.ts";
import type { CheckOutcome, ParsedEmail } from "../types.ts";
import type { CheckContext } from "./context.ts";

interface RuleFile {
  rules: Array<{
    provider: string;
    domains: string[];
    pattern: string;
    min_length: number;
    max_length: number;
    ignore_dots?: boolean;
    tag_separator?: string;
  }>;
}

export interface ProviderRule {
  provider: string;
  pattern: RegExp;
  minLength: number;
  maxLength: number;
  ignoreDots: boolean;
  tagSeparator: string | null;
}

function load(): Map<string, ProviderRule> {
  const file = JSON.parse(readFileSync(projectFile("data/email/provider_rules.json"), "utf8")) as RuleFile;
  const byDomain = new Map<string, ProviderRule>();
  for (const r of file.rules) {
    const rule: ProviderRule = {
      provider: r.provider,
      pattern: new RegExp(r.pattern),
      minLength: r.min_length,
      maxLength: r.max_length,
      ignoreDots: r.ignore_dots ?? false,
      tagSeparator: r.tag_separator ?? null,
    };
    for (const domain of r.domains) byDomain.set(domain, rule);
  }
  return byDomain;
}

/** Loaded once at import: domain → rule. */
export const PROVIDER_RULES: ReadonlyMap<string, ProviderRule> = load();

/** True when the local part cannot exist at the provider. Pure. Domains without a rule never violate. */
export function violatesProviderRule(email: ParsedEmail): boolean {
  const rule = PROVIDER_RULES.get(email.domain);
  if (rule === undefined) return false;
  // Quotes that are still there are needed (a space, a second '@'): no provider's sign-up form accepts those.
  if (email.quoted || email.utf8Local) return true;
  let base = email.local.toLowerCase();
  if (rule.tagSeparator !== null) {
    const cut = base.indexOf(rule.tagSeparator);
    if (cut === 0) return true;
    if (cut > 0) base = base.slice(0, cut);
  }
  if (!rule.pattern.test(base)) return true;
  const length = rule.ignoreDots ? base.replaceAll(".", "").length : base.length;
  return length < rule.minLength || length > rule.maxLength;
}

export async function providerRules(ctx: CheckContext): Promise<CheckOutcome> {
  if (violatesProviderRule(ctx.state.parsed!)) {
    return { status: "fail", reasons: ["provider_rule_violation"], settles: true };
  }
  return { status: "pass" };
}
