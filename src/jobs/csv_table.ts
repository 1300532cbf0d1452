// CSV in and out of bulk jobs, for list cleaning. In: a UTF-8 file (BOM or not), comma or semicolon separated (whichever the
// header row uses more), quoted fields, a header row; the address column is the one named email (any case, or
// e-mail, mail, courriel), else the only column whose cells hold addresses; every other column is kept with its row.
// Parsing is csv-parse's: quotes, escaped quotes, line breaks inside quotes and ragged rows are its business, and
// every refusal names the line. Out: the submitted columns (or `email`), then the verdict columns, through
// csv-stringify.
import { CsvError, parse } from "csv-parse/sync";
import { stringify } from "csv-stringify/sync";
import type { EmailVerification } from "../email/types.ts";

/** Header names of the address column, in order of preference (compared trimmed and lower-cased). */
export const ADDRESS_COLUMN_NAMES = ["email", "e-mail", "mail", "courriel"] as const;

/** The columns every result row ends with, after the submitted ones. */
export const VERDICT_COLUMNS = ["verdict", "reasons", "suggestion", "disposable", "role", "catch_all"] as const;

/** Reasons in one CSV cell are joined with this. */
export const REASONS_SEPARATOR = "|";

/** A CSV that cannot be read as a list of addresses; `line` is 1-based (the header is line 1). */
export class CsvReadError extends SyntaxError {
  override name = "CsvReadError";
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
  }
}

/** The separators a submission may use. */
export type CsvSeparator = "," | ";";

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

/** csv-parse's refusals, in words. */
const CSV_ERRORS: Record<string, string> = {
  CSV_RECORD_INCONSISTENT_FIELDS_LENGTH: "not as many fields as the header",
  CSV_QUOTE_NOT_CLOSED: "a quoted field is never closed",
  CSV_INVALID_CLOSING_QUOTE: "a quote where a field cannot have one (double it inside a quoted field)",
  CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE: "characters after a closing quote",
};

const UTF8 = new TextDecoder("utf-8", { fatal: true });
const LOOKS_LIKE_ADDRESS = /^[^\s@]+@[^\s@]+$/;

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** The separator the header row uses most, outside quotes: `;` or `,` (the default). */
function separatorOf(text: string): CsvSeparator {
  let commas = 0;
  let semicolons = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === "\n" || c === "\r")) break;
    else if (!quoted && c === ",") commas++;
    else if (!quoted && c === ";") semicolons++;
  }
  return semicolons > commas ? ";" : ",";
}

/** Where the quote that is never closed opens: quotes pair up in order (a doubled quote is two of them). */
function unclosedQuoteAt(text: string): number {
  let opened = 0;
  let quoted = false;
  for (let i = text.indexOf('"'); i >= 0; i = text.indexOf('"', i + 1)) {
    quoted = !quoted;
    if (quoted) opened = i;
  }
  return opened;
}

function decode(bytes: Uint8Array): string {
  try {
    // The decoder drops a leading BOM.
    return UTF8.decode(bytes);
  } catch {
    const loose = new TextDecoder("utf-8").decode(bytes);
    throw new CsvReadError("not UTF-8 text", lineOf(loose, loose.indexOf("\uFFFD")));
  }
}

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

/** A CSV file read as a header row and rows of as many cells, before any column is given a meaning. */
export interface CsvRecords {
  columns: string[];
  rows: string[][];
  /** The line each row starts on, for messages. */
  lines: number[];
  format: { separator: CsvSeparator; bom: boolean };
}

/**
 * Reads a submitted file (UTF-8 with or without BOM, `,` or `;`, quoted fields, a header row); throws CsvReadError
 * naming the line of the first thing it cannot read. Email and address submissions both start here.
 */
export function readCsvRecords(bytes: Uint8Array, options: Pick<ParseCsvOptions, "isStorable">): CsvRecords {
  const { isStorable } = options;
  const text = decode(bytes);
  const separator = separatorOf(text);
  let records: Array<{ record: string[]; info: { lines: number } }>;
  try {
    records = parse(text, {
      delimiter: separator,
      skip_empty_lines: true,
      info: true,
      // A row as long as the header, always: a shorter or longer one is refused with its line.
      relax_column_count: false,
    }) as unknown as Array<{ record: string[]; info: { lines: number } }>;
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    // A quote never closed is reported by csv-parse at the end of the file: the line that opened it is the useful one.
    const line =
      error.code === "CSV_QUOTE_NOT_CLOSED"
        ? lineOf(text, unclosedQuoteAt(text))
        : ((error as CsvError & { lines?: number }).lines ?? 1);
    throw new CsvReadError(CSV_ERRORS[error.code] ?? error.code.toLowerCase().replaceAll("_", " "), line);
  }
  const [header, ...body] = records;
  if (header === undefined) throw new CsvReadError("empty file: a header row is needed", 1);
  const columns = header.record;
  const rows = body.map((r) => r.record);
  // info.lines is the line a record ends on: a record starts right after the previous one ended.
  const lines = body.map((_, i) => (i === 0 ? header.info.lines : body[i - 1]!.info.lines) + 1);
  for (let i = 0; i < columns.length; i++) {
    if (!isStorable(columns[i]!)) throw new CsvReadError("a header holds a NUL or an unpaired surrogate", 1);
  }
  if (rows.length === 0) throw new CsvReadError("no rows after the header", header.info.lines);
  for (let r = 0; r < rows.length; r++) {
    for (const cell of rows[r]!) {
      if (!isStorable(cell)) throw new CsvReadError("a field holds a NUL or an unpaired surrogate", lines[r]!);
    }
  }
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  return { columns, rows, lines, format: { separator, bom } };
}

/** Parses a bulk email submission; throws CsvReadError naming the line of the first thing it cannot read. */
export function parseCsvTable(bytes: Uint8Array, options: ParseCsvOptions): CsvTable {
  const { maxAddressLength } = options;
  const { columns, rows, lines, format } = readCsvRecords(bytes, options);
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
