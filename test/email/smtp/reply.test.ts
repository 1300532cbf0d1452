// The classifier, one real-world reply per row. Rows come from published bounce/deferral texts of each server
// family (provider postmaster pages and texts collected by open-source verifiers); IPs are documentation addresses.
import assert from "node:assert/strict";
import { test } from "node:test";
import { classifyReply, parseReply, retryHintMs, type ReplyCategory } from "../../../src/email/smtp/reply.ts";

type Row = [source: string, lines: string[], expected: ReplyCategory, stage?: "banner" | "helo" | "mail" | "rcpt"];

const ROWS: Row[] = [
  // Accepted
  ["Postfix accepts", ["250 2.1.5 Ok"], "accepted"],
  ["Gmail accepts", ["250 2.1.5 OK 5b1f17b1804b1-42b8a1c5c4asi123456f8f.1 - gsmtp"], "accepted"],
  ["forwarding accepted (251)", ["251 2.1.5 User not local; will forward"], "accepted"],
  // Gmail
  [
    "Gmail unknown user",
    [
      "550-5.1.1 The email account that you tried to reach does not exist. Please try",
      "550-5.1.1 double-checking the recipient's email address for typos or",
      "550 5.1.1 unnecessary spaces. https://support.google.com/mail/?p=NoSuchUser",
    ],
    "mailbox_not_found",
  ],
  [
    "Gmail disabled account",
    [
      "550-5.2.1 The email account that you tried to reach is disabled. Learn more at",
      "550 5.2.1 https://support.google.com/mail/?p=DisabledUser",
    ],
    "mailbox_not_found",
  ],
  [
    "Gmail over quota (4xx)",
    [
      "452-4.2.2 The email account that you tried to reach is over quota. Please direct",
      "452 4.2.2 the recipient to https://support.google.com/mail/?p=OverQuotaTemp",
    ],
    "mailbox_full",
  ],
  [
    "Gmail over quota (5xx)",
    [
      "552-5.2.2 The email account that you tried to reach is over quota. Please direct",
      "552 5.2.2 the recipient to https://support.google.com/mail/?p=OverQuotaPerm",
    ],
    "mailbox_full",
  ],
  [
    "Gmail receiving rate limit",
    [
      "450-4.2.1 The user you are trying to contact is receiving mail at a rate that",
      "450 4.2.1 prevents additional messages from being delivered.",
    ],
    "greylisted",
  ],
  [
    "Gmail blocks our IP for unsolicited mail",
    [
      "421-4.7.0 [192.0.2.1] Our system has detected an unusual rate of",
      "421 4.7.0 unsolicited mail originating from your IP address.",
    ],
    "blocked",
  ],
  [
    "Gmail without PTR",
    ["550-5.7.25 [192.0.2.1] The IP address sending this message does not have a", "550 5.7.25 PTR record setup"],
    "blocked",
  ],
  // Microsoft 365 / Outlook.com
  [
    "Microsoft 365 directory-based edge blocking (unknown recipient)",
    [
      "550 5.4.1 Recipient address rejected: Access denied. For more information see https://aka.ms/EXOSmtpErrors [AM4PEPF00027A5F.eurprd04.prod.outlook.com]",
    ],
    "mailbox_not_found",
  ],
  [
    "Outlook.com unknown mailbox",
    [
      "550 5.5.0 Requested action not taken: mailbox unavailable (S2017062302). [DB5EUR03FT012.eop-EUR03.prod.protection.outlook.com]",
    ],
    "mailbox_not_found",
  ],
  [
    "Microsoft banned sending IP",
    [
      "550 5.7.606 Access denied, banned sending IP [192.0.2.1]. To request removal from this list please visit https://sender.office.com/",
    ],
    "blocked",
  ],
  [
    "Outlook.com blocklisted IP (S3150)",
    [
      "550 5.7.1 Unfortunately, messages from [192.0.2.1] weren't sent. Please contact your Internet service provider since part of their network is on our block list (S3150).",
    ],
    "blocked",
  ],
  ["Exchange mailbox full", ["452 4.2.2 Mailbox full"], "mailbox_full"],
  // Yahoo / AOL
  [
    "Yahoo unknown user",
    [
      "554 delivery error: dd This user doesn't have a yahoo.com account (jane@yahoo.com) [0] - mta1234.mail.ne1.yahoo.com",
    ],
    "mailbox_not_found",
  ],
  ["Yahoo 552 'mailbox not found'", ["552 1 Requested mail action aborted, mailbox not found"], "mailbox_not_found"],
  [
    "Yahoo deferral for volume or complaints",
    [
      "421 4.7.0 [TSS04] Messages from 192.0.2.1 temporarily deferred due to unexpected volume or user complaints - 4.16.55.1; see https://postmaster.yahooinc.com/error-codes",
    ],
    "blocked",
  ],
  [
    "Yahoo Spamhaus listing",
    [
      "553 5.7.1 [BL21] Connections will not be accepted from 192.0.2.1, because the ip is in Spamhaus's list; see https://postmaster.yahooinc.com/error-codes",
    ],
    "blocked",
  ],
  [
    "AOL disabled account",
    [
      "554 delivery error: dd Sorry your message to jane@aol.com cannot be delivered. This account has been disabled or discontinued [#102].",
    ],
    "mailbox_not_found",
  ],
  // Orange / Free / SFR
  [
    "Orange invalid recipient",
    ["550 5.1.1 Adresse d au moins un destinataire invalide. Invalid recipient. OFR_416 [416]"],
    "mailbox_not_found",
  ],
  [
    "Orange IP blocked for spam",
    [
      "550 mwinf5c07 ME Adresse IP source bloquee pour incident de spam. Client host blocked for spamming issues. OFR004_104 [104]",
    ],
    "blocked",
  ],
  [
    "Orange mailbox full",
    ["552 5.2.2 Boite du destinataire pleine. Recipient mailbox full. OFR_417 [417]"],
    "mailbox_full",
  ],
  [
    "Free unknown user",
    ["550 5.1.1 <jane@free.fr>: Recipient address rejected: Free.fr - user unknown"],
    "mailbox_not_found",
  ],
  [
    "Free greylisting",
    ["450 4.7.1 <jane@free.fr>: Recipient address rejected: Greylisted for 300 seconds"],
    "greylisted",
  ],
  ["SFR temporary failure", ["451 4.3.0 Temporary local problem, please try later"], "greylisted"],
  // Postfix
  [
    "Postfix local recipient table",
    ["550 5.1.1 <jane@example.com>: Recipient address rejected: User unknown in local recipient table"],
    "mailbox_not_found",
  ],
  [
    "Postfix virtual alias table",
    ["550 5.1.1 <jane@example.com>: Recipient address rejected: User unknown in virtual alias table"],
    "mailbox_not_found",
  ],
  [
    "Postfix postgrey",
    [
      "450 4.2.0 <jane@example.com>: Recipient address rejected: Greylisted, see http://postgrey.schweikert.ch/help/example.com.html",
    ],
    "greylisted",
  ],
  [
    "Postfix Spamhaus RBL",
    [
      "554 5.7.1 Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org; https://www.spamhaus.org/query/ip/192.0.2.1",
    ],
    "blocked",
  ],
  [
    "Postfix missing reverse DNS",
    ["450 4.7.1 Client host rejected: cannot find your reverse hostname, [192.0.2.1]"],
    "blocked",
  ],
  [
    "Postfix sender domain check",
    ["450 4.1.8 <verify@probe.example>: Sender address rejected: Domain not found"],
    "blocked",
  ],
  ["Postfix too many recipients", ["452 4.5.3 Error: too many recipients"], "too_many_recipients"],
  [
    "Postfix relay denied (bare 5xx of unknown meaning)",
    ["554 5.7.1 <jane@example.org>: Relay access denied"],
    "rejected",
  ],
  [
    "Postfix mailbox full via 552 without enhanced code",
    ["552 Requested mail action aborted: exceeded storage allocation"],
    "mailbox_full",
  ],
  // Exim
  ["Exim unrouteable address", ["550 Unrouteable address"], "mailbox_not_found"],
  ["Exim cPanel no such user", ["550 No Such User Here"], "mailbox_not_found"],
  [
    "Exim sender verify failed",
    ["550-Verification failed for <verify@probe.example>", "550-Unrouteable address", "550 Sender verify failed"],
    "blocked",
  ],
  [
    "Exim rate limit",
    ["451-The server has reached its limit for processing requests from your host.", "451 Please try again later."],
    "greylisted",
  ],
  [
    "Exim quota exceeded",
    [
      "552 5.2.2 jane@example.com: mailbox is full (MTA-imposed quota exceeded while writing to file /home/jane/mail/inbox)",
    ],
    "mailbox_full",
  ],
  // Sendmail
  ["Sendmail user unknown", ["550 5.1.1 <jane@example.com>... User unknown"], "mailbox_not_found"],
  [
    "Sendmail domain of sender does not resolve",
    ["451 4.1.8 Domain of sender address verify@probe.example does not resolve"],
    "blocked",
  ],
  // Proofpoint, Mimecast, Barracuda, Cisco
  ["Proofpoint reputation block", ["554 Blocked - see https://ipcheck.proofpoint.com/?ip=192.0.2.1"], "blocked"],
  ["Proofpoint unknown user", ["550 5.1.1 User Unknown"], "mailbox_not_found"],
  [
    "Mimecast invalid recipient",
    ["550 Invalid Recipient - https://community.mimecast.com/docs/DOC-1369#550 [x5ZYbWa8OqGcGgGfQ6-rBQ.uk123]"],
    "mailbox_not_found",
  ],
  [
    "Mimecast poor reputation",
    [
      "550 csi.mimecast.org Poor Reputation Sender. - https://community.mimecast.com/docs/DOC-1369#550 [6ATVl4DjOvSA6XNsWGoUFw.us31]",
    ],
    "blocked",
  ],
  [
    "Mimecast temporary",
    ["451 Internal resource temporarily unavailable - https://community.mimecast.com/docs/DOC-1369#451"],
    "greylisted",
  ],
  [
    "Barracuda RBL",
    [
      "550 permanent failure for one or more recipients (jane@example.com:blocked)",
      "550 JunkMail rejected - [192.0.2.1] is in an RBL: http://www.barracudanetworks.com/reputation/?pr=1&ip=192.0.2.1",
    ],
    "blocked",
  ],
  ["Cisco SBRS", ["554 5.7.1 smtp-fw.example.com; SBRS score too low: http://www.senderbase.org/"], "blocked"],
  [
    "GMX block list at banner",
    [
      "554-gmx.net (mxgmx117) Nemesis ESMTP Service not available",
      "554-No SMTP service",
      "554 IP address is block listed.",
    ],
    "blocked",
    "banner",
  ],
  // Stages before RCPT: never about the recipient
  ["a 550 to MAIL FROM is about our sender", ["550 5.1.0 Sender rejected"], "blocked", "mail"],
  [
    "a 421 banner is a deferral",
    ["421 4.3.2 Service not available, closing transmission channel"],
    "greylisted",
    "banner",
  ],
  ["an unknown 5xx", ["554 5.7.1 Message rejected due to local policy"], "rejected"],
  // Real wording and Unicode (curly apostrophes, providers' own phrasing). Sources: Reacher core/src/smtp/parser.rs
  // (reacherhq/check-if-email-exists, the reply kept beside each of its patterns), mailcow-dockerized issue #6486 (a
  // Postfix log of Gmail's reply).
  [
    "Yahoo unknown user with a curly apostrophe (Reacher parser.rs)",
    ["554 delivery error: This user doesn\u2019t have an account"],
    "mailbox_not_found",
  ],
  [
    "Gmail disabled account without an enhanced code (Reacher parser.rs)",
    [
      "554 The email account that you tried to reach is disabled. Learn more at https://support.google.com/mail/?p=DisabledUser",
    ],
    "mailbox_not_found",
  ],
  [
    "unknown address in typographic quotes (Reacher parser.rs)",
    ["550 Unknown address error \u2018MAILBOX NOT FOUND\u2019"],
    "mailbox_not_found",
  ],
  [
    "qmail unknown recipient with the code in parentheses (Reacher parser.rs, parkwayhonda.com)",
    ["554 Unknown Recipient (#5.1.1)"],
    "mailbox_not_found",
  ],
  [
    "French university mailbox unavailable (Reacher parser.rs, etu.uca.fr)",
    ["550 5.5.0 Requested actions not taken as the mailbox is unavailable"],
    "mailbox_not_found",
  ],
  [
    "hanmail inactive mailbox (Reacher parser.rs)",
    ["550 5.2.1 RACT MY.IP: Mailbox is inactive: <jane@hanmail.net>"],
    "mailbox_not_found",
  ],
  [
    "Gmail inbox out of storage, multi-line (mailcow-dockerized #6486)",
    [
      "452-4.2.2 The recipient's inbox is out of storage space. Please direct the",
      "452-4.2.2 recipient to",
      "452 4.2.2  https://support.google.com/mail/?p=OverQuotaTemp ffacd0b85a97d-39eae95fc02si5554559f8f.139 - gsmtp",
    ],
    "mailbox_full",
  ],
  ["452 mailbox full without an enhanced code (customeros/mailsherpa #32)", ["452 mailbox full"], "mailbox_full"],
];

for (const [source, lines, expected, stage] of ROWS) {
  test(`classifyReply() says ${expected} for ${source}`, () => {
    const reply = parseReply(lines);
    assert.ok(reply !== null, "reply should parse");
    assert.equal(classifyReply(reply, { stage: stage ?? "rcpt" }), expected);
  });
}

test("parseReply() joins multi-line replies and reads the enhanced code", () => {
  assert.deepEqual(parseReply(["250-first", "250 2.0.0 last"]), {
    code: 250,
    enhanced: null,
    text: "first 2.0.0 last",
  });
  assert.deepEqual(parseReply(["550 5.1.1 no"]), { code: 550, enhanced: "5.1.1", text: "5.1.1 no" });
  assert.equal(parseReply(["hello"]), null);
});

test("classifyReply() keeps mailbox_full ahead of greylisting for every 452 full-inbox row", () => {
  for (const [source, lines, expected] of ROWS) {
    if (expected !== "mailbox_full" || !lines[0]!.startsWith("452")) continue;
    assert.equal(classifyReply(parseReply(lines)!), "mailbox_full", source);
  }
});

test("retryHintMs() reads seconds and minutes from a greylisting reply, and null without a hint", () => {
  assert.equal(retryHintMs(parseReply(["450 4.7.1 Greylisted for 300 seconds"])!), 300_000);
  assert.equal(retryHintMs(parseReply(["451 4.7.1 Please try again in 5 minutes"])!), 300_000);
  assert.equal(
    retryHintMs(parseReply(["450 4.2.0 Greylisted, see http://postgrey.schweikert.ch/help/example.com.html"])!),
    null,
  );
});
