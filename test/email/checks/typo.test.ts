// The typo check's suggestions. suggestDomain() one row per case with its source: mailcheck's spec
// (mailcheck/mailcheck spec/mailcheckSpec.js), a corpus run, a keyboard slip, or the real domain that must never be
// "corrected"; then every slip kind, every target family, the real domains beside the targets, the slips left alone
// because they are as close to two domains, and the addresses that fail syntax only because of a slip.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { test } from "node:test";
import { PROVIDER_RULES } from "../../../src/email/checks/provider_rules.ts";
import { parseEmail, suggestForMalformed } from "../../../src/email/checks/syntax.ts";
import {
  COMMON_MAIL_DOMAINS,
  REAL_NEIGHBOUR_DOMAINS,
  SIBLING_DOMAINS,
  suggestBrokenDomain,
  suggestDomain,
  suggestEmail,
  TARGET_DOMAINS,
} from "../../../src/email/checks/typo.ts";
import { editDistance } from "../../../src/text/edit_distance.ts";

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
  ["wanadoo.ff", "wanadoo.fr", "a TLD slip: jean@wanadoo.ff"],
  ["comcast.nry", "comcast.net", "mailcheck spec: test@comcast.nry"],
  ["gmail.edd", "gmail.com", "a TLD slip: Gmail mailboxes exist at gmail.com only (gmail.edu is no mailbox domain)"],
  ["acme.ifno", "acme.info", "mailcheck spec: ifno → info"],
  ["hotmail.ff", "hotmail.fr", "nearest TLD among the provider's domains"],
  ["mail.ff", "mail.fr", "short name: TLD repaired to the one common TLD one edit away"],
  ["acme.frx", "acme.fr", "one common TLD one edit away"],
  // Item 6: short provider names, a stray leading character, providers with one mailbox domain.
  ["livr.com", "live.com", "mailcheck spec: livr → live"],
  ["gmsn.com", "msn.com", "mailcheck spec: findClosestDomain('gmsn.com') → msn.com"],
  ["frre.fr", "free.fr", "a French ISP: swapped letters"],
  ["nuef.fr", "neuf.fr", "a French ISP: swapped letters"],
  ["gmail.fr", "gmail.com", "a provider with one TLD; mailcheck corpus test@gmail.fr"],
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

// Every slip kind, on the targets French users have most.
type KindCase = [kind: string, typed: string, meant: string];
const byKind: KindCase[] = [
  ["a key beside it on AZERTY only ('m' right of 'l')", "gmaim.com", "gmail.com"],
  ["a key beside it on AZERTY only ('q' left of 's')", "lapoqte.net", "laposte.net"],
  ["a key beside it on AZERTY only ('m' right of 'l')", "hotmaim.fr", "hotmail.fr"],
  ["a key beside it on QWERTY only ('s' right of 'a')", "gmsil.com", "gmail.com"],
  ["a key beside it on QWERTY only ('s' right of 'a')", "hotmsil.fr", "hotmail.fr"],
  ["a key beside it on both", "yahoi.fr", "yahoo.fr"],
  ["two letters swapped", "yaoho.fr", "yahoo.fr"],
  ["two letters swapped", "lvie.fr", "live.fr"],
  ["two letters swapped", "libreo.it", "libero.it"],
  ["a letter doubled", "gmaill.com", "gmail.com"],
  ["a letter doubled", "orrange.fr", "orange.fr"],
  ["a letter doubled", "bboxx.fr", "bbox.fr"],
  ["a letter dropped", "wanado.fr", "wanadoo.fr"],
  ["a letter dropped", "lapost.net", "laposte.net"],
  ["a letter dropped", "yandx.ru", "yandex.ru"],
  ["a letter struck with its neighbour", "gmaiul.com", "gmail.com"],
  ["two slips: swapped letters and a dropped 'c'", "gamil.om", "gmail.com"],
  ["two slips: swapped letters and .fe", "hotmial.fe", "hotmail.fr"],
  ["two slips: swapped letters and .nte", "lapsote.nte", "laposte.net"],
  ["two slips in a short name's domain that cannot be real", "nuef.fe", "neuf.fr"],
  ["the dot moved one place right", "gmailc.om", "gmail.com"],
  ["the dot moved one place left", "gmai.lcom", "gmail.com"],
  ["the dot moved into a TLD that does not exist", "bbo.xfr", "bbox.fr"],
  ["the dot moved into a real TLD (.et): the letters are exactly the target's", "laposten.et", "laposte.net"],
  ["TLD .con", "yahoo.con", "yahoo.com"],
  ["TLD .cm (a real TLD, the best-known slip of .com)", "gmail.cm", "gmail.com"],
  ["TLD .cm", "hotmail.cm", "hotmail.com"],
  ["TLD .om (a real TLD, a known slip of .com)", "gmail.om", "gmail.com"],
  ["TLD .co (a real TLD, a known slip of .com)", "hotmail.co", "hotmail.com"],
  ["TLD .fe", "live.fe", "live.fr"],
  ["TLD .fe on a provider with a German sibling (hotmail.de): .fe is the slip of .fr", "hotmail.fe", "hotmail.fr"],
  ["TLD .fd", "sfr.fd", "sfr.fr"],
  ["TLD .nte", "verizon.nte", "verizon.net"],
  ["TLD .dee", "gmx.dee", "gmx.de"],
  [".fr and .com blended: 'f' for 'c', the provider has both", "hotmail.fom", "hotmail.com"],
  [".fr and .com blended: an 'm' after .fr, the provider has both", "hotmail.frm", "hotmail.fr"],
  [".fr and .com blended: a 'c' before .fr, the provider has both", "yahoo.cfr", "yahoo.fr"],
  [".fr for a provider with .com only", "gmail.fr", "gmail.com"],
  [".fr for a provider with .com only", "icloud.fr", "icloud.com"],
];
for (const [kind, typed, meant] of byKind) {
  test(`suggestDomain() corrects ${typed} to ${meant} [${kind}]`, () => {
    assert.equal(suggestDomain(typed), meant);
  });
}

// One slip of each target: every family is corrected, the short names included.
const byFamily: Array<[typed: string, meant: string]> = [
  ["gmial.com", "gmail.com"],
  ["ornage.fr", "orange.fr"],
  ["wanadooo.fr", "wanadoo.fr"],
  ["hotmial.fr", "hotmail.fr"],
  ["hotmal.com", "hotmail.com"],
  ["outllok.fr", "outlook.fr"],
  ["outlok.com", "outlook.com"],
  ["lice.fr", "live.fr"],
  ["livr.com", "live.com"],
  ["msn.con", "msn.com"],
  ["yahoo.ft", "yahoo.fr"],
  ["yaho.com", "yahoo.com"],
  ["frre.fr", "free.fr"],
  ["sfrr.fr", "sfr.fr"],
  ["neud.fr", "neuf.fr"],
  ["club-internt.fr", "club-internet.fr"],
  ["numericabl.fr", "numericable.fr"],
  ["laposte.ner", "laposte.net"],
  ["bbox.fe", "bbox.fr"],
  ["aliceadls.fr", "aliceadsl.fr"],
  ["icluod.com", "icloud.com"],
  ["me.con", "me.com"],
  ["aoll.com", "aol.com"],
  ["gmx.frr", "gmx.fr"],
  ["gmx.dee", "gmx.de"],
  ["gmx.con", "gmx.com"],
  ["proton.mee", "proton.me"],
  ["protonmial.com", "protonmail.com"],
  ["googlemial.com", "googlemail.com"],
  ["ymial.com", "ymail.com"],
  ["yahooo.co.uk", "yahoo.co.uk"],
  ["hotmial.co.uk", "hotmail.co.uk"],
  ["btinternet.con", "btinternet.com"],
  ["yandex.ruu", "yandex.ru"],
  ["mail.ri", "mail.ru"],
  ["web.dr", "web.de"],
  ["tonline.de", "t-online.de"],
  ["libero.itt", "libero.it"],
  ["comcats.net", "comcast.net"],
  ["verizon.nett", "verizon.net"],
];
test("the family table covers every target", () => {
  assert.deepEqual(new Set(byFamily.map(([, meant]) => meant)), new Set(TARGET_DOMAINS));
});
for (const [typed, meant] of byFamily) {
  test(`suggestDomain() corrects ${typed} to ${meant} [target family]`, () => {
    assert.equal(suggestDomain(typed), meant);
  });
}

/** The address suggested as the engine answers it: by the syntax check when malformed, the typo check otherwise. */
function suggested(address: string): string | null {
  const parsed = parseEmail(address);
  return parsed.ok ? suggestEmail(parsed.email) : suggestForMalformed(address);
}

test("every target written without its last dot or with a comma for it gets the address meant", () => {
  for (const target of TARGET_DOMAINS) {
    const dot = target.lastIndexOf(".");
    const meant = `jane@${target}`;
    assert.equal(suggested(`jane@${target.slice(0, dot)}${target.slice(dot + 1)}`), meant, `${target} dot dropped`);
    assert.equal(suggested(`jane@${target.slice(0, dot)},${target.slice(dot + 1)}`), meant, `${target} comma`);
  }
});

test("suggestBrokenDomain() reads a domain with no dot at all only as a target's", () => {
  assert.equal(suggestBrokenDomain("gmailcom"), "gmail.com");
  assert.equal(suggestBrokenDomain("acmefr"), null);
});

// Slips as close to two domains, or to a real one: left alone, whatever the TLD says.
type Alone = [typed: string, why: string];
const leftAlone: Alone[] = [
  ["tmail.com", "'t' is beside 'g' (gmail.com) and 'y' (ymail.com)"],
  ["tmail.con", "the same two targets, and no half fix to tmail.com"],
  ["gmx.fe", "'f' beside 'd' (gmx.de) and 'e' beside 'r' (gmx.fr): not repaired to either"],
  ["gmx.ed", "a swap of gmx.de, or 'd' beside 's' of the real gmx.es"],
  ["gmx.ay", "as close to the real gmx.at as to gmx.de"],
  ["hotmial.de", "nearer the real hotmail.de than any target"],
  ["yahoo.gt", "as close to the real yahoo.gr"],
  ["hotmail.cr", ".cr is a real TLD and no known slip of .com or .fr"],
  ["mw.com", "me.com's name is too short to be read through a slip: every neighbour is a real domain"],
  ["mee.com", "me.com's name is too short to be read through a slip"],
  ["gmsn.con", "no target within two slips: not repaired to gmsn.com either"],
];
for (const [typed, why] of leftAlone) {
  test(`suggestDomain() leaves ${typed} alone [${why}]`, () => {
    assert.equal(suggestDomain(typed), null);
  });
}

// Never a half fix: a domain is corrected whole, or not at all.
const whole: Slip[] = [
  ["sdr.fd", "sfr.fr", "not sdr.fr: 'd' beside 'f' in the name too"],
  ["bbo.xfr", "bbox.fr", "not bbo.fr: the dot moved"],
  ["web.fe", "web.de", "not web.fr: 'f' beside 'd' gives the one target"],
  ["ornage.fe", "orange.fr", "not ornage.fr"],
];
for (const [typed, meant, why] of whole) {
  test(`suggestDomain() corrects ${typed} whole to ${meant} [${why}]`, () => {
    assert.equal(suggestDomain(typed), meant);
  });
}

// Real domains beside the targets that the data does not list: a real TLD is not changed unless it is a known slip.
const unlistedReal = ["yahoo.ro", "hotmail.com.br", "hotmail.dk", "live.se", "outlook.jp", "orange.be", "aol.it"];
for (const domain of unlistedReal) {
  test(`suggestDomain() never flags ${domain} [a provider's real country domain, listed nowhere in the data]`, () => {
    assert.equal(suggestDomain(domain), null);
  });
}

test("suggestDomain() never flags a target, a sibling or a real neighbour of typo_domains.json", () => {
  for (const domain of [...TARGET_DOMAINS, ...SIBLING_DOMAINS, ...REAL_NEIGHBOUR_DOMAINS]) {
    assert.equal(suggestDomain(domain), null, domain);
  }
});

test("suggestDomain() never flags a mail domain of email-providers' ranked list nor one with provider rules", () => {
  const ranked = createRequire(import.meta.url)("email-providers/common.json") as string[];
  assert.deepEqual(COMMON_MAIL_DOMAINS, ranked);
  for (const domain of [...ranked, ...PROVIDER_RULES.keys()]) assert.equal(suggestDomain(domain), null, domain);
});

test("the siblings the product owner named are in the data", () => {
  for (const domain of ["gmx.net", "gmx.at", "hotmail.de", "yahoo.gr", "aol.fr", "mac.com", "mail.com", "laposte.fr"]) {
    assert.ok(SIBLING_DOMAINS.includes(domain), domain);
  }
});

// Addresses that fail syntax only because of a slip of their domain get the address meant.
type Broken = [input: string, meant: string | null, why: string];
const broken: Broken[] = [
  ["jane@gmailcom", "jane@gmail.com", "the dot dropped"],
  ["jane@hotmailfr", "jane@hotmail.fr", "the dot dropped"],
  ["jane@mecom", "jane@me.com", "the dot dropped from a two-letter name"],
  ["jane@gmail,com", "jane@gmail.com", "a comma for the dot"],
  ["jane@sfr,fr", "jane@sfr.fr", "a comma for the dot"],
  ["jane@gmial,con", "jane@gmail.com", "a comma, and slips around it"],
  ["jane@acme,fr", "jane@acme.fr", "a comma in any domain: the dot meant"],
  ["jane@gmail..com", "jane@gmail.com", "a doubled dot"],
  ["jane@gmail.com.", "jane@gmail.com", "a trailing dot"],
  ["Jane.Doe@Gmail,Com", "Jane.Doe@gmail.com", "the local part kept as written"],
  ["ja ne@gmail,com", null, "the local part is broken too"],
  ["jane@gmail com", null, "a space is no slip of a dot"],
  ["jane@acmefr", null, "no dot and no target: nothing to say what was meant"],
  ["jane@acme,zz", null, "the dot put back would give a TLD that does not exist"],
  ["jane@", null, "no domain"],
];
for (const [input, meant, why] of broken) {
  test(`suggestForMalformed() answers ${meant} for ${input} [${why}]`, () => {
    assert.equal(parseEmail(input).ok, false);
    assert.equal(suggestForMalformed(input), meant);
  });
}

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
