// Which inputs a key may send. A test key answers the reserved test inputs only (the spec's test mode), and a live key
// is refused them: they name no real mailbox or street, and a live answer ("domain does not resolve", "postcode not
// covered") would pass test data off as a verdict, and charge for it. An input of the other kind, anywhere in the
// request, is a 400 request-failed that names the first such row and why, with up to 50 of them in `errors`; nothing
// is answered and nothing is charged (docs/decisions.md, "Test inputs and live data").
import type { KeyMode } from "../auth/api_key.ts";
import type { AddressInput } from "../address/types.ts";
import { RESERVED_ADDRESS_LINES, testAddressAnswer } from "../testmode/address.ts";
import { RESERVED_EMAILS, testEmailAnswer } from "../testmode/email.ts";
import { HttpError } from "./errors.ts";

/** A kind of input: how to tell a reserved one, and how to show one in a message. */
export interface InputKind<T> {
  isReserved(input: T): boolean;
  show(input: T): string;
  /** What a test key answers, as the message names it. */
  reserved: string;
}

export const EMAIL_INPUTS: InputKind<string> = {
  isReserved: (email) => testEmailAnswer(email) !== undefined,
  show: (email) => email.trim(),
  reserved: `only the reserved addresses are answered (${RESERVED_EMAILS.join(", ")})`,
};

export const ADDRESS_INPUTS: InputKind<AddressInput> = {
  // Every reserved address has postcode 00000: a live list of real addresses is told apart without a parse per row.
  isReserved: (input) =>
    (input.postcode ?? input.line ?? "").includes("00000") && testAddressAnswer(input) !== undefined,
  show: (input) =>
    input.line?.trim() ||
    [input.house_number, input.street, input.postcode, input.city].filter((part) => part?.trim()).join(" "),
  reserved: `only the reserved addresses at 00000 Testville are answered (${RESERVED_ADDRESS_LINES.join("; ")})`,
};

/** Where an input stands in the request: a member (`email`, `emails[3]`), a line of a CSV body, or the body itself. */
export interface Where {
  member: string;
  line?: number;
}

/** The member path of an input that is the whole body (POST /v1/address), as invalid-request names it. */
export const BODY = "(body)";

/** Where row `index` of a list stands: `emails[3]` in JSON, `line 5` in a CSV body (whose `lines` say where rows start). */
export function listPlaces(member: string, csvLines?: readonly number[]): (index: number) => Where {
  if (csvLines === undefined) return (index) => ({ member: `${member}[${index}]` });
  return (index) => ({ member: `line ${csvLines[index]}`, line: csvLines[index] });
}

/** Rows named in `errors` at the most, as invalid-request names members. */
const MAX_NAMED = 50;
const SHOWN_LENGTH = 80;

function shown(text: string): string {
  return JSON.stringify(text.length > SHOWN_LENGTH ? `${text.slice(0, SHOWN_LENGTH)}…` : text);
}

/**
 * Throws 400 request-failed when an input does not fit the key: on a test key one that is not reserved, on a live key
 * one that is. `what` starts the detail ("verify", "accept batch"); `place` says where input `index` stands.
 */
export function assertInputsFitKey<T>(
  mode: KeyMode,
  kind: InputKind<T>,
  inputs: readonly T[],
  place: (index: number) => Where,
  what: string,
): void {
  const fit = new InputsFitKey(mode, kind);
  for (let i = 0; i < inputs.length; i++) fit.add(inputs[i]!, () => place(i));
  fit.assert(what);
}

/**
 * The same check over inputs seen one at a time (a bulk upload read as it arrives): add() each, then assert(), which
 * throws what assertInputsFitKey throws for the same inputs. Holds the first 50 misfits at the most.
 */
export class InputsFitKey<T> {
  readonly #wantReserved: boolean;
  readonly #kind: InputKind<T>;
  #first: { where: Where; input: T } | undefined;
  #count = 0;
  readonly #errors: Array<{ member: string; message: string }> = [];

  constructor(mode: KeyMode, kind: InputKind<T>) {
    this.#wantReserved = mode === "test";
    this.#kind = kind;
  }

  /** Whether the input fits (a reserved input on a test key); `place` is asked only for one that does not. */
  add(input: T, place: () => Where): boolean {
    if (this.#kind.isReserved(input) === this.#wantReserved) return true;
    this.#count++;
    if (this.#errors.length < MAX_NAMED) {
      const where = place();
      this.#first ??= { where, input };
      this.#errors.push({ member: where.member, message: `${shown(this.#kind.show(input))} ${this.#why}` });
    }
    return false;
  }

  get #why(): string {
    return this.#wantReserved ? "is not a reserved test input" : "is a reserved test input";
  }

  assert(what: string): void {
    const first = this.#first;
    if (first === undefined) return;
    const kind = this.#kind;
    const count = this.#count;
    const why = this.#why;
    const listed = count > MAX_NAMED ? `the first ${MAX_NAMED} listed in errors` : "listed in errors";
    const others = count > 1 ? ` (and ${count - 1} more row${count > 2 ? "s" : ""}, ${listed})` : "";
    const named = first.where.member === BODY ? "" : `${first.where.member} `;
    const detail = this.#wantReserved
      ? `Cannot ${what} with a test key: ${named}${shown(kind.show(first.input))} ${why}${others}; ${kind.reserved}, ` +
        "real data needs a live key (vrai_live_…)"
      : `Cannot ${what} with a live key: ${named}${shown(kind.show(first.input))} ${why}${others}, answered only with ` +
        "a test key (vrai_test_…: npm run keys -- create --account NAME --mode test); a live key verifies real data";
    throw new HttpError("request-failed", detail, {
      extensions: { ...(first.where.line !== undefined ? { line: first.where.line } : {}), errors: [...this.#errors] },
    });
  }
}
