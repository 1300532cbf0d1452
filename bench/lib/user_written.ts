// Addresses as users write them in their files, for the bulk address benches.

/** A messy spelling: upper case, accents dropped, commas doubled, spaces repeated. */
export function messy(line: string): string {
  return ` ${line.normalize("NFD").replace(/\p{M}/gu, "").toUpperCase().replaceAll(",", " ,,").replaceAll(" ", "  ")} `;
}

/** A CSV field, quoted. */
export function quoted(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}
