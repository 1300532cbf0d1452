import type { AddressInput } from "../../address/types.ts";
import type { Services } from "../../services.ts";
import { RESERVED_ADDRESS_LINES, testAddressAnswer } from "../../testmode/address.ts";
import { SINGLE_BODY_LIMIT } from "../body.ts";
import { HttpError } from "../errors.ts";
import { AddressInputSchema } from "../schemas.ts";
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

export function verifyAddressRoute(services: Services) {
  return verificationHandler(services, {
    endpoint: "address",
    meters: ["address"],
    schema: AddressInputSchema,
    body: { limit: SINGLE_BODY_LIMIT, oversized: "invalid-request" },
    testAnswer: (body) => ({ data: testAddressOrRefuse(body) }),
    charges: () => [{ endpoint: "address", amount: 1 }],
    run: async (body, _caller, signal) => ({ data: await services.address.verify(body, { signal }) }),
  });
}
