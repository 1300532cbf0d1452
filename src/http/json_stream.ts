// Reads a bulk JSON body as it arrives (@streamparser/json): the bytes are never held whole, and the items of the
// list member (`emails`, `addresses`) are counted as each one ends, so that a list longer than the caller allows is
// refused as soon as its first item too many is read. The value comes out as JSON.parse would give it, for the same
// schema check as any body.
import { JSONParser } from "@streamparser/json";
import { HttpError } from "./errors.ts";

export interface JsonStreamOptions {
  /** The member whose items are counted. */
  list: string;
  maxItems: number;
  /** The error thrown when item maxItems + 1 ends (it is given the items read). */
  tooMany: (itemsRead: number) => Error;
  /**
   * Takes each item of the list (when it is an array) as it ends, instead of the value keeping it: the list comes out
   * empty, its items never held together.
   */
  onItem?: (item: unknown, index: number) => void;
  /** Awaited after each piece of the body is read, before the next: where items handed to onItem are written away. */
  afterChunk?: () => Promise<void>;
}

function malformed(message: string): HttpError {
  return new HttpError("invalid-request", `Cannot read body: malformed JSON (${message})`);
}

export async function readJsonStream(chunks: AsyncIterable<Uint8Array>, options: JsonStreamOptions): Promise<unknown> {
  const { list, maxItems, tooMany, onItem, afterChunk } = options;
  const parser = new JSONParser({ paths: ["$", `$.${list}.*`], keepStack: false });
  let root: unknown;
  let done = false;
  let items = 0;
  let failure: Error | undefined;
  let refused: Error | undefined;
  // The array the counted items belong to. Items of another array come from the list member given again: JSON.parse
  // would keep the last list only, while the first list's items may be written away already, so neither is taken.
  let listArray: unknown;
  const givenTwice = () =>
    new HttpError("invalid-request", `Cannot read body: the member "${list}" is given more than once; send one list`, {
      extensions: { errors: [{ member: list, message: "given more than once" }] },
    });
  parser.onValue = ({ stack, value, key, parent }) => {
    if (stack.length === 0) {
      root = value;
      done = true;
      return;
    }
    listArray ??= parent;
    if (parent !== listArray) {
      refused ??= givenTwice();
      throw refused;
    }
    if (++items > maxItems) {
      // The parser would report a throw from here as a syntax error: the refusal is kept and thrown after write().
      refused ??= tooMany(items);
      throw refused;
    } else if (onItem !== undefined && Array.isArray(parent)) {
      try {
        onItem(value, key as number);
      } catch (error) {
        // Thrown as it was, not as the syntax error the parser would make of it.
        refused ??= error as Error;
        throw refused;
      }
      // The parser pushed the item on the list as it began: it leaves it now.
      parent.length -= 1;
    }
  };
  parser.onError = (error) => {
    failure ??= error;
  };
  parser.onEnd = () => {};
  const write = (chunk: Uint8Array | undefined) => {
    try {
      if (chunk === undefined) parser.end();
      else parser.write(chunk);
    } catch (error) {
      failure ??= error as Error;
    }
    if (refused !== undefined) throw refused;
    if (failure !== undefined) throw malformed(failure.message);
  };
  let first = true;
  for await (let chunk of chunks) {
    // A leading byte order mark is dropped, as the whole-body reader's TextDecoder drops it.
    if (first && chunk.byteLength > 0) {
      first = false;
      if (chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) chunk = chunk.subarray(3);
    }
    // Anything after the value is refused as JSON.parse refuses it, without reading more.
    if (done && !/^\s*$/.test(new TextDecoder().decode(chunk))) throw malformed("unexpected data after the value");
    write(chunk);
    await afterChunk?.();
  }
  if (!done) write(undefined);
  if (!done) throw malformed("unexpected end of the body");
  // The list's items were read, then the member given again (an empty list, another value): not the list they were.
  if (listArray !== undefined && (root as Record<string, unknown>)[list] !== listArray) throw givenTwice();
  return root;
}
