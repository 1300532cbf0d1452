// Reads a submitted CSV file as it arrives: the bytes are decoded (UTF-8, BOM or not) and cut after the last line
// break outside quotes, and each run of whole records goes through csv-parse at once, so that a file is never held
// whole as bytes or text, only as the records read so far. Rows are counted as they come: a file with more rows than
// the caller allows is refused as soon as the first row too many is read, not after the whole upload. Every refusal
// names the line (the header is line 1). Email and address submissions, JSON-less uploads and form uploads alike,
// start here.
import { CsvError, parse } from "csv-parse/sync";

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

/** A CSV file read as a header row and rows of as many cells, before any column is given a meaning. */
export interface CsvRecords {
  columns: string[];
  rows: string[][];
  /** The line each row starts on, for messages. */
  lines: number[];
  format: { separator: CsvSeparator; bom: boolean };
}

export interface CsvReadOptions {
  /** Refuses a cell PostgreSQL cannot store as sent (NUL, lone surrogate). */
  isStorable: (text: string) => boolean;
  /** Rows allowed after the header; one more ends the reading with tooMany(). */
  maxRows?: number;
  /** The error thrown when row maxRows + 1 is read (it is given the rows read). */
  tooMany?: (rowsRead: number) => Error;
  /**
   * Takes each row as it is read, with the line it starts on, instead of the records keeping it: the file's rows are
   * then never held together (the records come back with no rows). Called after the header row.
   */
  onRow?: (row: string[], line: number) => void;
  /** Takes the header row, as soon as it is read. */
  onHeader?: (columns: string[]) => void;
}

export interface CsvStreamOptions extends CsvReadOptions {
  /** Awaited after each piece of the body is read, before the next: where rows handed to onRow are written away. */
  afterChunk?: () => Promise<void>;
}

/** csv-parse's refusals, in words. */
const CSV_ERRORS: Record<string, string> = {
  CSV_RECORD_INCONSISTENT_FIELDS_LENGTH: "not as many fields as the header",
  CSV_QUOTE_NOT_CLOSED: "a quoted field is never closed",
  CSV_INVALID_CLOSING_QUOTE: "a quote where a field cannot have one (double it inside a quoted field)",
  CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE: "characters after a closing quote",
};

function linesIn(text: string, end = text.length): number {
  let lines = 0;
  for (let i = text.indexOf("\n"); i >= 0 && i < end; i = text.indexOf("\n", i + 1)) lines++;
  return lines;
}

/** Line ends in a field: CRLF, LF or CR, each one. */
function lineEndsIn(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) n++;
  }
  return n;
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

/** Text pushed in pieces of any size, records out: push() what arrives, then end() for the file's records. */
export class CsvRecordReader {
  #pending = "";
  /** Where the scan for quotes and line breaks resumes in #pending, and whether it is inside quotes there. */
  #scanned = 0;
  #quoted = false;
  /** Lines wholly read before #pending starts. */
  #linesBefore = 0;
  #separator: CsvSeparator | undefined;
  #columns: string[] | undefined;
  #headerLine = 1;
  readonly #rows: string[][] = [];
  readonly #lines: number[] = [];
  /** Rows read (kept in #rows, or handed to onRow). */
  #count = 0;
  readonly #options: CsvReadOptions;

  constructor(options: CsvReadOptions) {
    this.#options = options;
  }

  /** The line the reader has reached (for a decoding error in what comes next). */
  get line(): number {
    return this.#linesBefore + linesIn(this.#pending) + 1;
  }

  push(text: string): void {
    this.#pending += text;
    let cut = -1;
    const pending = this.#pending;
    for (let i = this.#scanned; i < pending.length; i++) {
      const c = pending.charCodeAt(i);
      if (c === 34) this.#quoted = !this.#quoted;
      else if (c === 10 && !this.#quoted) cut = i + 1;
    }
    this.#scanned = pending.length;
    if (cut < 0) return;
    this.#separator ??= separatorOf(pending);
    this.#read(pending.slice(0, cut), false);
    this.#pending = pending.slice(cut);
    this.#scanned = this.#pending.length;
  }

  end(bom: boolean): CsvRecords {
    const rest = this.#pending;
    this.#separator ??= separatorOf(rest);
    if (rest !== "") this.#read(rest, true);
    this.#pending = "";
    if (this.#columns === undefined) throw new CsvReadError("empty file: a header row is needed", 1);
    if (this.#count === 0) throw new CsvReadError("no rows after the header", this.#headerLine);
    return {
      columns: this.#columns,
      rows: this.#rows,
      lines: this.#lines,
      format: { separator: this.#separator, bom },
    };
  }

  /** Parses whole records (`last`: the file's end, where a quote may be left open). */
  #read(text: string, last: boolean): void {
    const { isStorable, maxRows = Number.POSITIVE_INFINITY, tooMany, onRow, onHeader } = this.#options;
    const offset = this.#linesBefore;
    let records: Array<{ record: string[]; info: { lines: number } }>;
    try {
      records = parse(text, {
        delimiter: this.#separator,
        // Every line end, whichever comes first: csv-parse would otherwise take the first one it meets in each run of
        // records for the only one, and a file of mixed line ends would read differently however it is cut.
        record_delimiter: ["\r\n", "\n", "\r"],
        skip_empty_lines: true,
        info: true,
        // Row lengths are checked against the header below: csv-parse would compare with the batch's first row.
        relax_column_count: true,
      }) as unknown as Array<{ record: string[]; info: { lines: number } }>;
    } catch (error) {
      if (!(error instanceof CsvError)) throw error;
      // A quote never closed is reported by csv-parse at the end of the file: the line that opened it is the useful one.
      const line =
        last && error.code === "CSV_QUOTE_NOT_CLOSED"
          ? linesIn(text, unclosedQuoteAt(text)) + 1
          : ((error as CsvError & { lines?: number }).lines ?? 1);
      throw new CsvReadError(CSV_ERRORS[error.code] ?? error.code.toLowerCase().replaceAll("_", " "), offset + line);
    }
    for (const { record, info } of records) {
      // info.lines is the line a record ends on: it starts as many lines earlier as its quoted fields hold line ends
      // (counting so, blank lines skipped before it do not shift it).
      const line = offset + info.lines - record.reduce((n, cell) => n + lineEndsIn(cell), 0);
      if (this.#columns === undefined) {
        for (const name of record) {
          if (!isStorable(name)) throw new CsvReadError("a header holds a NUL or an unpaired surrogate", 1);
        }
        this.#columns = record;
        this.#headerLine = offset + info.lines;
        onHeader?.(record);
        continue;
      }
      if (record.length !== this.#columns.length)
        throw new CsvReadError(CSV_ERRORS.CSV_RECORD_INCONSISTENT_FIELDS_LENGTH!, line);
      for (const cell of record) {
        if (!isStorable(cell)) throw new CsvReadError("a field holds a NUL or an unpaired surrogate", line);
      }
      if (++this.#count > maxRows) throw tooMany?.(this.#count) ?? new RangeError("too many rows");
      if (onRow !== undefined) onRow(record, line);
      else {
        this.#rows.push(record);
        this.#lines.push(line);
      }
    }
    this.#linesBefore += linesIn(text);
  }
}

/** Reads a whole file held in memory (a file given to a command, a test). */
export function readCsvRecords(bytes: Uint8Array, options: CsvReadOptions): CsvRecords {
  const reader = new CsvRecordReader(options);
  try {
    // The decoder drops a leading BOM.
    reader.push(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    const loose = new TextDecoder("utf-8").decode(bytes);
    throw new CsvReadError("not UTF-8 text", linesIn(loose, loose.indexOf("\uFFFD")) + 1);
  }
  return reader.end(hasBom(bytes));
}

/** Reads a file as it arrives, chunk by chunk, holding only the records read so far. */
export async function readCsvStream(chunks: AsyncIterable<Uint8Array>, options: CsvStreamOptions): Promise<CsvRecords> {
  const reader = new CsvRecordReader(options);
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let head = new Uint8Array(0);
  const decode = (chunk: Uint8Array | undefined) => {
    try {
      return chunk === undefined ? decoder.decode() : decoder.decode(chunk, { stream: true });
    } catch {
      // The line is the reader's, plus the line breaks of this chunk before the first byte that is not UTF-8.
      const loose = chunk === undefined ? "" : new TextDecoder("utf-8").decode(chunk);
      throw new CsvReadError("not UTF-8 text", reader.line + linesIn(loose, Math.max(0, loose.indexOf("\uFFFD"))));
    }
  };
  for await (const chunk of chunks) {
    if (head.length < 3) head = Uint8Array.from([...head, ...chunk.subarray(0, 3 - head.length)]);
    reader.push(decode(chunk));
    await options.afterChunk?.();
  }
  reader.push(decode(undefined));
  return reader.end(hasBom(head));
}

function hasBom(bytes: Uint8Array): boolean {
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}
