// isRoleAddress(), one row per case with its source: the npm list role-based-email-addresses for English names,
// data/email/roles_fr.json (a source per entry) for French ones.
import assert from "node:assert/strict";
import { test } from "node:test";
import { isRoleAddress } from "../../../src/email/checks/role.ts";
import { parseEmail } from "../../../src/email/checks/syntax.ts";

function role(input: string): boolean {
  const parsed = parseEmail(input);
  assert.ok(parsed.ok, `${input} should parse`);
  return isRoleAddress(parsed.email);
}

const cases: Array<[local: string, expected: boolean, source: string]> = [
  ["info", true, "role-based-email-addresses"],
  ["INFO", true, "role-based-email-addresses (case-insensitive)"],
  ["sales", true, "role-based-email-addresses"],
  ["postmaster", true, "RFC 5321 §4.5.1; role-based-email-addresses"],
  ["support+fr", true, "RFC 5233 sub-address of a role"],
  ["noreply", true, "role-based-email-addresses"],
  ["no-reply", true, "role-based-email-addresses"],
  ["no.reply", true, "role-based-email-addresses"],
  ["no_reply", true, "role-based-email-addresses"],
  ["ne-pas-repondre", true, "roles_fr.json"],
  ["nepasrepondre", true, "roles_fr.json"],
  ["ne_pas_repondre", true, "roles_fr.json (separators interchangeable)"],
  ["ne.pas.repondre", true, "roles_fr.json (separators interchangeable)"],
  ["Ne-Pas-Répondre", true, "roles_fr.json (case and accents folded)"],
  ["accueil", true, "roles_fr.json (blue-emailing.com)"],
  ["contact", true, "role-based-email-addresses"],
  ["secretariat", true, "roles_fr.json (annuaire de l'administration)"],
  ["secrétariat", true, "roles_fr.json (accents folded)"],
  ["mairie", true, "roles_fr.json (annuaire de l'administration)"],
  ["sav", true, "roles_fr.json (ilovesearch.fr)"],
  ["facturation", true, "roles_fr.json (ilovesearch.fr)"],
  ["compta", true, "role-based-email-addresses"],
  ["comptabilite", true, "role-based-email-addresses"],
  ["comptabilité", true, "role-based-email-addresses (accents folded)"],
  ["direction", true, "role-based-email-addresses"],
  ["recrutement", true, "role-based-email-addresses"],
  ["rh", true, "role-based-email-addresses"],
  ["drh", true, "roles_fr.json (blue-emailing.com)"],
  ["commercial", true, "role-based-email-addresses"],
  ["commande", true, "roles_fr.json (ilovesearch.fr)"],
  ["partenariat", true, "roles_fr.json (ilovesearch.fr)"],
  ["bonjour", true, "roles_fr.json (mise-en-valeur.fr)"],
  ["accueil+mairie", true, "RFC 5233 sub-address of a role"],
  ["jane.doe", false, "a person"],
  ["jean-pierre.martin", false, "a person with a compound first name"],
  ["informatique.jane", false, "a person whose local part starts with a role word"],
  ["savannah", false, "a first name starting with sav"],
  ["marie", false, "a first name close to mairie"],
  ["contact.jean", false, "a person whose local part starts with a role word"],
];
for (const [local, expected, source] of cases) {
  test(`isRoleAddress() is ${expected} for ${local}@ [${source}]`, () => {
    assert.equal(role(`${local}@example.fr`), expected);
  });
}

test('isRoleAddress() treats "info"@ as info@: the quotes are not needed [RFC 5322 §3.2.4]', () => {
  assert.equal(role('"info"@example.com'), true);
});

test("isRoleAddress() never flags a local part that needs its quotes", () => {
  assert.equal(isRoleAddress({ local: '"info desk"', domain: "example.com", utf8Local: false, quoted: true }), false);
});
