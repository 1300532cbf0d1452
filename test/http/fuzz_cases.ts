// A seeded generator of hostile HTTP requests (methods, targets, Host and other headers, bodies), and the check
// every answer must pass: a problem document or a valid success, never a 500. Used by test/http/fuzz.test.ts and
// bench/fuzz.ts, so that the bench's cases are the suite's.
import { seededRandom } from "../helpers/seeded_random.ts";
import { rawRequest, type RawAnswer } from "./raw_http.ts";

export interface FuzzKeys {
  /** Keys that authenticate (test keys, live keys on a plan without a tight rate). */
  valid: string[];
  /** Revoked or unknown keys. */
  invalid: string[];
}

export interface FuzzCase {
  method: string;
  path: string;
  bytes: Buffer;
}

const PATHS = [
  "/v1/email",
  "/v1/address",
  "/v1/signup",
  "/v1/email/bulk",
  "/v1/jobs/3f1c7c2e-8a5e-4f7b-9d0b-2c1a4e5f6a7b",
  "/v1/jobs/not-a-uuid",
  "/v1/openapi.json",
  "/errors/invalid-request",
  "/errors/nothing",
  "/healthz",
  "/readyz",
  "/",
  "/v2/email",
];
const PATH_JUNK = [
  "%",
  "%E0%A4%A",
  "%ff",
  "%C0%AF",
  "%00",
  "/..",
  "//",
  "?x=%",
  "?a=1&b",
  "#frag",
  "/%2e%2e",
  ";x",
  "é",
];
const METHODS = ["POST", "POST", "POST", "POST", "GET", "GET", "GET", "HEAD", "PUT", "DELETE", "OPTIONS", "PATCH"];
const WEIRD_METHODS = ["BREW", "get", "G ET", "POST\t", ""];
const STRINGS = [
  "deliverable@vrai.test",
  "undeliverable@vrai.test",
  "catchall@vrai.test",
  "greylisted@vrai.test",
  "disposable@vrai.test",
  "someone@example.com",
  "not-an-email",
  "",
  " ",
  "a\u0000b@vrai.test",
  "\ud800@vrai.test",
  "x\udfff",
  "😀@vrai.test",
  "1 Rue Deliverable, 00000 Testville",
  "1 Corected 00000 Testville",
  "12 Rue de Rivoli, 75001 Paris",
  "FR",
  "France",
  "DE",
  "00000",
  "Testville",
  "<script>alert(1)</script>",
  "'; drop table keys; --",
  "%s%n%x",
  "\\",
  '"',
  "ａｂｃ@ｅｘａｍｐｌｅ.com",
];
const HOSTILE_HOSTS = ["x/v1/email/bulk?", "a b", "x#y", "", "[::1]", "a@b", "localhost:99999", "é.example"];
const CONTENT_TYPES = [
  "application/json",
  "application/json",
  "application/json",
  "application/json; charset=utf-8",
  "text/plain",
  "application/x-www-form-urlencoded",
  "APPLICATION/JSON",
  "",
];

export function generateCase(random: () => number, keys: FuzzKeys, host: string): FuzzCase {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
  const chance = (p: number) => random() < p;
  const value = (): unknown => {
    const r = random();
    if (r < 0.7) return pick(STRINGS);
    if (r < 0.75) return "x".repeat(1 + Math.floor(random() * 1200));
    if (r < 0.8) return Math.floor(random() * 1e6) - 5e5;
    if (r < 0.85) return null;
    if (r < 0.9) return [pick(STRINGS)];
    if (r < 0.95) return { nested: pick(STRINGS) };
    return chance(0.5);
  };
  const method = chance(0.03) ? pick(WEIRD_METHODS) : pick(METHODS);
  let path = pick(PATHS);
  if (chance(0.25)) path += pick(PATH_JUNK);
  if (chance(0.05)) path = `/${"a/".repeat(Math.floor(random() * 3000))}`;
  if (chance(0.02)) path = `http://evil.example${path}`;
  let body: Buffer | undefined;
  if (method !== "GET" && method !== "HEAD" && chance(0.95)) {
    const r = random();
    let json: unknown;
    if (r < 0.55) {
      const shapes: Array<() => unknown> = [
        () => ({ email: value() }),
        () => ({ line: value(), postcode: chance(0.5) ? value() : undefined, city: chance(0.5) ? value() : undefined }),
        () => ({ street: value(), house_number: value(), postcode: value(), city: value(), country: value() }),
        () => ({
          email: chance(0.7) ? value() : undefined,
          address: chance(0.7) ? { line: value() } : value(),
          country: value(),
        }),
        () => ({ emails: Array.from({ length: Math.floor(random() * 8) }, value) }),
        () => ({
          emails: Array.from(
            { length: 1 + Math.floor(random() * 6000) },
            () => `u${Math.floor(random() * 1e9)}@vrai.test`,
          ),
        }),
      ];
      json = pick(shapes)();
      body = Buffer.from(JSON.stringify(json));
    } else if (r < 0.65)
      body = Buffer.from(pick(["[]", "null", "1", '"x"', "true", "[{}]", "{}", '{"__proto__":{"x":1}}']));
    else if (r < 0.8)
      body = Buffer.from(
        pick(['{"email":', "{'email':1}", '{"email":"a"}}', "\u0000", "{", '{"a":"\\ud800"}', "\ufeff{}"]),
      );
    else if (r < 0.9)
      body = Buffer.from(Array.from({ length: Math.floor(random() * 300) }, () => Math.floor(random() * 256)));
    else body = Buffer.from(JSON.stringify({ email: "y".repeat(70_000 + Math.floor(random() * 10_000)) }));
  }
  const headers: string[] = [];
  if (chance(0.93)) headers.push(`Host: ${chance(0.9) ? host : pick(HOSTILE_HOSTS)}`);
  const keyRoll = random();
  if (keyRoll < 0.6) headers.push(`Authorization: Bearer ${pick(keys.valid)}`);
  else if (keyRoll < 0.75) headers.push(`Authorization: Bearer ${pick(keys.invalid)}`);
  else if (keyRoll < 0.85)
    headers.push(
      pick([
        "Authorization: Basic abc",
        "Authorization: Bearer",
        "Authorization: bearer vrai_live_",
        "Authorization: Bearer vrai_test_%00",
      ]),
    );
  if (body !== undefined || chance(0.1)) {
    const type = pick(CONTENT_TYPES);
    if (type) headers.push(`Content-Type: ${type}`);
  }
  if (chance(0.03)) headers.push(pick(["Expect: 100-continue", "Expect: the-moon"]));
  if (chance(0.02)) headers.push(`X-Big: ${"h".repeat(1000 + Math.floor(random() * 20_000))}`);
  if (chance(0.02)) headers.push(pick(["Bad Header: x", "X-Ctl: a\u0001b", ": empty-name", "X-Fold: a\r\n folded"]));
  if (chance(0.05)) headers.push(`Accept: ${pick(["text/csv", "*/*", "application/problem+json", "image/png"])}`);
  if (chance(0.03)) headers.push(`Prefer: ${pick(["wait=1", "wait=abc", "respond-async", "wait=999999"])}`);
  headers.push("Connection: close");
  let payload: Buffer = Buffer.alloc(0);
  if (body !== undefined) {
    if (chance(0.06)) {
      // Chunked: mostly well-formed, sometimes broken.
      headers.push("Transfer-Encoding: chunked");
      payload = chance(0.7)
        ? Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from("\r\n0\r\n\r\n")])
        : Buffer.concat([Buffer.from("ZZ\r\n"), body]);
    } else {
      // Now and then a Content-Length that promises more than is sent: the request time limit must end it.
      const promised = chance(0.01) ? body.length + 10 : body.length;
      headers.push(`Content-Length: ${promised}`);
      payload = body;
    }
  }
  const head = `${method} ${path} HTTP/1.1\r\n${headers.join("\r\n")}\r\n\r\n`;
  return { method, path, bytes: Buffer.concat([Buffer.from(head, "utf8"), payload]) };
}

/** Why this answer is not acceptable, or undefined when it is a problem document or a valid success. */
export function judge(fuzzCase: FuzzCase, answer: RawAnswer): string | undefined {
  const { status, headers, body } = answer;
  if (status === 0) return answer.closed ? "closed without an answer" : "no answer within the bound";
  if (status >= 500 && status !== 503) return `status ${status}: ${body.slice(0, 200)}`;
  const type = (headers["content-type"] ?? "").split(";")[0];
  const isHead = fuzzCase.method === "HEAD";
  if (status >= 400) {
    if (type !== "application/problem+json") return `status ${status} with content-type ${type}`;
    if (isHead) return undefined;
    try {
      const problem = JSON.parse(body);
      if (typeof problem.type !== "string" || !/\/errors\/[a-z-]+$/.test(problem.type))
        return `bad type ${problem.type}`;
      if (problem.status !== status || typeof problem.title !== "string" || typeof problem.detail !== "string") {
        return `bad problem ${body.slice(0, 200)}`;
      }
    } catch {
      return `problem body is not JSON: ${body.slice(0, 100)}`;
    }
    return undefined;
  }
  if (status < 200 || status >= 300) return `unexpected status ${status}`;
  if (isHead) return undefined;
  if (type === "application/json") {
    try {
      JSON.parse(body);
    } catch {
      return `success body is not JSON: ${body.slice(0, 100)}`;
    }
    return undefined;
  }
  if (type === "text/html" || type === "text/csv") return undefined;
  return `success with content-type ${type}`;
}

export interface FuzzReport {
  cases: number;
  byStatus: Map<number, number>;
  failures: Array<{ request: string; reason: string }>;
  ms: number;
  slowestMs: number;
}

/** Sends `count` generated cases, `concurrency` at a time, each on its own connection, bounded by `timeoutMs`. */
export async function runFuzz(
  url: string,
  options: { seed: number; count: number; keys: FuzzKeys; concurrency?: number; timeoutMs?: number; host?: string },
): Promise<FuzzReport> {
  const { seed, count, keys, concurrency = 16, timeoutMs = 10_000, host = new URL(url).host } = options;
  const random = seededRandom(seed);
  const cases = Array.from({ length: count }, () => generateCase(random, keys, host));
  const byStatus = new Map<number, number>();
  const failures: FuzzReport["failures"] = [];
  let next = 0;
  let slowestMs = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < cases.length) {
        const fuzzCase = cases[next++];
        const answer = await rawRequest(url, fuzzCase.bytes, { timeoutMs });
        slowestMs = Math.max(slowestMs, answer.ms);
        byStatus.set(answer.status, (byStatus.get(answer.status) ?? 0) + 1);
        const reason = judge(fuzzCase, answer);
        if (reason) failures.push({ request: fuzzCase.bytes.subarray(0, 160).toString("latin1"), reason });
      }
    }),
  );
  return { cases: count, byStatus, failures, ms: performance.now() - started, slowestMs };
}
