// A multipart/form-data upload (RFC 7578), as an HTML form with <input type="file"> sends a list: its one file part is
// handed on as it arrives, to be read as the CSV body of the same route. Parsed by busboy, which streams each part
// (the web's Request.formData() would hold the whole file in memory first). Text fields are ignored, except a
// callback_url field, which stands for the query parameter of the same name (a form has no JSON member for it). A
// form with no file part, or with several, is a 400 naming what was expected.
import { Readable } from "node:stream";
import busboy from "busboy";
import { HttpError } from "./errors.ts";

export const MULTIPART_FORM_DATA = "multipart/form-data";

export interface FormUpload {
  /** The file part's bytes, as they arrive. */
  file: AsyncIterable<Uint8Array>;
  /** Text fields sent before the file part (fields after it arrive once the file is read: they are not waited for). */
  fields: ReadonlyMap<string, string>;
  /** Settles once the whole form is read: rejects with a 400 when a second file part followed the first. */
  end: Promise<void>;
}

function refuse(message: string): HttpError {
  return new HttpError("invalid-request", `Cannot read the form: ${message}`, {
    extensions: { errors: [{ member: "(body)", message }] },
  });
}

/** The file part of a form upload; throws 400 invalid-request for a form without exactly one file part. */
export function formUpload(contentType: string, body: AsyncIterable<Uint8Array>): Promise<FormUpload> {
  let parser: busboy.Busboy;
  try {
    // One file part; fields are small (a URL at most), and a form holds few.
    parser = busboy({ headers: { "content-type": contentType }, limits: { files: 1, fields: 20, fieldSize: 4096 } });
  } catch (error) {
    return Promise.reject(refuse((error as Error).message.replace(/^Malformed content type$/i, "no boundary")));
  }
  const source = Readable.from(body, { objectMode: false });
  const fields = new Map<string, string>();
  let ended: () => void = () => {};
  let broken: (error: unknown) => void = () => {};
  const end = new Promise<void>((resolve, reject) => {
    ended = resolve;
    broken = reject;
  });
  // Awaited by the reader once it has the file; until then a failure is the file's own.
  end.catch(() => {});
  return new Promise<FormUpload>((resolve, reject) => {
    let found = false;
    const fail = (error: unknown) => {
      source.unpipe(parser);
      source.destroy();
      reject(error);
    };
    parser.on("field", (name, value) => {
      if (!found) fields.set(name, value);
    });
    let file: Readable | undefined;
    parser.on("file", (_name, stream) => {
      found = true;
      file = stream;
      // A second file part: the file being read fails with it, naming the cause.
      parser.on("filesLimit", () => {
        const several = refuse("it holds several files; send one CSV file");
        stream.destroy(several);
        broken(several);
      });
      resolve({ file: readable(stream), fields, end });
    });
    parser.on("error", (error: Error) => {
      broken(refuse(error.message));
      if (found) file?.destroy(refuse(error.message));
      else fail(refuse(error.message));
    });
    parser.on("close", () => {
      ended();
      if (!found) fail(refuse("it holds no file; send the list as one CSV file part"));
    });
    // pipe() does not pass on the source's failure (the body too large, the client gone): the file fails with it.
    source.on("error", (error) => {
      broken(error);
      if (found) file?.destroy(error);
      else fail(error);
    });
    source.pipe(parser);
  });
}

/** The file part's bytes; a form that breaks off mid-file is a 400 naming why, not a server error. */
async function* readable(stream: Readable): AsyncGenerator<Uint8Array> {
  try {
    for await (const chunk of stream) yield chunk as Uint8Array;
  } catch (error) {
    if (error instanceof HttpError) throw error;
    throw refuse((error as Error).message);
  }
}
