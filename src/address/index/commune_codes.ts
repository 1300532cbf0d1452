// INSEE codes of BAN rows against the nationwide reference: a row that still carries a former commune's code (a
// commune merged into a commune nouvelle, kept as commune déléguée or associée) is indexed under its current commune,
// where the place resolution of match/place.ts looks for it (docs/address_rules.md §7 "anciennes
// communes"). A code that is neither current nor former is kept as written and counted, so that the import can say so.
import type { BanRow } from "./builder.ts";
import { departementOfInsee } from "./departement.ts";
import type { ReferenceTables } from "../reference/reference_format.ts";

export interface CommuneCodes {
  /** Current communes and municipal arrondissements (the codes BAN writes for Paris, Lyon, Marseille). */
  current: ReadonlySet<string>;
  /** Former commune → the current commune it belongs to. */
  formers: ReadonlyMap<string, string>;
}

/** The code tables of the reference (compileReference()): "insee|name|parent|key" lines. */
export function communeCodes(tables: Pick<ReferenceTables, "communes" | "formers">): CommuneCodes {
  const current = new Set<string>();
  for (const line of tables.communes.split("\n")) {
    const code = line.slice(0, line.indexOf("|"));
    if (code !== "") current.add(code);
  }
  const formers = new Map<string, string>();
  for (const line of tables.formers.split("\n")) {
    const [code, , parent] = line.split("|");
    if (code && parent && code !== parent && !current.has(code)) formers.set(code, parent);
  }
  return { current, formers };
}

/** What the mapping did to the rows of one département (the département of the code after mapping). */
export interface CommuneCodeCounts {
  /** Rows moved from a former commune's code to its current commune's. */
  remapped: number;
  /** Rows whose code is no commune of the reference, by code: indexed as written, unreachable by postcode or city. */
  unknown: Map<string, number>;
}

/** Maps the rows' INSEE codes, counting per département what it did. */
export class CommuneCodeMapper {
  readonly #codes: CommuneCodes;
  readonly #counts = new Map<string, CommuneCodeCounts>();

  constructor(codes: CommuneCodes) {
    this.#codes = codes;
  }

  #countsOf(code: string): CommuneCodeCounts {
    const departement = departementOfInsee(code).toUpperCase();
    let c = this.#counts.get(departement);
    if (c === undefined) {
      c = { remapped: 0, unknown: new Map() };
      this.#counts.set(departement, c);
    }
    return c;
  }

  /** The row with its current commune's code (the same object, changed in place, when the code is a former one). */
  map(row: BanRow): BanRow {
    const code = row.codeInsee.toUpperCase();
    if (this.#codes.current.has(code)) return row;
    const parent = this.#codes.formers.get(code);
    if (parent !== undefined) {
      // Its streets stay apart from the same names elsewhere in the current commune (builder.ts).
      row.formerCommune ??= code;
      row.codeInsee = parent;
      this.#countsOf(parent).remapped++;
      return row;
    }
    const unknown = this.#countsOf(code).unknown;
    unknown.set(code, (unknown.get(code) ?? 0) + 1);
    return row;
  }

  /** Counts of one département (zeros when nothing was mapped there). */
  counts(departement: string): CommuneCodeCounts {
    return this.#counts.get(departement.toUpperCase()) ?? { remapped: 0, unknown: new Map() };
  }

  /** Rows left with an unknown code, all départements together. */
  get unknownRows(): number {
    let n = 0;
    for (const c of this.#counts.values()) for (const k of c.unknown.values()) n += k;
    return n;
  }

  /** Every unknown code with its rows, in code order. */
  get unknownCodes(): [string, number][] {
    const all: [string, number][] = [];
    for (const c of this.#counts.values()) all.push(...c.unknown);
    return all.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  }
}
