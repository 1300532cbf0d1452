// The Vrai-Signature header, checked against an HMAC computed here from Stripe's description of the scheme
// (HMAC-SHA256 of "<t>.<body>", hex, after "v1=").
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { generateCallbackSecret, signatureHeader, verifySignature } from "../../src/callbacks/signature.ts";

const BODY = '{"job_id":"0d3c2b1a-0000-4000-8000-000000000000","status":"completed"}';
const T = 1_767_261_600;

test("signatureHeader() is t=<seconds>,v1=<hex HMAC-SHA256 of t.body>, one v1 per secret", () => {
  const hmac = (secret: string) => createHmac("sha256", secret).update(`${T}.${BODY}`).digest("hex");
  assert.equal(signatureHeader(BODY, ["vrai_whsec_a"], T), `t=${T},v1=${hmac("vrai_whsec_a")}`);
  assert.equal(
    signatureHeader(BODY, ["vrai_whsec_new", "vrai_whsec_old"], T),
    `t=${T},v1=${hmac("vrai_whsec_new")},v1=${hmac("vrai_whsec_old")}`,
  );
  assert.throws(() => signatureHeader(BODY, [], T), RangeError);
});

test("verifySignature() accepts any v1 of its secret within the tolerance, and nothing else", () => {
  const header = signatureHeader(BODY, ["vrai_whsec_new", "vrai_whsec_old"], T);
  assert.equal(verifySignature(header, BODY, "vrai_whsec_new", { now: T }), true);
  assert.equal(verifySignature(header, BODY, "vrai_whsec_old", { now: T + 299 }), true);
  assert.equal(verifySignature(header, BODY, "vrai_whsec_other", { now: T }), false);
  assert.equal(verifySignature(header, `${BODY} `, "vrai_whsec_new", { now: T }), false, "the body as received");
  assert.equal(verifySignature(header, BODY, "vrai_whsec_new", { now: T + 301 }), false, "too old");
  const replayed = header.replace(`t=${T}`, `t=${T + 1000}`);
  assert.equal(verifySignature(replayed, BODY, "vrai_whsec_new", { now: T + 1000 }), false, "t is signed");
  assert.equal(verifySignature("v1=abc", BODY, "vrai_whsec_new", { now: T }), false);
  assert.equal(verifySignature("", BODY, "vrai_whsec_new", { now: T }), false);
});

test("generateCallbackSecret() gives 32 random bytes behind a prefix", () => {
  const a = generateCallbackSecret();
  assert.match(a, /^vrai_whsec_[A-Za-z0-9_-]{43}$/);
  assert.notEqual(a, generateCallbackSecret());
});
