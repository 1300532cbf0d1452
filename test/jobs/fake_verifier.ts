// The bulk half of EmailVerifier, injected at the boundary: deterministic verdicts from the local part, configurable latency,
// greylisting a given number of times before accepting, and failures on demand. It counts probes per address.
import { setTimeout as sleep } from "node:timers/promises";
import type { EmailVerification } from "../../src/email/types.ts";
import type { EmailResult, EmailVerifier, VerifyManyOptions } from "../../src/email/verifier.ts";

export interface FakeVerifierOptions {
  /** Time each address takes; the fake honours the abort signal while it waits. */
  latencyMs?: number | ((email: string) => number);
  /** Greylisted answers an address gets before the real one. */
  greylistTimes?: (email: string) => number;
  /** Timed-out answers (unknown, probe_timeout) an address gets before the real one. */
  timeoutTimes?: (email: string) => number;
  retryAfterMs?: number;
  /** verifyMany rejects, after answering the others, when the batch holds such an address. */
  failsOn?: (email: string) => boolean;
  /** Called when a probe starts (before its latency). */
  onProbe?: (email: string) => void;
  /** Tag written in duration_ms, to tell which runner wrote a result. */
  durationMs?: number;
}

export interface FakeVerifier extends Pick<EmailVerifier, "verifyMany"> {
  /** Probes started per address. */
  calls: Map<string, number>;
  batches: string[][];
}

export function answer(
  email: string,
  options: { durationMs?: number; greylisted?: boolean; timedOut?: boolean } = {},
): EmailVerification {
  const { durationMs = 1, greylisted = false, timedOut = false } = options;
  const bad = email.startsWith("bad");
  const unsure = greylisted || timedOut;
  const checks = {
    syntax: "pass",
    provider_rules: "pass",
    typo: "pass",
    disposable: "pass",
    role: "pass",
    mx: "pass",
    smtp: unsure ? "inconclusive" : bad ? "fail" : "pass",
    catch_all: unsure || bad ? "skipped" : "pass",
  } as const;
  return {
    email,
    verdict: unsure ? "unknown" : bad ? "undeliverable" : "deliverable",
    reasons: greylisted ? ["greylisted"] : timedOut ? ["probe_timeout"] : bad ? ["mailbox_not_found"] : [],
    suggestion: null,
    flags: { disposable: false, role: false, catch_all: unsure || bad ? null : false },
    checks,
    duration_ms: durationMs,
  };
}

export function createFakeVerifier(options: FakeVerifierOptions = {}): FakeVerifier {
  const {
    latencyMs = 0,
    greylistTimes = () => 0,
    timeoutTimes = () => 0,
    retryAfterMs = 10,
    failsOn = () => false,
  } = options;
  const { onProbe, durationMs } = options;
  const calls = new Map<string, number>();
  const batches: string[][] = [];
  return {
    calls,
    batches,
    async verifyMany(emails: string[], { signal, onResult }: VerifyManyOptions): Promise<void> {
      batches.push([...emails]);
      let failing = false;
      await Promise.all(
        emails.map(async (email) => {
          const n = (calls.get(email) ?? 0) + 1;
          calls.set(email, n);
          onProbe?.(email);
          const wait = typeof latencyMs === "function" ? latencyMs(email) : latencyMs;
          if (wait > 0) await sleep(wait, undefined, { signal });
          signal?.throwIfAborted();
          if (failsOn(email)) {
            failing = true;
            return;
          }
          const greylisted = n <= greylistTimes(email);
          const timedOut = !greylisted && n <= timeoutTimes(email);
          const result: EmailResult = answer(email, { durationMs, greylisted, timedOut });
          if (greylisted) result.retryAfterMs = retryAfterMs;
          await onResult(result);
        }),
      );
      if (failing) throw new Error("Cannot verify the batch: the fake verifier was told to fail");
    },
  };
}
