import assert from "node:assert/strict";
import { test } from "node:test";
import { parseEmail } from "../../../src/email/checks/syntax.ts";
import { PROVIDER_RULES, violatesProviderRule } from "../../../src/email/checks/provider_rules.ts";

function violates(input: string): boolean {
  const parsed = parseEmail(input);
  assert.ok(parsed.ok, `${input} should parse`);
  return violatesProviderRule(parsed.email);
}

// Each provider's source is in data/email/provider_rules.json; rows that came from a real case name theirs.
const cases: Array<[string, boolean, string]> = [
  ["jane.doe@gmail.com", false, "a normal Gmail address"],
  ["j.a.n.e.d.o@gmail.com", false, "a Gmail address whose dots are ignored for the length"],
  ["jane.doe+news@gmail.com", false, "a Gmail address with a +tag"],
  ["jane@gmail.com", true, "a Gmail username under 6 characters"],
  ["jane_doe@gmail.com", true, "a Gmail username with an underscore"],
  ["jane-doe@googlemail.com", true, "a Googlemail username with a hyphen"],
  [`${"a".repeat(31)}@gmail.com`, true, "a Gmail username over 30 characters"],
  ["jane_doe@yahoo.fr", false, "a Yahoo ID with an underscore"],
  ["jane-shopping@yahoo.com", false, "a Yahoo disposable address base-keyword"],
  ["1jane@yahoo.com", true, "a Yahoo ID starting with a digit"],
  ["abc@yahoo.com", true, "a Yahoo ID under 4 characters"],
  ["jane-doe@hotmail.fr", false, "a Hotmail alias with a hyphen"],
  ["_jane@outlook.com", true, "an Outlook alias starting with an underscore"],
  ["1jane@live.com", true, "a Live alias starting with a digit"],
  ["jane.doe@icloud.com", false, "an iCloud address"],
  ["jd@icloud.com", true, "an iCloud address under 3 characters"],
  ["jane.doe@aol.com", false, "an AOL address"],
  ["jane+x@aol.com", true, "an AOL address with a +tag"],
  ["jane-doe@gmx.de", false, "a GMX address with a hyphen"],
  ["jane.doe+shop@proton.me", false, "a Proton address with a +tag"],
  ["jane.doe@orange.fr", false, "an Orange address"],
  ["jane+promo@wanadoo.fr", true, "a Wanadoo address with a +"],
  ["jean-pierre@free.fr", false, "a Free address with a hyphen"],
  ["jean!pierre@sfr.fr", true, "an SFR address with an exclamation mark"],
  ["jean.pierre@laposte.net", false, "a La Poste address"],
  ["jean&pierre@bbox.fr", true, "a Bbox address with an ampersand"],
  ['"jane doe"@gmail.com', true, "a quoted local part at Gmail that needs its quotes"],
  [
    '"jean.dupont"@gmail.com',
    false,
    "a quoted local part that needs no quotes: the mailbox jean.dupont (RFC 5322 §3.2.4)",
  ],
  ['"jean\\.dupont"@gmail.com', false, "a quoted-pair that needs no quotes: the mailbox jean.dupont (RFC 5321 §4.1.2)"],
  ['"jean.dupont+news"@gmail.com', false, "a quoted Gmail +tag that needs no quotes (RFC 5322 §3.2.4)"],
  ['"jean.dupont"@orange.fr', false, "a quoted local part that needs no quotes at Orange (RFC 5322 §3.2.4)"],
  ['"jane"@gmail.com', true, "a quoted Gmail username under 6 characters: judged as jane (RFC 5322 §3.2.4)"],
  ['"jane+x"@aol.com', true, "a quoted AOL local part with '+': judged as jane+x (RFC 5322 §3.2.4)"],
  ['"jean..dupont"@gmail.com', true, "a quoted local part that needs its quotes (two dots)"],
  ["josé.doe@gmail.com", true, "a UTF-8 local part at Gmail"],
  ["j!@example.com", false, "an address at a domain without rules"],
];

for (const [input, expected, what] of cases) {
  test(`violatesProviderRule() is ${expected} for ${what}`, () => {
    assert.equal(violates(input), expected);
  });
}

test("provider_rules covers the big international providers and the French ones", () => {
  for (const domain of [
    "gmail.com",
    "googlemail.com",
    "yahoo.com",
    "outlook.com",
    "hotmail.com",
    "live.com",
    "icloud.com",
    "aol.com",
    "gmx.de",
    "proton.me",
    "orange.fr",
    "wanadoo.fr",
    "free.fr",
    "sfr.fr",
    "laposte.net",
    "bbox.fr",
  ]) {
    assert.ok(PROVIDER_RULES.has(domain), domain);
  }
});
