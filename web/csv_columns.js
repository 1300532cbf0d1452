// Which column of a CSV the server will read, worked out in the page before sending so that the person sees it: the
// same rules as the server's (src/jobs/csv_table.ts for emails, src/jobs/address_csv.ts for addresses). The server
// stays the judge: its refusal, if any, is shown as it words it.

export const EMAIL_NAMES = ["email", "e-mail", "mail", "courriel"];
export const ADDRESS_NAMES = {
  line: ["adresse", "address", "line"],
  house_number: ["numero", "house_number"],
  street: ["voie", "rue", "street"],
  postcode: ["code_postal", "cp", "postcode"],
  city: ["ville", "commune", "city"],
  country: ["pays", "country"],
};
const LOOKS_LIKE_EMAIL = /^[^\s@]+@[^\s@]+$/;

/** Splits CSV text into rows of fields (quotes, doubled quotes, line breaks inside quotes), up to `maxRows` rows. */
export function readRows(text, maxRows = 50) {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const firstLine = body.split(/\r?\n/, 1)[0] ?? "";
  const separator = (firstLine.match(/;/g) ?? []).length > (firstLine.match(/,/g) ?? []).length ? ";" : ",";
  const rows = [];
  let row = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < body.length && rows.length < maxRows; i++) {
    const c = body[i];
    if (quoted) {
      if (c === '"' && body[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === separator) {
      row.push(field);
      field = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && body[i + 1] === "\n") i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else field += c;
  }
  if ((field !== "" || row.length > 0) && rows.length < maxRows) rows.push([...row, field]);
  return { separator, rows: rows.filter((r) => r.some((cell) => cell.trim() !== "")) };
}

function headerKey(name) {
  return name
    .trim()
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[\s-]+/g, "_");
}

/** The index of the column read for an email list, or -1. */
function emailColumn(columns, rows) {
  for (const name of EMAIL_NAMES) {
    const at = columns.findIndex((c) => c.trim().toLowerCase() === name);
    if (at >= 0) return at;
  }
  const holding = columns
    .map((_, at) => at)
    .filter((at) => rows.length > 0 && rows.every((row) => LOOKS_LIKE_EMAIL.test((row[at] ?? "").trim())));
  return holding.length === 1 ? holding[0] : -1;
}

/** The indexes of the columns read for an address list (one `line`, or field columns), possibly none. */
function addressColumnsOf(columns) {
  const keys = columns.map(headerKey);
  const read = [];
  for (const names of Object.values(ADDRESS_NAMES)) {
    const at = keys.findIndex((key) => names.includes(key));
    if (at >= 0) read.push(at);
  }
  return read;
}

/** The file's columns, the rows read for the preview and which columns the server will read for this kind of list. */
export function columnsOf(text, kind) {
  const { rows } = readRows(text);
  const [columns = [], ...data] = rows;
  const read = kind === "email" ? [emailColumn(columns, data)].filter((at) => at >= 0) : addressColumnsOf(columns);
  return { columns, sample: data, read };
}
