// The SMTP prober with a stopwatch: each recipient's probe is timed by its outcome, from the ask to the answer (the
// wait for a connection slot included: vrai_smtp_mx_waiting shows that wait on its own).
import type { ProbeOutcome, SmtpProber } from "../email/smtp/prober.ts";
import type { Metrics } from "./metrics.ts";

/** The reply's category (accepted, mailbox_not_found, greylisted, …), or timeout, or unavailable. */
export function probeOutcomeLabel(outcome: ProbeOutcome): string {
  return outcome.kind === "reply" ? outcome.category : outcome.kind;
}

/** `prober`, each probe recorded in `vrai_smtp_dialogue_duration_seconds`; a probe its caller gave up is not. */
export function timedProber(prober: SmtpProber, metrics: Metrics): SmtpProber {
  return {
    ...prober,
    async probe(hosts, recipient, options) {
      const started = performance.now();
      const result = await prober.probe(hosts, recipient, options);
      metrics.smtpDialogue(probeOutcomeLabel(result.outcome), (performance.now() - started) / 1000);
      return result;
    },
  };
}
