// The reserved test addresses: postcode 00000, city Testville (no French commune has that postcode), a house number
// or none, and a street word, with or without a street type, as one line or as fields (docs/contract.md §4).
import type {
  AddressInput,
  AddressReason,
  AddressVerdict,
  AddressVerification,
  NormalizedAddress,
} from "../address/types.ts";
import { withPostalExtras } from "../address/postal_lines.ts";

const TEST_POSTCODE = "00000";
const TEST_CITY = "Testville";

interface Reserved {
  verdict: AddressVerdict;
  reasons: AddressReason[];
  /** The street word as the answer writes it; undefined when the answer has no normalized form. */
  normalizedWord?: string;
}

const WORDS: Record<string, Reserved> = {
  deliverable: { verdict: "deliverable", reasons: [], normalizedWord: "Deliverable" },
  corected: { verdict: "corrected", reasons: ["street_corrected"], normalizedWord: "Corrected" },
  nonexistent: { verdict: "nonexistent", reasons: ["street_not_found"] },
  unknown: { verdict: "unknown", reasons: ["postcode_not_covered"] },
};

export const RESERVED_ADDRESS_LINES = [
  "1 Rue Deliverable, 00000 Testville",
  "1 Rue Corected, 00000 Testville",
  "1 Rue Nonexistent, 00000 Testville",
  "1 Rue Unknown, 00000 Testville",
  "Rue Deliverable, 00000 Testville",
];

const LINE = /^\s*(?:(\d+)\s*,?\s+)?(?:([\p{L}'-]+)\s+)?([\p{L}]+)\s*,?\s*(\d{5})\s+([\p{L}-]+)\s*$/u;
const STREET = /^\s*(?:([\p{L}'-]+)\s+)?([\p{L}]+)\s*$/u;

function titleCase(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1).toLowerCase();
}

interface Parts {
  number: string | undefined;
  type: string | undefined;
  word: string;
  postcode: string;
  city: string;
}

function parts(input: AddressInput): Parts | undefined {
  const fromLine = input.line !== undefined ? LINE.exec(input.line) : null;
  if (input.line !== undefined && !fromLine) return undefined;
  const street = input.street !== undefined ? STREET.exec(input.street) : null;
  if (input.street !== undefined && !street) return undefined;
  const number = input.house_number?.trim() || fromLine?.[1];
  const word = street?.[2] ?? fromLine?.[3];
  const postcode = input.postcode?.trim() ?? fromLine?.[4];
  const city = input.city?.trim() ?? fromLine?.[5];
  if (!word || !postcode || !city) return undefined;
  return { number, type: street ? street[1] : fromLine?.[2], word, postcode, city };
}

/** The answer for a reserved test address, or undefined for any other input. */
export function testAddressAnswer(input: AddressInput): Omit<AddressVerification, "duration_ms"> | undefined {
  if (input.country !== undefined && !/^(fr|fra|france)$/i.test(input.country.trim())) return undefined;
  const p = parts(input);
  if (!p || p.postcode !== TEST_POSTCODE || p.city.toLowerCase() !== TEST_CITY.toLowerCase()) return undefined;
  if (p.number !== undefined && p.number !== "1") return undefined;
  const reserved = Object.hasOwn(WORDS, p.word.toLowerCase()) ? WORDS[p.word.toLowerCase()] : undefined;
  if (!reserved) return undefined;
  if (p.number === undefined && reserved !== WORDS.deliverable) return undefined;
  const street = p.type ? `${titleCase(p.type)} ${reserved.normalizedWord}` : reserved.normalizedWord;
  const normalized = (houseNumber: string | null): NormalizedAddress =>
    withPostalExtras(
      {
        house_number: houseNumber,
        house_number_suffix: null,
        street: street!,
        postcode: TEST_POSTCODE,
        city: TEST_CITY,
        country: "FR",
        line: `${houseNumber ? `${houseNumber} ` : ""}${street}, ${TEST_POSTCODE} ${TEST_CITY}`,
        latitude: null,
        longitude: null,
      },
      { insee: null, banId: null },
    );
  if (p.number === undefined) {
    return { verdict: "incomplete", reasons: ["missing_house_number"], normalized: normalized(null) };
  }
  return {
    verdict: reserved.verdict,
    reasons: [...reserved.reasons],
    normalized: reserved.normalizedWord ? normalized(p.number) : null,
  };
}
