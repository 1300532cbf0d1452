// CSV in and out of bulk address jobs. In: the file as csv_table.ts reads any submission, then the address found by
// its columns' names, as French and international files name them: one column holding the whole address (adresse,
// address, line), or field columns (numero/house_number, voie/rue/street, code_postal/cp/postcode,
// ville/commune/city, pays/country), or both (the fields then stand over what the line says, as POST /v1/address
// reads them). Names are compared in any case, without accents, with spaces and dashes as underscores. A complement
// column (building, staircase, flat) is recognised but not matched: BAN knows no such thing, and it stays in the row
// as sent. Every other column is kept with its row. Out: the user's columns, then the answer's columns.
import type { AddressInput, AddressVerification } from "../address/types.ts";
import { CsvReadError, type CsvRecords, REASONS_SEPARATOR, readCsvRecords } from "./csv_table.ts";
import { csvField } from "./csv_field.ts";
import { answerValues, STORED_AT, type StoredAnswer } from "../address/stored_answer.ts";

type InputField = keyof AddressInput;

/** Header names of each address column, compared after headerKey(). */
export const ADDRESS_COLUMN_NAMES: Readonly<Record<InputField, readonly string[]>> = {
  line: ["adresse", "address", "line"],
  house_number: ["numero", "house_number"],
  street: ["voie", "rue", "street"],
  postcode: ["code_postal", "cp", "postcode"],
  city: ["ville", "commune", "city"],
  country: ["pays", "country"],
};

/** The complement of address (line 3 of a postal address): recognised, kept, not matched. */
export const COMPLEMENT_COLUMN_NAMES = ["complement"] as const;

/** The columns every result row ends with, after the submitted ones. */
export const ADDRESS_RESULT_COLUMNS = [
  "verdict",
  "reasons",
  "normalized_line",
  "normalized_house_number",
  "normalized_house_number_suffix",
  "normalized_street",
  "normalized_postcode",
  "normalized_city",
  "latitude",
  "longitude",
  "insee_code",
  "ban_id",
  "postal_line_4",
  "postal_line_6",
] as const;

/** The columns of a JSON submission's rows in CSV out: the input's own members. */
export const ADDRESS_INPUT_COLUMNS: readonly InputField[] = [
  "line",
  "house_number",
  "street",
  "postcode",
  "city",
  "country",
];

/** The most characters each input member may hold (as the API's schema has it). */
const MAX_LENGTH: Readonly<Record<InputField, number>> = {
  line: 1000,
  house_number: 300,
  street: 300,
  postcode: 300,
  city: 300,
  country: 300,
};

/** A header as compared: trimmed, lower case, accents removed, spaces and dashes as underscores. */
export function headerKey(name: string): string {
  return name
    .trim()
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[\s-]+/g, "_");
}

/** A parsed address submission: the file's rows, and each row's input. */
export interface AddressCsv extends CsvRecords {
  inputs: AddressInput[];
  /** Which column each input member was read from. */
  mapping: Partial<Record<InputField, number>>;
}

/** Which column holds each input member; throws CsvReadError (line 1) when no column holds an address. */
export function addressColumns(columns: readonly string[]): Partial<Record<InputField, number>> {
  const keys = columns.map(headerKey);
  const mapping: Partial<Record<InputField, number>> = {};
  for (const [field, names] of Object.entries(ADDRESS_COLUMN_NAMES) as Array<[InputField, readonly string[]]>) {
    const at = names.map((n) => keys.indexOf(n)).find((i) => i >= 0);
    if (at !== undefined) mapping[field] = at;
  }
  // A line or a street makes an address list: a city or a postcode alone is any list of people or places.
  if (mapping.line === undefined && mapping.street === undefined) {
    throw new CsvReadError(
      "no address column: name one column adresse, address or line, or the field columns numero, voie, " +
        "code_postal, ville (or house_number, street, postcode, city)",
      1,
    );
  }
  return mapping;
}

/** Reads a bulk address submission; throws CsvReadError naming the line of the first thing it cannot read. */
export function parseAddressCsv(bytes: Uint8Array, options: { isStorable: (text: string) => boolean }): AddressCsv {
  return addressCsvOf(readCsvRecords(bytes, options));
}

/** A file's records as a bulk address submission: its address columns found, each row's input read. */
export function addressCsvOf(records: CsvRecords): AddressCsv {
  const mapping = addressColumns(records.columns);
  const inputs = records.rows.map((row, r) => addressInputOf(row, records.lines[r]!, records.columns, mapping));
  return { ...records, inputs, mapping };
}

/**
 * One row's input, read from the columns `mapping` names (addressColumns); throws CsvReadError naming `line` for a
 * field longer than the API takes.
 */
export function addressInputOf(
  row: readonly string[],
  line: number,
  columns: readonly string[],
  mapping: Partial<Record<InputField, number>>,
): AddressInput {
  const input: AddressInput = {};
  for (const [field, at] of Object.entries(mapping) as Array<[InputField, number]>) {
    const cell = row[at]!;
    if (cell.trim() === "") continue;
    if (cell.length > MAX_LENGTH[field]) {
      throw new CsvReadError(`the ${columns[at]} field is longer than ${MAX_LENGTH[field]} characters`, line);
    }
    input[field] = cell;
  }
  return input;
}

/** The answer's cells of one row, in ADDRESS_RESULT_COLUMNS order: empty where the answer has nothing. */
export function addressResultCells(result: AddressVerification): string[] {
  const n = result.normalized;
  const text = (value: string | number | null | undefined) =>
    value === null || value === undefined ? "" : String(value);
  return [
    result.verdict,
    result.reasons.join(REASONS_SEPARATOR),
    text(n?.line),
    text(n?.house_number),
    text(n?.house_number_suffix),
    text(n?.street),
    text(n?.postcode),
    text(n?.city),
    text(n?.latitude),
    text(n?.longitude),
    text(n?.insee_code),
    text(n?.ban_id),
    text(n?.postal_line_4),
    text(n?.postal_line_6),
  ];
}

/** A JSON submission's row in CSV out: its input's members, in ADDRESS_INPUT_COLUMNS order. */
export function addressInputCells(input: AddressInput): string[] {
  return ADDRESS_INPUT_COLUMNS.map((field) => input[field] ?? "");
}

/** A chunk of finished rows as the database keeps them: JSON arrays, one element per row (address_job_store.ts). */
export interface AddressChunk<T = Uint8Array> {
  /** The inputs (a JSON submission's: read only when the chunk has no cells). */
  inputs: T | null;
  /** The cells as submitted (a CSV submission's), else null. */
  fields: T | null;
  results: T;
}

/**
 * A chunk's rows as CSV, from the UTF-8 bytes of its JSON texts to the UTF-8 bytes of its lines. The bytes are read
 * as Latin-1, one character per byte, and written back the same way: JSON.stringify escapes nothing above U+001F
 * but lone surrogates, and every character the CSV writer looks at (quote, comma, CR, LF, the JSON syntax) is ASCII,
 * which no byte of a multi-byte UTF-8 sequence can be, so the bytes pass through untouched, as decoding and encoding
 * UTF-8 would give them, at a fraction of the cost (one-byte strings to allocate, parse and join). A chunk whose JSON
 * holds an escape of a character beyond ASCII (written by something else than JSON.stringify) takes the UTF-8 way.
 */
export function addressCsvBytes(chunk: AddressChunk): Uint8Array {
  const parts = [chunk.inputs, chunk.fields, chunk.results];
  if (parts.every((part) => part === null || !escapesBeyondAscii(part))) {
    const latin1 = (part: Uint8Array | null) => (part === null ? null : bufferOf(part).toString("latin1"));
    const text = addressCsvText({
      inputs: latin1(chunk.inputs),
      fields: latin1(chunk.fields),
      results: latin1(chunk.results)!,
    });
    return Buffer.from(text, "latin1");
  }
  const utf8 = (part: Uint8Array | null) => (part === null ? null : bufferOf(part).toString("utf8"));
  return Buffer.from(
    addressCsvText({ inputs: utf8(chunk.inputs), fields: utf8(chunk.fields), results: utf8(chunk.results)! }),
  );
}

/** True when the JSON text holds a \u escape of anything but U+0000-U+007F (or may: `\\u` counts too). */
function escapesBeyondAscii(json: Uint8Array): boolean {
  const bytes = bufferOf(json);
  for (let at = bytes.indexOf("\\u"); at >= 0; at = bytes.indexOf("\\u", at + 2)) {
    // \u00XX with X < 8: U+0000-U+007F, the same one byte either way.
    if (bytes[at + 2] !== 0x30 || bytes[at + 3] !== 0x30 || !(bytes[at + 4]! >= 0x30 && bytes[at + 4]! <= 0x37)) {
      return true;
    }
  }
  return false;
}

function bufferOf(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * A chunk's rows as CSV text, byte for byte what csvLines() makes of addressInputCells() or the cells, then
 * addressResultCells(), for each row: written straight from the parsed texts, without the rows' cell arrays.
 */
export function addressCsvText(chunk: AddressChunk<string>): string {
  const results = JSON.parse(chunk.results) as StoredAnswer[];
  const fields = chunk.fields === null ? null : (JSON.parse(chunk.fields) as Array<Array<string | null>>);
  const inputs = fields === null ? (JSON.parse(chunk.inputs ?? "[]") as AddressInput[]) : [];
  let text = "";
  for (let k = 0; k < results.length; k++) {
    let line = "";
    if (fields !== null) {
      for (const cell of fields[k]!) line += `${csvField(cell)},`;
    } else {
      const input = inputs[k]!;
      for (const field of ADDRESS_INPUT_COLUMNS) line += `${csvField(input[field])},`;
    }
    const stored = results[k]!;
    text += `${line}${resultLine(Array.isArray(stored) ? stored : answerValues(stored))}\r\n`;
  }
  return text;
}

/** addressResultCells() as CSV fields, comma separated, from the answer's values (stored_answer.ts) where they stand. */
function resultLine(values: readonly unknown[]): string {
  const reasons = (values[1] as string[]).join(REASONS_SEPARATOR);
  if (values.length === 2) return `${csvField(values[0] as string)},${csvField(reasons)},,,,,,,,,,,,`;
  const text = (at: number) => csvField(values[at] as string | null);
  const number = (at: number) => (values[at] === null ? "" : String(values[at]));
  return (
    `${text(0)},${csvField(reasons)},${text(STORED_AT.line)},${text(STORED_AT.house_number)},` +
    `${text(STORED_AT.house_number_suffix)},${text(STORED_AT.street)},${text(STORED_AT.postcode)},` +
    `${text(STORED_AT.city)},${number(STORED_AT.latitude)},${number(STORED_AT.longitude)},` +
    `${text(STORED_AT.insee_code)},${text(STORED_AT.ban_id)},${text(STORED_AT.postal_line_4)},` +
    `${text(STORED_AT.postal_line_6)}`
  );
}
