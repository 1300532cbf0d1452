import { AddressIndexUnavailableError, IMPORT_RETRY_AFTER_SECONDS } from "../../address/index_status.ts";
import type { AddressInput, AddressVerification } from "../../address/types.ts";
import type { AddressVerifier, Services } from "../../services.ts";
import { RESERVED_ADDRESS_LINES, testAddressAnswer } from "../../testmode/address.ts";
import { SINGLE_BODY_LIMIT } from "../body.ts";
import { HttpError } from "../errors.ts";
import { AddressInputSchema } from "../schemas.ts";
import { ADDRESS_INPUTS, assertInputsFitKey, BODY } from "../test_inputs.ts";
import { verificationHandler } from "../verification_call.ts";

export function testAddressOrRefuse(input: AddressInput) {
  const answer = testAddressAnswer(input);
  if (!answer) {
    throw new HttpError(
      "request-failed",
      `Cannot verify with a test key: only the reserved addresses at 00000 Testville are answered (${RESERVED_ADDRESS_LINES.join("; ")})`,
    );
  }
  return { ...answer, duration_ms: 0 };
}

/** The 503 of a call while the street index is first imported: nothing can answer it yet. */
function unavailable(error: AddressIndexUnavailableError): HttpError {
  return new HttpError("service-unavailable", `${error.message}; retry later`, {
    headers: { "retry-after": String(error.retryAfterSeconds) },
    cause: error,
  });
}

/** Refuses with that 503 at once, before any other work of the call starts (the email half of a signup). */
export function assertAddressAnswering(address: AddressVerifier): void {
  const index = address.index;
  if (typeof index === "object" && !index.answering) {
    throw unavailable(new AddressIndexUnavailableError(index.importing, IMPORT_RETRY_AFTER_SECONDS));
  }
}

/**
 * services.address.verify(), refused with that 503 during a first import. `signal` drops the call if it aborts while
 * it waits for a thread: the signup route passes its request's, for the email probe beside it needs one anyway.
 */
export async function verifyAddress(
  services: Services,
  input: AddressInput,
  signal?: AbortSignal,
): Promise<AddressVerification> {
  try {
    return await services.address.verify(input, { signal });
  } catch (error) {
    if (error instanceof AddressIndexUnavailableError) throw unavailable(error);
    throw error;
  }
}

export function verifyAddressRoute(services: Services) {
  return verificationHandler(services, {
    endpoint: "address",
    meters: ["address"],
    schema: AddressInputSchema,
    body: { limit: SINGLE_BODY_LIMIT, oversized: "invalid-request" },
    inputsFitKey: (body, mode) => assertInputsFitKey(mode, ADDRESS_INPUTS, [body], () => ({ member: BODY }), "verify"),
    testAnswer: (body) => {
      const answer = testAddressOrRefuse(body);
      services.metrics?.addressMatch(answer.verdict, "test", 0);
      return { data: answer };
    },
    charges: () => [{ endpoint: "address", amount: 1 }],
    // No signal: a match takes microseconds and a batch a few milliseconds, so a client gone meanwhile costs one
    // match, less than watching for it would cost every call.
    run: async (body) => ({ data: await verifyAddress(services, body) }),
  });
}
