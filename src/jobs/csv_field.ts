// One CSV field as csvLines() (csv-stringify, comma separated, CRLF line ends) writes it, without csv-stringify: the
// CSV download of a bulk job writes millions of fields, and csv-stringify's per-field work (options merged, casts,
// separator searches) cost more than reading the rows from the database. Same rule, so the same bytes: a field holding
// the separator, a quote, a CR or an LF is quoted, its quotes doubled; every other field is written as it is.
// test/jobs/csv_field.test.ts compares the two over fields of every kind.

const NEEDS_QUOTES = /[",\r\n]/;

/** A field as csvLines() writes it with the comma separator; null and undefined are empty, as there. */
export function csvField(value: string | null | undefined): string {
  if (value === null || value === undefined) return "";
  return NEEDS_QUOTES.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}
