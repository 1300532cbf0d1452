// BAN files come gzipped (`adresses-XX.csv.gz`, as published) or plain (a `.csv` someone unpacked): the first two
// bytes tell which (gzip's magic number 1f 8b, RFC 1952 §2.3.1), never the file name or the URL.
import { pipeline, Readable } from "node:stream";
import { createGunzip } from "node:zlib";

/** True when `head` starts with gzip's magic bytes. */
export function isGzip(head: Uint8Array): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}

/**
 * The bytes of `raw` as text: gunzipped when they start with gzip's magic bytes, as they are otherwise. Reads the
 * first chunk (or two) to decide; an error of `raw` reaches the stream returned.
 */
export async function decompressed(raw: Readable): Promise<Readable> {
  const chunks: AsyncIterator<Buffer> = raw[Symbol.asyncIterator]();
  let head = Buffer.alloc(0);
  let ended = false;
  while (head.length < 2 && !ended) {
    const next = await chunks.next();
    if (next.done) ended = true;
    else head = Buffer.concat([head, next.value]);
  }
  async function* bytes(): AsyncGenerator<Buffer> {
    if (head.length > 0) yield head;
    if (ended) return;
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value;
  }
  const plain = Readable.from(bytes(), { objectMode: false });
  if (!isGzip(head)) return plain;
  const gunzip = createGunzip();
  // pipeline() destroys every stream with the first error, so a failed download fails the gunzip the reader holds.
  pipeline(plain, gunzip, () => {});
  return gunzip;
}
