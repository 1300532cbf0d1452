// Engines over the loopback peers, built from one configuration shape: DNS from the suite's dnsmasq, loopback let
// through the SSRF guard, a fixed probe identity. Each suite sets its own probe budget; all are closed together.
import { loadConfig, type Config } from "../../../src/config.ts";
import { createEmailEngine, type CreateEmailEngineOptions, type EmailEngine } from "../../../src/email/engine.ts";

export interface LiveEngines {
  config(overrides?: Partial<Config>): Config;
  engine(overrides?: Partial<Config>, options?: CreateEmailEngineOptions): EmailEngine;
  closeAll(): Promise<void>;
}

/** `dnsServer` is read when an engine is built (the suite's dnsmasq starts in its before hook). */
export function liveEngines(dnsServer: () => string, defaults: Partial<Config>): LiveEngines {
  const engines: EmailEngine[] = [];
  const config = (overrides: Partial<Config> = {}): Config => ({
    ...loadConfig({}),
    dnsServers: [dnsServer()],
    probeAllowCidrs: ["127.0.0.0/8"],
    emailDeadlineMs: 4000,
    smtpHeloName: "probe.vrai.example",
    smtpMailFrom: "verify@probe.vrai.example",
    ...defaults,
    ...overrides,
  });
  return {
    config,
    engine(overrides = {}, options = {}) {
      const e = createEmailEngine(config(overrides), options);
      engines.push(e);
      return e;
    },
    async closeAll() {
      await Promise.all(engines.map((e) => e.close()));
    },
  };
}
