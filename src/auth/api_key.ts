// The key format of docs/contract.md §1: vrai_live_<secret> or vrai_test_<secret>, the secret 22 base62 characters drawn
// from the CSPRNG (22 × log2(62) ≈ 131 bits). Only SHA-256 of the whole key and its first 12 characters are stored.
import { createHash, randomInt } from "node:crypto";

export type KeyMode = "live" | "test";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const SECRET_LENGTH = 22;
const KEY_PATTERN = /^vrai_(live|test)_[0-9A-Za-z]{22}$/;
export const KEY_PREFIX_LENGTH = 12;

export function generateApiKey(mode: KeyMode): string {
  let secret = "";
  for (let i = 0; i < SECRET_LENGTH; i++) secret += BASE62[randomInt(62)];
  return `vrai_${mode}_${secret}`;
}

/** The mode of a well-formed key, or undefined for anything else. */
export function parseApiKey(key: string): KeyMode | undefined {
  const match = KEY_PATTERN.exec(key);
  return match ? (match[1] as KeyMode) : undefined;
}

export function hashApiKey(key: string): Buffer {
  return createHash("sha256").update(key).digest();
}

export function keyPrefix(key: string): string {
  return key.slice(0, KEY_PREFIX_LENGTH);
}

/** The key of an `Authorization: Bearer <key>` header, or undefined. */
export function bearerToken(header: string | null): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return match?.[1];
}
