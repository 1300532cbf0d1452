import type { QuotaCharge } from "../../limits/quota.ts";
import type { Services } from "../../services.ts";
import { combineSignup } from "../../signup/combine.ts";
import { SINGLE_BODY_LIMIT } from "../body.ts";
import { HttpError } from "../errors.ts";
import { applyPreferredWait } from "../prefer.ts";
import { scopeOf } from "../request_scope.ts";
import { SignupRequestSchema } from "../schemas.ts";
import { ADDRESS_INPUTS, assertInputsFitKey, EMAIL_INPUTS } from "../test_inputs.ts";
import { verificationHandler } from "../verification_call.ts";
import { assertAddressAnswering, testAddressOrRefuse, verifyAddress } from "./verify_address.ts";
import { countedTestAnswer, testEmailOrRefuse } from "./verify_email.ts";
import type * as v from "valibot";

type SignupBody = v.InferOutput<typeof SignupRequestSchema>;

/** FR, FRA and France are one country; anything else is compared as written, case aside. */
function countryKey(country: string): string {
  const c = country.trim().toUpperCase();
  return c === "FRA" || c === "FRANCE" ? "FR" : c;
}

/** The address with the top-level country applied when it has none (docs/contract.md §4). */
function addressOf(body: SignupBody) {
  if (!body.address) return undefined;
  if (body.country !== undefined && body.address.country === undefined)
    return { ...body.address, country: body.country };
  return body.address;
}

export function verifySignupRoute(services: Services) {
  return verificationHandler(services, {
    endpoint: "signup",
    meters: ["email", "address"],
    schema: SignupRequestSchema,
    body: { limit: SINGLE_BODY_LIMIT, oversized: "invalid-request" },
    check(body) {
      if (body.email === undefined && body.address === undefined) {
        throw new HttpError("invalid-request", "Cannot verify signup: give email, address, or both");
      }
      const inner = body.address?.country;
      if (body.country !== undefined && inner !== undefined && countryKey(body.country) !== countryKey(inner)) {
        throw new HttpError(
          "invalid-request",
          `Cannot verify signup: country ${body.country} differs from address.country ${inner}`,
        );
      }
    },
    inputsFitKey(body, mode) {
      if (body.email !== undefined) {
        assertInputsFitKey(mode, EMAIL_INPUTS, [body.email], () => ({ member: "email" }), "verify");
      }
      const address = addressOf(body);
      if (address) assertInputsFitKey(mode, ADDRESS_INPUTS, [address], () => ({ member: "address" }), "verify");
    },
    testAnswer(body) {
      const address = addressOf(body);
      const started = performance.now();
      const parts = {
        email: body.email !== undefined ? testEmailOrRefuse(body.email) : undefined,
        address: address ? testAddressOrRefuse(address) : undefined,
      };
      if (parts.email) countedTestAnswer(services, parts.email);
      if (parts.address) services.metrics?.addressMatch(parts.address.verdict, "test", 0);
      const combined = combineSignup(parts);
      return { data: { ...combined, duration_ms: Math.round(performance.now() - started) } };
    },
    charges(body) {
      const charges: QuotaCharge[] = [];
      if (body.email !== undefined) charges.push({ endpoint: "email", amount: 1 });
      if (body.address !== undefined) charges.push({ endpoint: "address", amount: 1 });
      return charges;
    },
    async run(body, _caller, request) {
      const started = performance.now();
      const address = addressOf(body);
      // During a first import of the street index the whole call is refused (503), before its email probe starts.
      if (address) assertAddressAnswering(services.address);
      // Prefer: wait=N lowers the email half's deadline (RFC 7240); the address half answers from memory.
      const wait =
        body.email === undefined
          ? null
          : applyPreferredWait(request.headers.get("prefer"), services.config.emailDeadlineMs);
      const [email, addr] = await Promise.all([
        body.email !== undefined
          ? services.email.verify(body.email, {
              signal: request.signal,
              deadlineMs: wait?.deadlineMs,
              log: scopeOf(request)?.log,
            })
          : undefined,
        address ? verifyAddress(services, address, request.signal) : undefined,
      ]);
      const combined = combineSignup({ email, address: addr });
      return {
        data: { ...combined, duration_ms: Math.round(performance.now() - started) },
        headers: wait === null ? undefined : { "preference-applied": wait.header },
      };
    },
  });
}
