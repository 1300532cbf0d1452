import assert from "node:assert/strict";
import { test } from "node:test";
import { csvField } from "../../src/jobs/csv_field.ts";
import { csvLines } from "../../src/jobs/csv_table.ts";

test("csvField() writes every field as csvLines() does", () => {
  const fields = [
    "",
    "plain",
    " spaced ",
    "a,comma",
    'a "quote"',
    '"',
    '""',
    "two\nlines",
    "carriage\rreturn",
    "crlf\r\ninside",
    "ends with CR\r",
    "semi;colon",
    "tab\there",
    "=formula",
    "-1",
    "Avenue des Champs-Élysées, 75008 Paris",
    'emoji 🏠, "quoted"',
    "\u0001control",
    "'single'",
  ];
  for (const field of fields)
    assert.equal(csvField(field), csvLines([[field, "x"]]).slice(0, -"\r\n".length - 2), field);
  // A row of them, joined by commas, is the row csvLines() writes.
  assert.equal(`${fields.map(csvField).join(",")}\r\n`, csvLines([fields]));
  assert.equal(csvField(null), "");
  assert.equal(csvField(undefined), "");
});
