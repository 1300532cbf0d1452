import type { Services } from "../../services.ts";
import { RESERVED_EMAILS, testEmailAnswer } from "../../testmode/email.ts";
import { SINGLE_BODY_LIMIT } from "../body.ts";
import { HttpError } from "../errors.ts";
import { applyPreferredWait } from "../prefer.ts";
import { scopeOf } from "../request_scope.ts";
import { EmailRequestSchema } from "../schemas.ts";
import { EMAIL_INPUTS, assertInputsFitKey } from "../test_inputs.ts";
import { verificationHandler } from "../verification_call.ts";

export function testEmailOrRefuse(email: string) {
  const answer = testEmailAnswer(email);
  if (!answer) {
    throw new HttpError(
      "request-failed",
      `Cannot verify with a test key: only the reserved addresses are answered (${RESERVED_EMAILS.join(", ")})`,
    );
  }
  return { ...answer, duration_ms: 0 };
}

/** A test-key email answer, counted in the metrics as the engine counts live ones. */
export function countedTestAnswer<T extends { verdict: string; reasons: readonly string[] }>(
  services: Services,
  answer: T,
): T {
  services.metrics?.emailAnswer(answer, "test");
  return answer;
}

export function verifyEmailRoute(services: Services) {
  return verificationHandler(services, {
    endpoint: "email",
    meters: ["email"],
    schema: EmailRequestSchema,
    body: { limit: SINGLE_BODY_LIMIT, oversized: "invalid-request" },
    inputsFitKey: (body, mode) =>
      assertInputsFitKey(mode, EMAIL_INPUTS, [body.email], () => ({ member: "email" }), "verify"),
    testAnswer: (body) => ({ data: countedTestAnswer(services, testEmailOrRefuse(body.email)) }),
    charges: () => [{ endpoint: "email", amount: 1 }],
    async run(body, _caller, request) {
      // Prefer: wait=N lowers this call's deadline (RFC 7240), answered with Preference-Applied.
      const wait = applyPreferredWait(request.headers.get("prefer"), services.config.emailDeadlineMs);
      // The request's logger: the probe lines of this call carry its X-Request-Id.
      const log = scopeOf(request)?.log;
      const data = await services.email.verify(body.email, {
        signal: request.signal,
        deadlineMs: wait?.deadlineMs,
        log,
      });
      return { data, headers: wait === null ? undefined : { "preference-applied": wait.header } };
    },
  });
}
