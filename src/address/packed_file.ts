// The packed-file layout shared by the two binary formats of the address side: the département street index
// (index/format.ts) and the nationwide reference (reference/reference_format.ts). A file is read once into a
// SharedArrayBuffer and every worker thread builds typed-array views over the same bytes: nothing is copied per
// thread, nothing is parsed per address (docs/style.md habit 10, docs/contract.md §8).
//
//   8-byte magic | u32 header length (LE) | header JSON | sections, each 8-byte aligned (offsets in the header)
//
// Each format names its sections and their element types in one ordered table (PackedFormat.sections); the header
// is the format's own JSON object, holding at least `version` and `sections` (offset and length of each, offsets
// counted from the first section).
import { closeSync, fstatSync, openSync, readSync } from "node:fs";

export type SectionType = "u8" | "u16" | "u32" | "i32";

export const BYTES: Readonly<Record<SectionType, number>> = { u8: 1, u16: 2, u32: 4, i32: 4 };

/** The typed array of a section type. */
export type View<T extends SectionType> = T extends "u8"
  ? Uint8Array
  : T extends "u16"
    ? Uint16Array
    : T extends "u32"
      ? Uint32Array
      : Int32Array;

/** One view per section of a table. */
export type Views<S extends Record<string, SectionType>> = { [K in keyof S]: View<S[K]> };

export type TypedColumn = Uint8Array | Uint16Array | Uint32Array | Int32Array;

/** Where a section lies: `offset` bytes past the first section, `length` elements. */
export interface SectionPlace {
  offset: number;
  length: number;
}

/** What every packed header holds; formats add their own members. */
export interface PackedHeader<S extends Record<string, SectionType>> {
  version: number;
  sections: Record<keyof S, SectionPlace>;
}

export interface PackedFormat<S extends Record<string, SectionType>> {
  /** Eight latin1 characters at the start of the file. */
  magic: string;
  version: number;
  /** Every section and its element type, in file order. */
  sections: S;
  /** Error messages of the reader, with the format's own wording. */
  errors: { notThisFormat: string; version: (found: number) => string };
}

/** A zeroed typed array of a section type. */
export function newColumn(type: SectionType, length: number): TypedColumn {
  switch (type) {
    case "u8":
      return new Uint8Array(length);
    case "u16":
      return new Uint16Array(length);
    case "u32":
      return new Uint32Array(length);
    case "i32":
      return new Int32Array(length);
  }
}

function viewOf(buffer: ArrayBufferLike, type: SectionType, byteOffset: number, length: number): TypedColumn {
  switch (type) {
    case "u8":
      return new Uint8Array(buffer, byteOffset, length);
    case "u16":
      return new Uint16Array(buffer, byteOffset, length);
    case "u32":
      return new Uint32Array(buffer, byteOffset, length);
    case "i32":
      return new Int32Array(buffer, byteOffset, length);
  }
}

function align8(n: number): number {
  return (n + 7) & ~7;
}

/** Start of the first section, after magic, header length and header. */
function dataStart(headerLength: number): number {
  return align8(8 + 4 + headerLength);
}

export interface WritePackedOptions<S extends Record<string, SectionType>, H> {
  /** The header to store, given where each section lies. */
  header: (sections: Record<keyof S, SectionPlace>) => H;
  /** Write into a SharedArrayBuffer (read in place by worker threads) rather than an ArrayBuffer. */
  shared?: boolean;
}

/** Lays the sections out in the format's order and writes the file: the bytes of the whole packed file. */
export function writePacked<S extends Record<string, SectionType>, H>(
  format: PackedFormat<S>,
  data: { readonly [K in keyof S]: ArrayLike<number> },
  options: WritePackedOptions<S, H>,
): Uint8Array {
  const { header, shared = false } = options;
  const names = Object.keys(format.sections) as Array<keyof S & string>;
  const sections = {} as Record<keyof S, SectionPlace>;
  let offset = 0;
  for (const name of names) {
    const { length } = data[name];
    sections[name] = { offset, length };
    offset = align8(offset + length * BYTES[format.sections[name]]);
  }
  const headerBytes = Buffer.from(JSON.stringify(header(sections)), "utf8");
  const start = dataStart(headerBytes.length);
  const buffer = shared ? new SharedArrayBuffer(start + offset) : new ArrayBuffer(start + offset);
  const out = new Uint8Array(buffer);
  out.set(Buffer.from(format.magic, "latin1"), 0);
  new DataView(buffer).setUint32(8, headerBytes.length, true);
  out.set(headerBytes, 12);
  for (const name of names) {
    const { offset: at, length } = sections[name];
    viewOf(buffer, format.sections[name], start + at, length).set(data[name]);
  }
  return out;
}

/** Checks the magic and the version and builds a view over every section; nothing is copied. The header is the
 *  format's own object, trusted once magic and version match. */
export function readPacked<S extends Record<string, SectionType>, H extends PackedHeader<S>>(
  buffer: SharedArrayBuffer | ArrayBuffer,
  format: PackedFormat<S>,
): { header: H; views: Views<S> } {
  const bytes = Buffer.from(buffer);
  if (bytes.length < 12 || bytes.toString("latin1", 0, 8) !== format.magic)
    throw new TypeError(format.errors.notThisFormat);
  const headerLength = bytes.readUInt32LE(8);
  const header = JSON.parse(bytes.toString("utf8", 12, 12 + headerLength)) as H;
  if (header.version !== format.version) throw new TypeError(format.errors.version(header.version));
  const start = dataStart(headerLength);
  const views = {} as Record<keyof S, TypedColumn>;
  for (const name of Object.keys(format.sections) as Array<keyof S & string>) {
    const { offset, length } = header.sections[name];
    views[name] = viewOf(buffer, format.sections[name], start + offset, length);
  }
  return { header, views: views as Views<S> };
}

/** Reads a packed file straight into shared memory: one copy per process, none per thread, and no intermediate
 *  Buffer (582 MB for the street index at France scale). */
export function readPackedFile(path: string): SharedArrayBuffer {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    const shared = new SharedArrayBuffer(size);
    const view = new Uint8Array(shared);
    let done = 0;
    while (done < size) {
      const n = readSync(fd, view, done, Math.min(size - done, 1 << 30), done);
      if (n === 0) throw new RangeError(`Cannot read address index: ${path} ended early`);
      done += n;
    }
    return shared;
  } finally {
    closeSync(fd);
  }
}
