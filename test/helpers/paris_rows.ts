// Addresses drawn from the real Paris BAN file (../shared/data, never committed) for bulk address tests and the
// bench: the file's own rows, read at run time, then written the ways customer files write them.
import { existsSync } from "node:fs";
import path from "node:path";
import { readBanCsv } from "../../src/address/index/ban_csv.ts";
import type { BanRow } from "../../src/address/index/builder.ts";

export const PARIS_BAN = path.resolve(import.meta.dirname, "../../../shared/data/ban/adresses-75.csv.gz");
export const PARIS_SKIP: false | string = existsSync(PARIS_BAN)
  ? false
  : `real Paris BAN file absent at ${PARIS_BAN}: skipped`;

/** Every `step`-th row of the Paris file, `count` of them at most (the file has 158,048). */
export async function parisRows(count: number, step = 1): Promise<BanRow[]> {
  const rows: BanRow[] = [];
  let i = 0;
  for await (const row of readBanCsv(PARIS_BAN)) {
    if (i++ % step !== 0) continue;
    rows.push(row);
    if (rows.length >= count) break;
  }
  return rows;
}

/** A row as one line, as the API's examples write it: "150 Rue de Rivoli, 75001 Paris". */
export function lineOf(row: BanRow): string {
  return `${row.numero}${row.rep ? ` ${row.rep}` : ""} ${row.nomVoie}, ${row.codePostal} Paris`;
}

/** One CSV cell, quoted. */
export function cell(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}
