// RFC 5321 mailbox syntax with RFC 6531 UTF-8 local parts. No comments, no folding whitespace, no address literals:
// none of them is accepted by real submission forms, and an address that needs them is a typing accident.
//
// Top-level domains. A TLD that is not in the root zone is not a syntax error: the address is
// well-formed, its domain simply cannot resolve. It passes here with `unresolvable` set, so that the typo check can
// still suggest what was meant (wanadoo.ff → wanadoo.fr) and the mx check answers domain_does_not_resolve without a
// DNS query. Special-use names (RFC 6761 §6, RFC 6762, RFC 7686, RFC 9476) are sorted by tldKind() (tld_kind.ts).
import { domainToASCII } from "node:url";
import type { CheckOutcome, ParsedEmail } from "../types.ts";
import type { CheckContext } from "./context.ts";
import { tldKind } from "./tld_kind.ts";
import { suggestBrokenDomain } from "./typo.ts";

// atext of RFC 5322 plus any non-ASCII character (RFC 6531 UTF8-non-ascii).
const ATOM = /^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~\u0080-\u{10FFFF}]+$/u;
// qtextSMTP (%d32-33 / %d35-91 / %d93-126) or quoted-pairSMTP ("\" %d32-126), plus UTF8-non-ascii.
const QUOTED = /^"(?:[\x20\x21\x23-\x5b\x5d-\x7e\u0080-\u{10FFFF}]|\\[\x20-\x7e])*"$/u;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
// With the u flag a well-formed pair is one code point, so this only matches a lone (unpaired) surrogate.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
// One stray character before the domain (x@#gmail.com): the atext symbols that sit beside '@' on keyboards (US
// QWERTY Shift+2/Shift+3, French AZERTY AltGr row), never '-' or '_' (RFC 1035 §2.3.1 / RFC 5321 §4.1.2 keep those
// to the middle of a label: a leading one is plain invalid syntax) nor '.' (an empty label, isemail ERR_DOT_START).
const STRAY = /^[!#$%&'*+/=?^`{|}~](?=[\p{L}\p{N}])/u;

/** Longest mailbox: RFC 5321 §4.5.3.1.3 allows a path of 256 octets, and the path holds the mailbox in "<" ">". */
export const MAX_ADDRESS_OCTETS = 254;
/** RFC 5321 §4.5.3.1.1. */
export const MAX_LOCAL_OCTETS = 64;
/** RFC 1035 §2.3.4 (255 octets on the wire) as text without the trailing dot: RFC 5321 §4.5.3.1.2. */
export const MAX_DOMAIN_OCTETS = 253;

export { tldKind, type TldKind } from "./tld_kind.ts";

type SyntaxReason = "invalid_syntax" | "local_part_too_long" | "domain_too_long";

export type SyntaxResult = { ok: true; email: ParsedEmail } | { ok: false; reasons: SyntaxReason[] };

const invalid: SyntaxResult = { ok: false, reasons: ["invalid_syntax"] };

/** The content of a quoted local part when it is a dot-atom that needs no quotes ("jean.dupont"), else null. */
function unneededQuotes(local: string): string | null {
  const inner = local.slice(1, -1).replace(/\\(.)/gu, "$1");
  return inner !== "" && inner.split(".").every((atom) => ATOM.test(atom)) ? inner : null;
}

/** Pure parser behind the syntax check. */
export function parseEmail(input: string): SyntaxResult {
  // RFC 6531 §3.3 addresses are UTF-8: a lone surrogate has no UTF-8 form at all.
  if (LONE_SURROGATE.test(input)) return invalid;
  const at = input.lastIndexOf("@");
  if (at <= 0 || at === input.length - 1) return invalid;
  let local = input.slice(0, at);
  const rawDomain = input.slice(at + 1);

  let quoted = local.startsWith('"');
  if (quoted ? !QUOTED.test(local) : !local.split(".").every((atom) => ATOM.test(atom))) return invalid;
  // Control characters are outside every production above except inside UTF8-non-ascii's C1 range.
  if (/[\u0080-\u009f]/.test(local)) return invalid;
  // RFC 5322 §3.2.4: quotes are "semantically invisible", so "jean.dupont" is the mailbox jean.dupont; and RFC 5321
  // §4.1.2 asks senders not to quote what does not need it. Later checks see the unquoted form.
  if (quoted) {
    const plain = unneededQuotes(local);
    if (plain !== null) {
      local = plain;
      quoted = false;
    }
  }

  // Address literals ([192.0.2.1]) and anything else that is not a host name end here.
  if (!/^[^\s@"()<>[\]\\,;:]+$/u.test(rawDomain)) return invalid;
  const stray = STRAY.exec(rawDomain)?.[0] ?? "";
  const domain = domainToASCII(rawDomain.slice(stray.length).normalize("NFC")).toLowerCase();
  if (domain === "" || domain.endsWith(".")) return invalid;

  // Both limits are reported when both are broken: the caller can tell the user everything at once.
  const localOctets = Buffer.byteLength(local, "utf8");
  const reasons: SyntaxReason[] = [];
  if (localOctets > MAX_LOCAL_OCTETS) reasons.push("local_part_too_long");
  if (domain.length > MAX_DOMAIN_OCTETS) reasons.push("domain_too_long");
  if (reasons.length > 0) return { ok: false, reasons };

  const labels = domain.split(".");
  // RFC 5321 §2.3.5: only fully-qualified names; a single label (jane@localhost) is not one.
  if (labels.length < 2 || !labels.every((label) => LABEL.test(label))) return invalid;
  const tld = labels[labels.length - 1]!;
  // RFC 3696 §2: a top-level domain is never all-numeric (1.2.3.4 is an address, not a name).
  if (/^[0-9]+$/.test(tld)) return invalid;
  // Each part fits, yet the whole may not: a mailbox longer than 254 octets has no valid SMTP path.
  if (localOctets + 1 + domain.length > MAX_ADDRESS_OCTETS) return invalid;

  const kind = tldKind(tld);
  const unresolvable = stray !== "" || kind === "never_resolves" || kind === "undelegated";
  const email: ParsedEmail = { local, domain: stray + domain, utf8Local: /[^\x00-\x7f]/.test(local), quoted };
  if (unresolvable) email.unresolvable = true;
  return { ok: true, email };
}

/**
 * The address meant when the input fails syntax only because of a slip in its domain (jane@gmailcom,
 * jane@gmail,com): the same local part at the corrected domain, itself well-formed. Null otherwise. Pure.
 */
export function suggestForMalformed(input: string): string | null {
  const at = input.lastIndexOf("@");
  if (at <= 0) return null;
  const domain = suggestBrokenDomain(input.slice(at + 1));
  if (domain === null) return null;
  const meant = parseEmail(`${input.slice(0, at)}@${domain}`);
  return meant.ok ? `${meant.email.local}@${meant.email.domain}` : null;
}

export async function syntax(ctx: CheckContext): Promise<CheckOutcome> {
  const result = parseEmail(ctx.input);
  if (!result.ok) {
    // Still invalid_syntax (the spec's word for what was typed), with the address meant when only a slip broke it.
    const suggestion = result.reasons.includes("invalid_syntax") ? suggestForMalformed(ctx.input) : null;
    return suggestion === null
      ? { status: "fail", reasons: result.reasons, settles: true }
      : { status: "fail", reasons: result.reasons, settles: true, suggestion };
  }
  ctx.state.parsed = result.email;
  return { status: "pass" };
}
