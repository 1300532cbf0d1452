// The `callback_url` of a bulk submission: the JSON body's member, or for a CSV upload (which has no room for it) the
// `callback_url` query parameter, the same name in both places. Judged against the operator's policy before anything
// is charged: a URL that can never be delivered to is a 400 invalid-request naming the member, not a job whose
// callback fails a day later.
import { createHash } from "node:crypto";
import { callbackUrlProblem, type CallbackPolicy } from "../callbacks/callback_target.ts";
import { HttpError } from "./errors.ts";

export const CALLBACK_URL_PARAMETER = "callback_url";

function queryParameter(request: Request): string | undefined {
  return new URL(request.url, "http://localhost").searchParams.get(CALLBACK_URL_PARAMETER) ?? undefined;
}

/** The callback URL as the submission sent it, not judged yet (an Idempotency-Key replay is looked up first). */
export function callbackUrlSent(request: Request, member: string | undefined): string | undefined {
  return member ?? queryParameter(request);
}

/** The submission's callback URL, or undefined when it asks for none; throws 400 invalid-request when it is refused. */
export function callbackUrlOf(
  request: Request,
  member: string | undefined,
  policy: CallbackPolicy,
): string | undefined {
  const query = queryParameter(request);
  const refuse = (message: string): never => {
    throw new HttpError("invalid-request", `Cannot accept batch: ${message}`, {
      extensions: { errors: [{ member: CALLBACK_URL_PARAMETER, message }] },
    });
  };
  if (member !== undefined && query !== undefined && member !== query) {
    refuse("callback_url is given twice, in the body and in the query, with two values");
  }
  const url = member ?? query;
  if (url === undefined) return undefined;
  const problem = callbackUrlProblem(url, policy);
  if (problem !== undefined) refuse(`callback_url ${problem}`);
  return url;
}

/**
 * A submission's Idempotency-Key fingerprint with its callback URL: the same list sent again with another URL is
 * another request. Unchanged without one, so that fingerprints stored before callbacks existed still match.
 */
export function fingerprintWithCallback(fingerprint: string, callbackUrl: string | undefined): string {
  if (callbackUrl === undefined) return fingerprint;
  return createHash("sha256").update(`${fingerprint}\n${callbackUrl}`).digest("hex");
}
