// Tables of lines as people type them and the answer each must get: the row, its check, one suite per table over the
// real Paris BAN file or over a small index written here with real commune codes (Giromagny, Belfort, Vézelois).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { parisMatcher, PARIS_SKIP } from "./paris_matcher.ts";
import { streetRows, writtenIndex } from "./written_index.ts";
import { AddressMatcher } from "../../src/address/match.ts";
import { compileReference } from "../../src/address/reference/compile.ts";
import { packReference } from "../../src/address/reference/pack_reference.ts";
import { Reference } from "../../src/address/reference/reference.ts";
import type { AddressInput, AddressReason, AddressVerdict } from "../../src/address/types.ts";

export interface Row {
  /** The rule the row proves, and what the line answered before when it was a defect ("was ..."). */
  source: string;
  line: string;
  /** Fields sent instead of the line (the line then only names the row). */
  fields?: AddressInput;
  verdict: AddressVerdict;
  reasons: AddressReason[];
  /** The street and postcode of the answer, when one is expected. */
  street?: string;
  postcode?: string;
  /** The house-number suffix printed (null: none). */
  suffix?: string | null;
  /** The normalized line a user sees (null: no normalized address). */
  output?: string | null;
}

export function expectRow(matcher: AddressMatcher, row: Row): void {
  const r = matcher.match(row.fields ?? { line: row.line });
  const got = { verdict: r.verdict, reasons: [...r.reasons].sort() };
  assert.deepEqual(got, { verdict: row.verdict, reasons: [...row.reasons].sort() }, `${row.line} (${row.source})`);
  if (row.street !== undefined) assert.equal(r.normalized?.street, row.street, row.line);
  if (row.postcode !== undefined) assert.equal(r.normalized?.postcode, row.postcode, row.line);
  if (row.suffix !== undefined) assert.equal(r.normalized?.house_number_suffix, row.suffix, row.line);
  if (row.output !== undefined) assert.equal(r.normalized?.line ?? null, row.output, row.line);
}

function rowName(row: Row): string {
  return `${row.line} → ${row.verdict} (${row.source})`;
}

/** One test per row over the Paris BAN file, imported once for the suite; skipped where the file is absent. */
export function describeOverParis(title: string, rows: Row[]): void {
  describe(title, { skip: PARIS_SKIP }, () => {
    let paris: Awaited<ReturnType<typeof parisMatcher>>;
    before(async () => {
      paris = await parisMatcher();
    });
    after(() => paris.remove());
    for (const row of rows) test(rowName(row), () => expectRow(paris.matcher, row));
  });
}

/** One test per row over the matcher `build` returns, built once for the suite. */
export function describeOverWrittenIndex(title: string, rows: Row[], build: () => AddressMatcher): void {
  describe(title, () => {
    let matcher: AddressMatcher;
    before(() => {
      matcher = build();
    });
    for (const row of rows) test(rowName(row), () => expectRow(matcher, row));
  });
}

const GIROMAGNY = { lat: 47.7, lon: 6.8 };

/** Giromagny (90200): streets that differ by a small word, initials, a street named after the commune. */
export function giromagnyMatcher(): AddressMatcher {
  const reference = new Reference(packReference(compileReference()));
  const insee = reference.citiesNamed("Giromagny")[0]!.communes[0]!;
  const at = { codeInsee: insee, codePostal: "90200", acheminement: "GIROMAGNY" };
  return new AddressMatcher({
    reference,
    indexes: [
      writtenIndex("90", [
        ...streetRows("Rue sur la Côte", [1, 3], at, GIROMAGNY),
        ...streetRows("Rue de la Côte", [1, 2], at, GIROMAGNY),
        ...streetRows("Rue Saint-Pierre", [1, 2], at, GIROMAGNY),
        ...streetRows("Rue Sous Saint-Pierre", [1, 2], at, GIROMAGNY),
        ...streetRows("Rue de la Fontaine", [1], at, GIROMAGNY),
        ...streetRows("Rue Victor Hugo", [1], at, GIROMAGNY),
        ...streetRows("Rue Jean Moulin", [1, 2], at, GIROMAGNY),
        ...streetRows("Rue Jules Moulin", [2, 5], at, GIROMAGNY),
        ...streetRows("Rue de Giromagny", [1], at, GIROMAGNY),
        ...streetRows("Chemin la Croix", [1], at, GIROMAGNY),
        ...streetRows("Chemin de la Croix", [1], at, GIROMAGNY),
        ...streetRows("Rue de la Vallée", [1], at, GIROMAGNY),
        ...streetRows("Gué de la Vallée", [1], at, GIROMAGNY),
      ]),
    ],
  });
}

// A type word that begins a name (Belfort, 90000): "Rue du Faubourg de France" written "faubourg de France", beside
// streets named after the rest under other types, as Paris has (Rue du Faubourg Saint-Antoine, Passage Saint-Antoine).
export function belfortMatcher(): AddressMatcher {
  const reference = new Reference(packReference(compileReference()));
  const insee = reference.citiesNamed("Belfort")[0]!.communes[0]!;
  const at = { codeInsee: insee, codePostal: "90000", acheminement: "BELFORT" };
  return new AddressMatcher({
    reference,
    indexes: [
      writtenIndex("90", [
        ...streetRows("Rue du Faubourg de France", [10, 12], at, GIROMAGNY),
        ...streetRows("Passage de France", [10], at, GIROMAGNY),
        ...streetRows("Place de France", [10], at, GIROMAGNY),
        ...streetRows("Faubourg des Ancêtres", [10], at, GIROMAGNY),
        ...streetRows("Rue du Chemin Vert", [10], at, GIROMAGNY),
        ...streetRows("Impasse du Chemin Vert", [10], at, GIROMAGNY),
        ...streetRows("Allée Verte", [10], at, GIROMAGNY),
        ...streetRows("Rue Lepic", [3], at, GIROMAGNY),
      ]),
    ],
  });
}

const VEZELOIS = { lat: 47.6, lon: 6.9 };

// Vézelois (90400, its only postcode): a lieu-dit BAN writes without a type, a hameau, letter suffixes, numbers inside
// names, and one-digit slips of the postcode. Roffiac (15100) and Leucamp (15120, 15130) lie outside the index.
export function vezeloisMatcher(): AddressMatcher {
  const reference = new Reference(packReference(compileReference()));
  const insee = reference.citiesNamed("Vézelois")[0]!.communes[0]!;
  assert.deepEqual(reference.postcodesOf(insee), ["90400"]);
  const at = { codeInsee: insee, codePostal: "90400", acheminement: "VEZELOIS" };
  const neuve = (numero: number, rep: string) => ({ ...streetRows("Rue Neuve", [numero], at, VEZELOIS)[0]!, rep });
  return new AddressMatcher({
    reference,
    indexes: [
      writtenIndex("90", [
        // BAN lieux-dits have no street type.
        ...streetRows("Le Village", [20, 26, 30], at, VEZELOIS),
        ...streetRows("Hameau des Prés", [1, 2], at, VEZELOIS),
        neuve(1, ""),
        neuve(1, "c"),
        neuve(5, ""),
        neuve(7, "a"),
        neuve(7, "b"),
        ...streetRows("Rue du XXIV Novembre", [1, 2], at, VEZELOIS),
        ...streetRows("Rue du 8 Mai 1945", [1, 2], at, VEZELOIS),
        ...streetRows("Rue de la Gare", [1, 2], at, VEZELOIS),
        // A lieu-dit named by a type word alone, as villages have.
        ...streetRows("La Place", [3], at, VEZELOIS),
      ]),
    ],
  });
}
