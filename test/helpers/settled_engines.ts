// Stand-ins for the email and address engines where the network is not what a test is about: every email answer is
// settled by syntax, every address is outside coverage. Both are instant and look exactly like the engines' answers.
import type { AddressVerification } from "../../src/address/types.ts";
import type { EmailVerification } from "../../src/email/types.ts";
import type { EmailVerifier } from "../../src/email/verifier.ts";

export const settledEmail: Pick<EmailVerifier, "verify"> = {
  async verify(email) {
    return {
      email,
      verdict: "undeliverable",
      reasons: ["invalid_syntax"],
      suggestion: null,
      flags: { disposable: null, role: null, catch_all: null },
      checks: {
        syntax: "fail",
        provider_rules: "skipped",
        typo: "skipped",
        disposable: "skipped",
        role: "skipped",
        mx: "skipped",
        smtp: "skipped",
        catch_all: "skipped",
      },
      duration_ms: 0,
    } as EmailVerification;
  },
};

export const settledAddress = {
  ready: true,
  async verify(): Promise<AddressVerification> {
    return { verdict: "unknown", reasons: ["country_not_covered"], normalized: null, duration_ms: 0 };
  },
};
