import assert from "node:assert/strict";
import { test } from "node:test";
import { parse } from "csv-parse/sync";
import { csvLines } from "../../src/jobs/csv_table.ts";

test("csvLines() quotes every field holding a line break, so each row reads back as one row", () => {
  const rows = [
    ["email", "note"],
    ["a@example.com", "two\nlines"],
    ["b@example.com", "carriage\rreturn"],
    ["c@example.com", "crlf\r\ninside"],
    ["d@example.com", 'a "quote", a comma'],
    ["e@example.com", "plain"],
  ];
  const text = csvLines(rows);
  // Spreadsheets take a bare LF or CR outside quotes as a row break.
  for (const field of ["two\nlines", "carriage\rreturn", "crlf\r\ninside"])
    assert.ok(text.includes(`"${field}"`), field);
  assert.deepEqual(parse(text, { relax_column_count: false }), rows);
});
