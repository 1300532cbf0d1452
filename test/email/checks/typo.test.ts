// suggestDomain(), one row per case with its source: mailcheck's spec (mailcheck/mailcheck spec/mailcheckSpec.js),
// issue 8's corpus run, a keyboard slip, or the real domain that must never be "corrected".
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseEmail } from "../../../src/email/checks/syntax.ts";
import { editDistance } from "../../../src/text/edit_distance.ts";
import {
  REAL_NEIGHBOUR_DOMAINS,
  SIBLING_DOMAINS,
  TARGET_DOMAINS,
  suggestDomain,
  suggestEmail,
} from "../../../src/email/checks/typo.ts";

type Slip = [typed: string, meant: string, source: string];
const slips: Slip[] = [
  ["gmial.com", "gmail.com", "transposition of a popular domain"],
  ["gmai.com", "gmail.com", "dropped letter of a popular domain"],
  ["gmail.con", "gmail.com", "mailcheck spec: test@gmail.con"],
  ["gmail.co", "gmail.com", "mailcheck spec: test@gmail.co"],
  ["gmailc.om", "gmail.com", "mailcheck spec: test@gmailc.om"],
  ["gnail.con", "gmail.com", "mailcheck spec: test@gnail.con"],
  ["hotmial.fr", "hotmail.fr", "transposition of a popular domain"],
  ["hotmail.fe", "hotmail.fr", "tld slip fe (e beside r)"],
  ["yahooo.fr", "yahoo.fr", "doubled letter of a popular domain"],
  ["outlok.com", "outlook.com", "dropped letter of a popular domain"],
  ["orange.ft", "orange.fr", "tld slip ft (t beside r)"],
  ["wanadoo.frr", "wanadoo.fr", "tld slip frr (doubled r)"],
  ["laposte.nte", "laposte.net", "tld slip nte (transposition)"],
  ["lapsote.net", "laposte.net", "transposition of a popular domain"],
  ["icloud.cmo", "icloud.com", "mailcheck spec: cmo → com"],
  ["googlemial.com", "googlemail.com", "transposition of a popular domain"],
  ["protonmial.com", "protonmail.com", "transposition of a popular domain"],
  ["sfr.fe", "sfr.fr", "tld slip fe"],
  ["free.con", "free.com", "tld slip con (free.com is itself real: the TLD is what was mistyped)"],
  ["example.con", "example.com", "mailcheck spec: randomsmallcompany.cmo → .com"],
  ["exemple.fe", "exemple.fr", "tld slip fe"],
  // Item 4: the TLD is not in the root zone.
  ["wanadoo.ff", "wanadoo.fr", "issue 8 item 4: jean@wanadoo.ff"],
  ["comcast.nry", "comcast.net", "mailcheck spec: test@comcast.nry"],
  [
    "gmail.edd",
    "gmail.com",
    "issue 8 item 4: Gmail mailboxes exist at gmail.com only (gmail.edu is no mailbox domain)",
  ],
  ["acme.ifno", "acme.info", "mailcheck spec: ifno → info"],
  ["hotmail.ff", "hotmail.fr", "nearest TLD among the provider's domains"],
  ["mail.ff", "mail.fr", "short name: TLD repaired to the one common TLD one edit away"],
  ["acme.frx", "acme.fr", "one common TLD one edit away"],
  // Item 6: short provider names, a stray leading character, providers with one mailbox domain.
  ["livr.com", "live.com", "mailcheck spec: livr → live"],
  ["gmsn.com", "msn.com", "mailcheck spec: findClosestDomain('gmsn.com') → msn.com"],
  ["frre.fr", "free.fr", "issue 8 item 6"],
  ["nuef.fr", "neuf.fr", "issue 8 item 6"],
  ["gmail.fr", "gmail.com", "issue 8 item 6; mailcheck corpus test@gmail.fr"],
  ["gmail.de", "gmail.com", "Google owns gmail.de since 2012, mailboxes are @gmail.com (PC-WELT 2012)"],
  ["gmail.co.uk", "gmail.com", "Gmail has no country domains"],
  ["googlemail.de", "googlemail.com", "googlemail.com is the only Google Mail domain"],
  ["icloud.fr", "icloud.com", "iCloud Mail addresses end in @icloud.com"],
  ["#gmail.com", "gmail.com", "mailcheck spec: test@#gmail.com"],
  ["#gmial.com", "gmail.com", "stray character and a slip"],
  ["#acme.fr", "acme.fr", "a stray character is always a slip"],
  ["!wanadoo.fr", "wanadoo.fr", "stray character (Shift+1 beside Shift+2 '@' on QWERTY)"],
];
for (const [typed, meant, source] of slips) {
  test(`suggestDomain() suggests ${meant} for ${typed} [${source}]`, () => {
    assert.equal(suggestDomain(typed), meant);
  });
}

// Real domains one or two edits from a popular one, or from a short provider name: never a suggestion. A wrong
// suggestion turns a real address into "undeliverable", which is worse than a missed typo.
type Real = [domain: string, source: string];
const nearMissReal: Real[] = [
  ["gmx.de", "GMX Germany (provider_rules.json)"],
  ["gmx.net", "GMX main domain"],
  ["gmx.at", "GMX Austria (provider_rules.json)"],
  ["gmx.ch", "GMX Switzerland (provider_rules.json)"],
  ["mail.ru", "Mail.ru"],
  ["mail.com", "mail.com webmail, one edit from gmail.com"],
  ["email.com", "mail.com family, one edit from gmail.com"],
  ["mail.de", "mail.de, German webmail"],
  ["ymail.com", "Yahoo, one edit from gmail.com"],
  ["rocketmail.com", "Yahoo legacy (provider_rules.json)"],
  ["laposte.fr", "La Poste corporate domain, beside laposte.net"],
  ["orange.com", "Orange group corporate domain, beside orange.fr"],
  ["free.com", "real domain beside free.fr"],
  ["aol.fr", "AOL France (provider_rules.json)"],
  ["aim.com", "AOL (provider_rules.json)"],
  ["hotmail.de", "Microsoft Germany (provider_rules.json)"],
  ["hotmail.co.uk", "Microsoft UK (provider_rules.json)"],
  ["hotmail.it", "Microsoft Italy (provider_rules.json)"],
  ["hotmail.es", "Microsoft Spain (provider_rules.json)"],
  ["hotmail.be", "Microsoft Belgium"],
  ["hotmail.ch", "Microsoft Switzerland"],
  ["live.be", "Microsoft Belgium"],
  ["outlook.be", "Microsoft Belgium"],
  ["yahoo.de", "Yahoo Germany (provider_rules.json)"],
  ["yahoo.co.uk", "mailcheck spec: no suggestion for yahoo.co.uk"],
  ["yahoo.ca", "Yahoo Canada"],
  ["gmx.fr", "mailcheck spec: no suggestion for gmx.fr"],
  ["protonmail.ch", "Proton (provider_rules.json)"],
  ["pm.me", "Proton short domain (provider_rules.json)"],
  ["life.com", "LIFE magazine: one adjacent-key slip from live.com"],
  ["love.com", "one adjacent-key slip from live.com"],
  ["man.com", "Man Group: one adjacent-key slip from msn.com"],
  ["max.com", "HBO Max: one adjacent-key slip from mac.com"],
  ["amc.com", "AMC: a transposition of mac.com"],
  ["gmc.com", "GMC: one adjacent-key slip from gmx.com"],
  ["sol.com", "one adjacent-key slip from aol.com"],
  ["tree.fr", "one adjacent-key slip from free.fr"],
  ["me.co", "real domain beside me.com (.co is a real TLD)"],
  ["gmail.acme.com", "a subdomain named gmail belongs to acme.com"],
  ["example.com", "RFC 2606 §3"],
  ["entreprise.fr", "ordinary French company domain"],
  ["univ-lyon1.fr", "French university"],
  ["vrai.test", "RFC 6761 §6.2: written on purpose"],
  ["gmail.test", "RFC 6761 §6.2: a test peer may well be called that"],
  ["acme.example", "RFC 6761 §6.5"],
  ["acme.invalid", "RFC 6761 §6.4: invalid on purpose"],
  ["acme.localhost", "RFC 6761 §6.3"],
  ["acme.c", "undelegated, but several common TLDs (ca, ch) are one edit away: no clear fix"],
];
for (const [domain, source] of nearMissReal) {
  test(`suggestDomain() never flags ${domain} [${source}]`, () => {
    assert.equal(suggestDomain(domain), null);
  });
}

test("suggestDomain() never flags a popular or known real domain of typo_domains.json", () => {
  for (const domain of [...TARGET_DOMAINS, ...SIBLING_DOMAINS, ...REAL_NEIGHBOUR_DOMAINS])
    assert.equal(suggestDomain(domain), null, domain);
});

test("suggestEmail() keeps the local part and drops the stray character [mailcheck spec: test@#gmail.com]", () => {
  const parsed = parseEmail("test@#gmail.com");
  assert.ok(parsed.ok);
  assert.equal(suggestEmail(parsed.email), "test@gmail.com");
});

test("suggestEmail() suggests the unquoted mailbox for a quoted local part that needs no quotes [RFC 5322 §3.2.4]", () => {
  const parsed = parseEmail('"jean.dupont"@gmial.com');
  assert.ok(parsed.ok);
  assert.equal(suggestEmail(parsed.email), "jean.dupont@gmail.com");
});

test("editDistance() counts an adjacent transposition as one edit", () => {
  assert.equal(editDistance("gmial", "gmail"), 1);
  assert.equal(editDistance("abc", "abc"), 0);
  assert.equal(editDistance("kitten", "sitting"), 3);
});
