// SMTP replies → what they say about the recipient. Order matters and follows docs/contract.md §4:
//   1. 2xx                                   → accepted
//   2. enhanced 5.2.2 / 4.2.2, "over quota"  → mailbox_full (wins over greylisting)
//   3. a block of OUR address or identity    → blocked (probe_unavailable: never undeliverable)
//   4. "too many recipients"                 → too_many_recipients (reconnect, do not conclude)
//   5. 5xx unknown / disabled user           → mailbox_not_found
//   6. basic code 552                        → mailbox_full
//   7. any other 4xx                         → greylisted
//   8. any other 5xx                         → rejected (probe_unavailable: we cannot tell what it means)
// Each pattern keeps the real reply that motivated it. Patterns see the text after plainText(): servers write curly
// apostrophes ("doesn’t"), typographic quotes and non-breaking spaces, and the patterns are plain ASCII.

export interface SmtpReply {
  code: number;
  /** RFC 3463 enhanced status code ("5.1.1") when the server sent one. */
  enhanced: string | null;
  /** All lines of the reply without their code prefixes, joined by a space. */
  text: string;
}

export type ReplyCategory =
  | "accepted"
  | "mailbox_not_found"
  | "mailbox_full"
  | "greylisted"
  | "blocked"
  | "too_many_recipients"
  | "rejected";

/** Parses the lines of one reply ("250-first", "250 last"). Returns null when they are not an SMTP reply. */
export function parseReply(lines: readonly string[]): SmtpReply | null {
  if (lines.length === 0) return null;
  const code = Number(lines[0]!.slice(0, 3));
  if (!/^[2-5]\d\d$/.test(lines[0]!.slice(0, 3))) return null;
  const text = lines
    .map((l) => l.slice(4).trim())
    .join(" ")
    .trim();
  const enhanced = /^([245])\.(\d{1,3})\.(\d{1,3})\b/.exec(text);
  return { code, enhanced: enhanced ? `${enhanced[1]}.${enhanced[2]}.${enhanced[3]}` : null, text };
}

interface Pattern {
  pattern: RegExp;
  example: string;
}

const FULL_TEXT: Pattern[] = [
  {
    pattern: /over quota|quota exceeded|mailbox (is )?full|mailbox.*full|insufficient (system )?storage/i,
    example: "452-4.2.2 The email account that you tried to reach is over quota. (Gmail)",
  },
  { pattern: /too many messages/i, example: "550 user has too many messages on the server" },
  {
    pattern: /inbox (is )?(full|out of storage)|out of storage space|inbox.*full/i,
    example: "452-4.2.2 The recipient's inbox is out of storage space. Please direct the recipient to ... (Gmail)",
  },
  {
    pattern: /bo[iî]te( aux lettres)?( du destinataire)? pleine/i,
    example: "552 5.2.2 Boite du destinataire pleine. Recipient mailbox full. OFR_417 [417] (Orange)",
  },
];

const BLOCK_TEXT: Pattern[] = [
  {
    pattern: /spamhaus|spamcop|barracuda|abusix|sorbs|dnsbl|\brbl\b|uceprotect/i,
    example: "554 5.7.1 Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org",
  },
  {
    pattern: /black ?list|block ?list|blocklisted|blacklisted|block listed|listed (on|at) /i,
    example: "gmx.net (mxgmx117) Nemesis ESMTP Service not available; No SMTP service; IP address is block listed.",
  },
  {
    pattern: /\bblocked\b|\bbanned\b|administratively denied|poor reputation|reputation/i,
    example: "550 5.7.606 Access denied, banned sending IP [192.0.2.1] (Microsoft 365)",
  },
  {
    pattern: /client host|your ip|sending ip|the ip |ip address|from your location|connections will not be accepted/i,
    example:
      "553 5.7.1 [BL21] Connections will not be accepted from 192.0.2.1, because the ip is in Spamhaus's list (Yahoo)",
  },
  {
    pattern: /reverse (dns|hostname|lookup)|\brdns\b|\bptr\b|cannot find your hostname/i,
    example: "450 4.7.1 Client host rejected: cannot find your reverse hostname, [192.0.2.1] (Postfix)",
  },
  {
    pattern: /unsolicited|\[TSS\d+\]|user complaints|unexpected volume/i,
    example:
      "421 4.7.0 [TSS04] Messages from 192.0.2.1 temporarily deferred due to unexpected volume or user complaints (Yahoo)",
  },
  {
    pattern:
      /sender address rejected|sender verify|verification failed for|domain of sender|sender domain|sender.*(not|does not) (resolve|exist)/i,
    example: "450 4.1.8 <verify@probe.example>: Sender address rejected: Domain not found (Postfix)",
  },
  {
    pattern: /proofpoint|sbrs score|senderbase|not yet authorized|ip ?check/i,
    example: "554 Blocked - see https://ipcheck.proofpoint.com/?ip=192.0.2.1 (Proofpoint)",
  },
  {
    pattern: /\bOFR\d*_?\d*.*(ip|spam)|adresse ip|bloqu/i,
    example: "550 mwinf5c07 ME Adresse IP source bloquee pour incident de spam. OFR004_104 (Orange)",
  },
];

const NOT_FOUND_TEXT: Pattern[] = [
  {
    pattern: /user unknown|unknown user|recipient unknown|unknown recipient|unknown local part/i,
    example: "550 5.1.1 <x@example.com>: Recipient address rejected: User unknown in local recipient table (Postfix)",
  },
  {
    pattern:
      /no such (user|mailbox|recipient|person|address)|no mailbox|mailbox (not found|unavailable|is unavailable|does not exist)/i,
    example: "550 Requested action not taken: mailbox unavailable (Exchange / Outlook.com)",
  },
  {
    pattern: /does ?n[o']?t exist|not exist|dosn't exist|may not exist|could not be found|not found/i,
    example: "550-5.1.1 The email account that you tried to reach does not exist. (Gmail)",
  },
  {
    pattern:
      /invalid (recipient|mailbox|address|email address)|recipient (invalid|rejected|not found)|not a valid mailbox|address rejected/i,
    example: "550 Invalid Recipient - https://community.mimecast.com/docs/DOC-1369#550 (Mimecast)",
  },
  {
    pattern:
      /unrouteable address|(n't|not) have an? (\S+ )?account|address is not handled|account (is |has been )?disabled|discontinued|inactive|mailbox disabled|destinataire invalide|n'existe pas|inconnu/i,
    example: "554 delivery error: dd This user doesn't have a yahoo.com account (Yahoo)",
  },
  {
    pattern: /\b(account|mailbox|user)\b[^.]{0,60}\b(is|has been) (disabled|deactivated|suspended|closed)\b/i,
    example:
      "554 The email account that you tried to reach is disabled. Learn more at https://support.google.com/mail/?p=DisabledUser (Gmail)",
  },
];

const matches = (patterns: Pattern[], text: string) => patterns.some((p) => p.pattern.test(text));

/** The reply text as the patterns expect it: compatibility forms folded (NFKC: no-break spaces, full-width letters),
 *  curly apostrophes and quotes made straight, runs of white space made one space. Pure. */
function plainText(text: string): string {
  return text
    .normalize("NFKC")
    .replace(/[\u2018\u2019\u201a\u201b\u2032\u02bc\u00b4`]/g, "'")
    .replace(/[\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb]/g, '"')
    .replace(/\s+/g, " ");
}

export interface ClassifyOptions {
  /** The command the reply answers: at MAIL FROM and before, a rejection is about us, never about the recipient. */
  stage?: "banner" | "helo" | "mail" | "rcpt";
}

/** Category of one reply. Pure. */
export function classifyReply(reply: SmtpReply, options: ClassifyOptions = {}): ReplyCategory {
  const { stage = "rcpt" } = options;
  const { code, enhanced } = reply;
  const text = plainText(reply.text);
  if (code >= 200 && code < 300) return "accepted";
  if (enhanced === "5.2.2" || enhanced === "4.2.2" || matches(FULL_TEXT, text)) {
    if (stage === "rcpt") return "mailbox_full";
  }
  if (matches(BLOCK_TEXT, text)) return "blocked";
  if (stage !== "rcpt") return code >= 500 ? "blocked" : "greylisted";
  if (enhanced === "4.5.3" || enhanced === "5.5.3" || /too many recipients/i.test(text)) return "too_many_recipients";
  if (code >= 500) {
    if (enhanced !== null && /^5\.1\.(0|1|2|3|6|10)$/.test(enhanced)) return "mailbox_not_found";
    if (enhanced === "5.2.1") return "mailbox_not_found"; // disabled mailbox: nothing will be delivered
    // Microsoft 365: "550 5.4.1 Recipient address rejected: Access denied" is its unknown-recipient answer
    // (directory-based edge blocking), not a block of the sender.
    if (enhanced === "5.4.1" && /access denied|recipient address rejected/i.test(text)) return "mailbox_not_found";
    if (matches(NOT_FOUND_TEXT, text)) return "mailbox_not_found";
    if (code === 552) return "mailbox_full";
    return "rejected";
  }
  return "greylisted";
}

/** Delay a greylisting reply asks for ("try again in 5 minutes", "greylisted for 300 seconds"), in ms, or null. */
export function retryHintMs(reply: SmtpReply): number | null {
  const m = /(\d{1,5})\s*(seconds?|secs?|s\b|minutes?|mins?|m\b)/i.exec(reply.text);
  if (m === null) return null;
  const value = Number(m[1]) * (/^m/i.test(m[2]!) ? 60_000 : 1000);
  return Math.min(Math.max(value, 1000), 30 * 60_000);
}
