// How POST /v1/address/bulk reads its body: a JSON list, a CSV file or a form with one CSV file part (the media types
// of every bulk route, http/bulk_upload.ts), each read as it arrives with its rows handed one by one to a sink that
// writes them away (routes/submit_address_bulk.ts), so that the rows of a file are never held together. Between two
// pieces of the body the sink's writes are awaited: a client sending faster than the database takes the rows is
// slowed down, not buffered. The refusals are those of a body read whole, in the same order: the 413 of the first
// row too many and a CSV file that cannot be read come as they are met; an item that does not validate, or a row
// whose address cannot be read, is kept and refused once the body has ended (as the schema check of a whole body
// would), the rows after it no longer handed over.
import * as v from "valibot";
import type { AddressInput } from "../address/types.ts";
import { addressColumns, addressInputOf } from "../jobs/address_csv.ts";
import { CsvReadError, readCsvStream } from "../jobs/csv_reader.ts";
import { invalidBody, issueErrors, type StreamedDecoder, unknownMembers, type ValidationError } from "./body.ts";
import { unreadable } from "./bulk_upload.ts";
import { CALLBACK_URL_PARAMETER } from "./callback_url.ts";
import type { HttpError } from "./errors.ts";
import { readJsonStream } from "./json_stream.ts";
import { formUpload, MULTIPART_FORM_DATA } from "./multipart_csv.ts";
import { AddressBulkRequestSchema, AddressItemSchema, isStorableText } from "./schemas.ts";
import type { Where } from "./test_inputs.ts";

/** Where the rows of one upload go. */
export interface AddressRowSink {
  /** A CSV file's header, before its rows. */
  header(columns: string[]): void;
  /** A row: its input, its cells when the body is a CSV file, and where it stands in the body (for messages). */
  row(input: AddressInput, cells: string[] | null, where: Where): void;
  /** Awaited between two pieces of the body. */
  drain(): Promise<void>;
  /** The body has ended and every row was handed over: what the body's `addresses` member becomes. */
  finish(): Promise<unknown>;
}

export interface AddressUploadDecoderOptions {
  /** Rows a job may hold: the plan's. */
  maxRows: number;
  /** The 413 of a list with more: given the rows read when it was refused (maxRows + 1), and what they are. */
  tooMany: (received: number, unit: "rows" | "addresses") => HttpError;
  /** The sink of a request's rows, opened as its body begins. */
  open: (request: Request) => AddressRowSink;
}

/** The rest of a JSON body, its list read item by item. */
const JsonRestSchema = v.object({ ...AddressBulkRequestSchema.entries, addresses: v.array(v.unknown()) });
/** Failures of the list's items listed at the most, as a body read whole lists them (body.ts). */
const MAX_ERRORS = 50;

export function addressUploadDecoders(options: AddressUploadDecoderOptions): Record<string, StreamedDecoder> {
  const { maxRows, tooMany, open } = options;

  const json: StreamedDecoder = async (chunks, request) => {
    const sink = open(request);
    const failures: ValidationError[] = [];
    let items = 0;
    const root = await readJsonStream(chunks, {
      list: "addresses",
      maxItems: maxRows,
      tooMany: (received) => tooMany(received, "addresses"),
      onItem(item, index) {
        items++;
        const parsed = v.safeParse(AddressItemSchema, item);
        if (!parsed.success) {
          if (failures.length < MAX_ERRORS) {
            const at = [
              { type: "object" as const, key: "addresses" },
              { type: "array" as const, key: index },
            ];
            failures.push(...issueErrors(AddressBulkRequestSchema, parsed.issues, at));
          }
          return;
        }
        if (failures.length === 0) sink.row(parsed.output, null, { member: `addresses[${index}]` });
      },
      afterChunk: () => (failures.length === 0 ? sink.drain() : Promise.resolve()),
    });
    // Not an object: refused by readJson as any body.
    if (root === null || typeof root !== "object" || Array.isArray(root)) return root;
    const body = root as Record<string, unknown>;
    if (items === 0) {
      // No list read item by item (none, empty, not an array): the whole body's check names what is wrong.
      const parsed = v.safeParse(AddressBulkRequestSchema, body);
      if (!parsed.success) {
        throw invalidBody([
          ...issueErrors(AddressBulkRequestSchema, parsed.issues),
          ...unknownMembers(AddressBulkRequestSchema, body, ""),
        ]);
      }
    }
    const rest = v.safeParse(JsonRestSchema, body);
    if (failures.length > 0 || !rest.success) {
      throw invalidBody([
        ...failures,
        ...(rest.success ? [] : issueErrors(AddressBulkRequestSchema, rest.issues)),
        ...unknownMembers(AddressBulkRequestSchema, body, ""),
      ]);
    }
    const addresses = await sink.finish();
    return body.callback_url === undefined ? { addresses } : { addresses, callback_url: body.callback_url };
  };

  const csv = async (chunks: AsyncIterable<Uint8Array>, sink: AddressRowSink): Promise<{ addresses: unknown }> => {
    // A file whose addresses cannot be read is refused once it has been read whole (every line of it readable and
    // within the limit), as it was when it was read before its addresses.
    let deferred: CsvReadError | undefined;
    let columns: string[] = [];
    let mapping: ReturnType<typeof addressColumns> = {};
    const keep = (error: unknown) => {
      if (!(error instanceof CsvReadError)) throw error;
      deferred ??= error;
    };
    try {
      await readCsvStream(chunks, {
        isStorable: isStorableText,
        maxRows,
        tooMany: (received) => tooMany(received, "rows"),
        onHeader(names) {
          columns = names;
          try {
            mapping = addressColumns(names);
            sink.header(names);
          } catch (error) {
            keep(error);
          }
        },
        onRow(row, line) {
          if (deferred !== undefined) return;
          try {
            sink.row(addressInputOf(row, line, columns, mapping), row, { member: `line ${line}`, line });
          } catch (error) {
            keep(error);
          }
        },
        afterChunk: () => (deferred === undefined ? sink.drain() : Promise.resolve()),
      });
      if (deferred !== undefined) throw deferred;
    } catch (error) {
      if (error instanceof CsvReadError) throw unreadable(error);
      throw error;
    }
    return { addresses: await sink.finish() };
  };

  return {
    "application/json": json,
    "text/csv": (chunks, request) => csv(chunks, open(request)),
    [MULTIPART_FORM_DATA]: async (chunks, request) => {
      const form = await formUpload(request.headers.get("content-type") ?? "", chunks);
      const body = await csv(form.file, open(request));
      // The rest of the form is read: a second file part after the first is refused, not ignored.
      await form.end;
      // A form's callback_url field stands for the query parameter (http/callback_url.ts compares the two).
      const callbackUrl = form.fields.get(CALLBACK_URL_PARAMETER);
      return callbackUrl === undefined ? body : { ...body, [CALLBACK_URL_PARAMETER]: callbackUrl };
    },
  };
}
