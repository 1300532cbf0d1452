// The CSV reader of bulk uploads, fed as a body arrives: whatever the cuts between chunks (inside a quoted field, a
// line break, a multi-byte character or the BOM), it reads what it reads from the whole file, names the same lines
// in its refusals, and stops at the first row past the limit.
import { test } from "node:test";
import assert from "node:assert/strict";
import { CsvReadError, readCsvRecords, readCsvStream } from "../../src/jobs/csv_reader.ts";

const isStorable = (text: string) => !text.includes("\u0000");
const encoder = new TextEncoder();

async function* pieces(bytes: Uint8Array, cuts: number[]): AsyncGenerator<Uint8Array> {
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    yield bytes.subarray(at, cut);
    at = cut;
  }
}

/** Every way of cutting `bytes` in two, and in pieces of 1, 2 and 7 bytes. */
function cutsOf(length: number): number[][] {
  const all: number[][] = [];
  for (let i = 0; i <= length; i++) all.push([i]);
  for (const step of [1, 2, 7]) all.push(Array.from({ length: Math.floor(length / step) }, (_, i) => (i + 1) * step));
  return all;
}

const FILE = encoder.encode(
  '\uFEFFid;adresse;note\r\n1;"10 rue de Rivoli\n75004 Paris";"dit ""chez nous"""\r\n\r\n2;Allée des Érables;ü\n3;x;"a;b"',
);

test("the records are those of the whole file, wherever the chunks are cut", async () => {
  const whole = readCsvRecords(FILE, { isStorable });
  assert.deepEqual(whole.columns, ["id", "adresse", "note"]);
  assert.deepEqual(whole.rows, [
    ["1", "10 rue de Rivoli\n75004 Paris", 'dit "chez nous"'],
    ["2", "Allée des Érables", "ü"],
    ["3", "x", "a;b"],
  ]);
  assert.deepEqual(whole.lines, [2, 5, 6]);
  assert.deepEqual(whole.format, { separator: ";", bom: true });
  for (const cuts of cutsOf(FILE.length)) {
    assert.deepEqual(await readCsvStream(pieces(FILE, cuts), { isStorable }), whole, `cut at ${cuts.join(",")}`);
  }
});

test("refusals name the same line however the file arrives", async () => {
  const cases: Array<[string | Uint8Array, number, RegExp]> = [
    ["email,name\na@b.fr,Jane\nc@d.fr\n", 3, /not as many fields/],
    ['email,name\na@b.fr,"Jane\nc@d.fr,Bob\nd@e.fr,Ann\n', 2, /never closed/],
    ["email\n", 1, /no rows/],
    ["", 1, /empty file/],
    [new Uint8Array([...encoder.encode("email\na@b.fr\n"), 0xff, 0x40, 0x62, 0x0a]), 3, /UTF-8/],
    ["email,other\nok@d.fr,x\u0000y\n", 2, /NUL/],
  ];
  for (const [body, line, message] of cases) {
    const bytes = typeof body === "string" ? encoder.encode(body) : body;
    for (const cuts of cutsOf(bytes.length)) {
      await assert.rejects(readCsvStream(pieces(bytes, cuts), { isStorable }), (error: unknown) => {
        assert.ok(error instanceof CsvReadError);
        assert.equal(error.line, line, `${JSON.stringify(String(body))} cut at ${cuts.join(",")}`);
        assert.match(error.message, message);
        return true;
      });
    }
  }
});

test("reading stops at the first row past the limit, the rest of the body unread", async () => {
  let pulled = 0;
  async function* endless(): AsyncGenerator<Uint8Array> {
    yield encoder.encode("email\n");
    for (let i = 0; ; i++) {
      pulled++;
      yield encoder.encode(`u${i}@d.fr\n`);
    }
  }
  await assert.rejects(
    readCsvStream(endless(), {
      isStorable,
      maxRows: 5,
      tooMany: (rows) => new RangeError(`more than 5: ${rows}`),
    }),
    /more than 5: 6/,
  );
  assert.equal(pulled, 6, "not a chunk more than the row too many");
});
