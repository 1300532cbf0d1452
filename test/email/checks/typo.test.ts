import assert from "node:assert/strict";
import { test } from "node:test";
import { editDistance, POPULAR_DOMAINS, suggestDomain } from "../../../src/email/checks/typo.ts";

const slips: Array<[string, string]> = [
  ["gmial.com", "gmail.com"],
  ["gmai.com", "gmail.com"],
  ["gmail.con", "gmail.com"],
  ["gmail.co", "gmail.com"],
  ["hotmial.fr", "hotmail.fr"],
  ["hotmail.fe", "hotmail.fr"],
  ["yahooo.fr", "yahoo.fr"],
  ["outlok.com", "outlook.com"],
  ["orange.ft", "orange.fr"],
  ["wanadoo.frr", "wanadoo.fr"],
  ["laposte.nte", "laposte.net"],
  ["lapsote.net", "laposte.net"],
  ["icloud.cmo", "icloud.com"],
  ["googlemial.com", "googlemail.com"],
  ["protonmial.com", "protonmail.com"],
  ["sfr.fe", "sfr.fr"],
  ["free.con", "free.com"],
  ["example.con", "example.com"],
  ["exemple.fe", "exemple.fr"],
];
for (const [domain, expected] of slips) {
  test(`suggestDomain() suggests ${expected} for ${domain}`, () => {
    assert.equal(suggestDomain(domain), expected);
  });
}

const fine = [
  ...POPULAR_DOMAINS,
  "mail.com",
  "email.com",
  "ymail.com",
  "gmx.net",
  "hotmail.de",
  "hotmail.co.uk",
  "yahoo.de",
  "example.com",
  "entreprise.fr",
  "tree.fr",
  "me.co",
  "univ-lyon1.fr",
];
for (const domain of fine) {
  test(`suggestDomain() never flags ${domain}`, () => {
    assert.equal(suggestDomain(domain), null);
  });
}

test("editDistance() counts an adjacent transposition as one edit", () => {
  assert.equal(editDistance("gmial", "gmail"), 1);
  assert.equal(editDistance("abc", "abc"), 0);
  assert.equal(editDistance("kitten", "sitting"), 3);
});
