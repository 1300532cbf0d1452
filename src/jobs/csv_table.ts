// CSV in and out of bulk jobs, for list cleaning. In: a UTF-8 file (BOM or not), comma or semicolon separated (whichever the
// header row uses more), quoted fields, a header row; the address column is the one named email (any case, or
// e-mail, mail, courriel), else the only column whose cells hold addresses; every other column is kept with its row.
// Parsing is csv-parse's: quotes, escaped quotes, line breaks inside quotes and ragged rows are its business, and
// every refusal names the line. Out: the submitted columns (or `email`), then the verdict columns, through
// csv-stringify.
import { stringify } from "csv-stringify/sync";
import { CsvReadError, type CsvRecords, type CsvSeparator, readCsvRecords } from "./csv_reader.ts";

export { CsvReadError, type CsvRecords, type CsvSeparator, readCsvRecords };
import type { EmailVerification } from "../email/types.ts";

/** Header names of the address column, in order of preference (compared trimmed and lower-cased). */
export const ADDRESS_COLUMN_NAMES = ["email", "e-mail", "mail", "courriel"] as const;

/** The columns every result row ends with, after the submitted ones. */
export const VERDICT_COLUMNS = ["verdict", "reasons", "suggestion", "disposable", "role", "catch_all"] as const;

/** Reasons in one CSV cell are joined with this. */
export const REASONS_SEPARATOR = "|";

/** A parsed submission: the header row, the address column's index, and the rows (each as long as the header). */
export class CsvTable {
  constructor(
    readonly columns: string[],
    readonly emailColumn: number,
    readonly rows: string[][],
    /** The line each row starts on, for messages. */
    readonly lines: number[],
    /** How the file was written, so that a file given back can be written the same way. */
    readonly format: { separator: CsvSeparator; bom: boolean },
  ) {}

  get emails(): string[] {
    return this.rows.map((row) => row[this.emailColumn]!);
  }
}

export interface ParseCsvOptions {
  /** Cells of the address column longer than this are refused, naming the line. */
  maxAddressLength: number;
  /** Refuses a cell PostgreSQL cannot store as sent (NUL, lone surrogate). */
  isStorable: (text: string) => boolean;
}

const LOOKS_LIKE_ADDRESS = /^[^\s@]+@[^\s@]+$/;

/** The address column: by its name, else the only column most of whose cells look like addresses. */
function addressColumn(columns: string[], rows: string[][]): number {
  const names = columns.map((c) => c.trim().toLowerCase());
  for (const name of ADDRESS_COLUMN_NAMES) {
    const at = names.indexOf(name);
    if (at >= 0) return at;
  }
  const holding = columns
    .map((_, i) => i)
    .filter((i) => {
      let filled = 0;
      let addresses = 0;
      for (const row of rows) {
        const cell = row[i]!.trim();
        if (cell === "") continue;
        filled++;
        if (LOOKS_LIKE_ADDRESS.test(cell)) addresses++;
      }
      return filled > 0 && addresses * 2 > filled;
    });
  if (holding.length === 1) return holding[0]!;
  const wanted = `name the address column ${ADDRESS_COLUMN_NAMES.join(", ")}`;
  if (holding.length === 0) throw new CsvReadError(`no address column: ${wanted}`, 1);
  const which = holding.map((i) => JSON.stringify(columns[i])).join(", ");
  throw new CsvReadError(`several columns hold addresses (${which}): ${wanted}`, 1);
}

/** Parses a bulk email submission; throws CsvReadError naming the line of the first thing it cannot read. */
export function parseCsvTable(bytes: Uint8Array, options: ParseCsvOptions): CsvTable {
  return csvTableOf(readCsvRecords(bytes, options), options);
}

/** A file's records as a bulk email submission: its address column found, each address's length checked. */
export function csvTableOf(records: CsvRecords, options: Pick<ParseCsvOptions, "maxAddressLength">): CsvTable {
  const { maxAddressLength } = options;
  const { columns, rows, lines, format } = records;
  const emailColumn = addressColumn(columns, rows);
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    if (row[emailColumn]!.length > maxAddressLength) {
      throw new CsvReadError(`the address is longer than ${maxAddressLength} characters`, lines[r]!);
    }
  }
  return new CsvTable(columns, emailColumn, rows, lines, format);
}

/** The six verdict cells of a result: reasons joined with `|`, flags as true/false, empty when null. */
export function verdictCells(result: EmailVerification): string[] {
  const flag = (value: boolean | null | undefined) => (value === true ? "true" : value === false ? "false" : "");
  return [
    result.verdict,
    result.reasons.join(REASONS_SEPARATOR),
    result.suggestion ?? "",
    flag(result.flags?.disposable),
    flag(result.flags?.role),
    flag(result.flags?.catch_all),
  ];
}

/** Rows as CSV text (comma separated unless told, CRLF line ends, quotes where needed). */
export function csvLines(rows: ReadonlyArray<readonly string[]>, separator: CsvSeparator = ","): string {
  // csv-stringify quotes a field holding the record delimiter (CRLF) but not a bare CR or LF, which spreadsheets read
  // as a row break: every field with a line break is quoted.
  return stringify(rows as string[][], { delimiter: separator, record_delimiter: "windows", quoted_match: /[\r\n]/ });
}
