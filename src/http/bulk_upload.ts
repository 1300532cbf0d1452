// How a bulk upload is read, for every bulk route: a JSON body, a CSV file (text/csv) or a form with one CSV file
// part (multipart/form-data), each read as it arrives, never held whole, its rows counted against the plan's limit on
// the way (413 naming the limit as soon as the first row too many is read). A CSV file that cannot be read is a 400
// whose `line` member names the line.
import type { CsvRecords } from "../jobs/csv_reader.ts";
import { CsvReadError, readCsvStream } from "../jobs/csv_reader.ts";
import type { StreamedDecoder } from "./body.ts";
import { CALLBACK_URL_PARAMETER } from "./callback_url.ts";
import { HttpError } from "./errors.ts";
import { readJsonStream } from "./json_stream.ts";
import { formUpload, MULTIPART_FORM_DATA } from "./multipart_csv.ts";
import { isStorableText } from "./schemas.ts";

export interface BulkUploadOptions {
  /** The JSON body's list member. */
  list: "emails" | "addresses";
  /** Rows (or list items) a job may hold: the plan's. */
  maxRows: number;
  /** The 413 of a list with more: given the rows read when it was refused (maxRows + 1), and what they are. */
  tooMany: (received: number, unit: "rows" | "addresses") => HttpError;
  /** The body the route's schema validates, made of a CSV file's records (throws CsvReadError for a bad row). */
  fromCsv: (records: CsvRecords) => object;
}

/** A CSV file that cannot be read: 400 invalid-request naming the line. */
export function unreadable(error: CsvReadError): HttpError {
  const message = `line ${error.line}: ${error.message}`;
  return new HttpError("invalid-request", `Cannot read CSV: ${message}`, {
    extensions: { line: error.line, errors: [{ member: `line ${error.line}`, message: error.message }] },
  });
}

/** The decoders of POST /v1/…/bulk, by media type. */
export function bulkUploadDecoders(options: BulkUploadOptions): Record<string, StreamedDecoder> {
  const { list, maxRows, tooMany, fromCsv } = options;
  const csv = async (chunks: AsyncIterable<Uint8Array>): Promise<object> => {
    try {
      return fromCsv(
        await readCsvStream(chunks, {
          isStorable: isStorableText,
          maxRows,
          tooMany: (received) => tooMany(received, "rows"),
        }),
      );
    } catch (error) {
      if (error instanceof CsvReadError) throw unreadable(error);
      throw error;
    }
  };
  return {
    "application/json": (chunks) =>
      readJsonStream(chunks, { list, maxItems: maxRows, tooMany: (received) => tooMany(received, "addresses") }),
    "text/csv": (chunks) => csv(chunks),
    [MULTIPART_FORM_DATA]: async (chunks, request) => {
      const form = await formUpload(request.headers.get("content-type") ?? "", chunks);
      const body = await csv(form.file);
      // The rest of the form is read: a second file part after the first is refused, not ignored.
      await form.end;
      // A form's callback_url field stands for the query parameter (http/callback_url.ts compares the two).
      const callbackUrl = form.fields.get(CALLBACK_URL_PARAMETER);
      return callbackUrl === undefined ? body : { ...body, [CALLBACK_URL_PARAMETER]: callbackUrl };
    },
  };
}
