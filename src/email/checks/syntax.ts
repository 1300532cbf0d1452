// RFC 5321 mailbox syntax with RFC 6531 UTF-8 local parts. No comments, no folding whitespace, no address literals:
// none of them is accepted by real submission forms, and an address that needs them is a typing accident.
import { domainToASCII } from "node:url";
import { parse as parseDomain } from "tldts";
import type { CheckOutcome, ParsedEmail } from "../types.ts";
import type { CheckContext } from "./context.ts";
import { TLD_SLIPS } from "./typo.ts";

// atext of RFC 5322 plus any non-ASCII character (RFC 6531 UTF8-non-ascii).
const ATOM = /^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~\u0080-\u{10FFFF}]+$/u;
// qtextSMTP (%d32-33 / %d35-91 / %d93-126) or quoted-pairSMTP ("\" %d32-126), plus UTF8-non-ascii.
const QUOTED = /^"(?:[\x20\x21\x23-\x5b\x5d-\x7e\u0080-\u{10FFFF}]|\\[\x20-\x7e])*"$/u;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

export type SyntaxResult =
  | { ok: true; email: ParsedEmail }
  | { ok: false; reason: "invalid_syntax" | "local_part_too_long" | "domain_too_long" };

/** Pure parser behind the syntax check. */
export function parseEmail(input: string): SyntaxResult {
  const at = input.lastIndexOf("@");
  if (at <= 0 || at === input.length - 1) return { ok: false, reason: "invalid_syntax" };
  const local = input.slice(0, at);
  const rawDomain = input.slice(at + 1);

  const quoted = local.startsWith('"');
  if (quoted ? !QUOTED.test(local) : !local.split(".").every((atom) => ATOM.test(atom))) {
    return { ok: false, reason: "invalid_syntax" };
  }
  // Control characters are outside every production above except inside UTF8-non-ascii's C1 range.
  if (/[\u0080-\u009f]/.test(local)) return { ok: false, reason: "invalid_syntax" };

  // Address literals ([192.0.2.1]) and anything else that is not a host name end here.
  if (!/^[^\s@"()<>\[\]\\,;:]+$/u.test(rawDomain)) return { ok: false, reason: "invalid_syntax" };
  const domain = domainToASCII(rawDomain.normalize("NFC")).toLowerCase();
  if (domain === "" || domain.endsWith(".")) return { ok: false, reason: "invalid_syntax" };
  if (domain.length > 253) return { ok: false, reason: "domain_too_long" };
  const labels = domain.split(".");
  if (labels.length < 2 || !labels.every((label) => LABEL.test(label))) return { ok: false, reason: "invalid_syntax" };
  const tld = labels[labels.length - 1]!;
  // A known slip of a popular TLD (.con, .fe) passes here so that the typo check can suggest the fix.
  if (!TLD_SLIPS.has(tld) && parseDomain(domain, { allowPrivateDomains: false }).isIcann !== true) {
    return { ok: false, reason: "invalid_syntax" };
  }

  if (Buffer.byteLength(local, "utf8") > 64) return { ok: false, reason: "local_part_too_long" };
  return { ok: true, email: { local, domain, utf8Local: /[^\x00-\x7f]/.test(local), quoted } };
}

export async function syntax(ctx: CheckContext): Promise<CheckOutcome> {
  const result = parseEmail(ctx.input);
  if (!result.ok) return { status: "fail", reasons: [result.reason], settles: true };
  ctx.state.parsed = result.email;
  return { status: "pass" };
}
