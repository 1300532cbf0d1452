// Département of an INSEE commune code: its first two characters ("75", "2A" for Corsica), three for the overseas
// départements ("971" … "976"), whose codes are 97 followed by one digit and then the commune's two.

const INSEE = /^(?:\d{2}|2[AB])\d{3}$/i;

/** "75056" → "75", "2A004" → "2A", "97411" → "974". The code is taken as given; see isInseeCode(). */
export function departementOfInsee(insee: string): string {
  return insee.startsWith("97") ? insee.slice(0, 3) : insee.slice(0, 2);
}

/** True for a five-character INSEE commune code (digits, or 2A/2B then three digits). */
export function isInseeCode(code: string): boolean {
  return INSEE.test(code);
}
