// How a completion callback proves where it comes from, as Stripe signs its webhooks: a `Vrai-Signature` header
// `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` under the account's secret. The timestamp is signed with the
// body, so a receiver that refuses old timestamps (5 minutes is Stripe's default) cannot be sent a recorded call
// again later. Right after a rotation two v1 values are sent, one per secret still valid, and a receiver accepts the
// call when any one matches its secret.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export const SIGNATURE_HEADER = "vrai-signature";
export const SECRET_PREFIX = "vrai_whsec_";

/** A new signing secret: 32 random bytes, with a prefix that tells it from an API key in a configuration file. */
export function generateCallbackSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString("base64url")}`;
}

function hmacHex(secret: string, payload: string): string {
  return createHmac("sha256", secret).update(payload, "utf8").digest("hex");
}

/**
 * The header value for `body` sent at `timestamp` (unix seconds), one v1 per secret.
 *
 * @example
 * signatureHeader('{"job_id":"…"}', ["vrai_whsec_…"], 1700000000); // "t=1700000000,v1=5f1c…"
 */
export function signatureHeader(body: string, secrets: readonly string[], timestamp: number): string {
  if (secrets.length === 0) throw new RangeError("Cannot sign a callback: no secret");
  if (!Number.isInteger(timestamp)) throw new RangeError(`Cannot sign a callback: bad timestamp ${timestamp}`);
  const payload = `${timestamp}.${body}`;
  return [`t=${timestamp}`, ...secrets.map((secret) => `v1=${hmacHex(secret, payload)}`)].join(",");
}

export interface VerifyOptions {
  /** Oldest accepted timestamp, in seconds before `now` (default 300). */
  toleranceSeconds?: number;
  /** Unix seconds (default: the clock). */
  now?: number;
}

/**
 * What a receiver does with a callback: true when `header` carries a v1 signature of `body` under `secret` and its
 * timestamp is within the tolerance. Compares in constant time. The body must be the bytes as received, not a
 * re-serialized copy.
 */
export function verifySignature(header: string, body: string, secret: string, options: VerifyOptions = {}): boolean {
  const { toleranceSeconds = 300, now = Math.floor(Date.now() / 1000) } = options;
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(",")) {
    const [name, value = ""] = part.trim().split("=", 2) as [string, string?];
    if (name === "t" && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    if (name === "v1" && /^[0-9a-f]{64}$/.test(value)) signatures.push(value);
  }
  if (timestamp === undefined || Math.abs(now - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(hmacHex(secret, `${timestamp}.${body}`), "hex");
  return signatures.some((signature) => timingSafeEqual(Buffer.from(signature, "hex"), expected));
}
