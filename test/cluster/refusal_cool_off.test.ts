// test-scope: once
// A mail server that refuses us at its greeting (421) or refuses the connection starts a cool-off that every process
// on the PostgreSQL knows: another process's bulk probes then answer what the server said without dialling it, and so
// does a process that starts later. Each process is played by its own connection pool and channel on one schema, with
// its own prober over real sockets; the peers are loopback SMTP servers on 127.0.42.x.
import assert from "node:assert/strict";
import { test } from "node:test";
import { createClusterChannel } from "../../src/email/cluster/cluster_channel.ts";
import { shareCoolOff } from "../../src/email/cluster/shared_cool_off.ts";
import { recipientOutcome } from "../../src/email/checks/probe_outcome.ts";
import { parseCidr } from "../../src/email/net/cidr.ts";
import { createNetDialer, type SmtpDialer } from "../../src/email/smtp/dialer.ts";
import { createMxHealth } from "../../src/email/smtp/mx_health.ts";
import { createSmtpPool } from "../../src/email/smtp/pool.ts";
import { createSmtpProber, type ProbeOptions } from "../../src/email/smtp/prober.ts";
import type { MxHost } from "../../src/email/types.ts";
import { silentLogger } from "../../src/log.ts";
import { startSmtpPeer } from "../email/peers.ts";
import { openTestDatabase } from "../helpers/database.ts";
import { eventually } from "../helpers/eventually.ts";

const skip = process.getuid?.() !== 0 ? "SMTP peers bind port 25, which needs root: refusal cool-off skipped" : false;

const BUSY: MxHost = { exchange: "mx.busy.test", priority: 10, addresses: ["127.0.42.10"] };
// Nothing listens there: the connection is refused.
const CLOSED: MxHost = { exchange: "mx.closed.test", priority: 10, addresses: ["127.0.42.11"] };
const COOL_OFF_MS = 60_000;

test("a host refusing us at its greeting or at connect cools off for every process", { skip }, async (t) => {
  const db = await openTestDatabase("postgres");
  t.after(() => db.close());
  const peer = await startSmtpPeer({
    host: "127.0.42.10",
    banner: { code: 421, message: "4.7.0 mx.busy.test Too many connections, try again later" },
  });
  t.after(() => peer.stop());

  const dials = new Map<string, number>();
  const real = createNetDialer({ idleTimeoutMs: 2000 });
  const dialer: SmtpDialer = {
    dial(target, options) {
      dials.set(target.address, (dials.get(target.address) ?? 0) + 1);
      return real.dial(target, options);
    },
  };
  /** A process: its own pool on the schema, channel, MX health shared through them, and prober. */
  const startProcess = async () => {
    const own = await db.openPeer();
    const channel = createClusterChannel(own.sql, { log: silentLogger });
    await channel.open();
    t.after(async () => {
      await channel.close();
      await own.close();
    });
    const health = shareCoolOff(createMxHealth({ coolOffMs: COOL_OFF_MS }), {
      channel,
      coolOffMs: COOL_OFF_MS,
      log: silentLogger,
    });
    const prober = createSmtpProber({
      dialer,
      pool: createSmtpPool({ maxPerHost: 3 }),
      health,
      port: 25,
      heloName: "probe.example",
      mailFrom: "verify@probe.example",
      probeTimeoutMs: 2000,
      allow: [parseCidr("127.0.0.0/8")],
      log: silentLogger,
    });
    return { health, prober };
  };
  const single = (): ProbeOptions => ({ signal: new AbortController().signal, reuse: false, utf8: false });
  const bulk = (): ProbeOptions => ({
    signal: new AbortController().signal,
    reuse: true,
    utf8: false,
    skipFailingHosts: true,
  });

  const a = await startProcess();
  const b = await startProcess();
  // Process A meets the refusals: three single calls (they never skip a host, and count its refusals).
  for (let i = 0; i < 3; i++) {
    const { outcome } = await a.prober.probe([BUSY], `jane${i}@busy.test`, single());
    assert.deepEqual(recipientOutcome(outcome).reasons, ["greylisted"], "a 421 greeting is a deferral");
    await a.prober.probe([CLOSED], `jane${i}@closed.test`, single());
  }
  assert.equal(peer.connections, 3);
  assert.equal(dials.get("127.0.42.11"), 3);
  await eventually(
    "B to hear of both cool-offs",
    () => b.health.failing(BUSY.exchange) && b.health.failing(CLOSED.exchange),
    { timeoutMs: 3000 },
  );

  // Process B's bulk work does not knock again, and says what the host said: never a time-out it never had.
  const answers = await Promise.all(
    Array.from({ length: 5 }, (_, i) => b.prober.probe([BUSY], `user${i}@busy.test`, bulk())),
  );
  for (const { outcome } of answers) {
    assert.equal(outcome.kind === "reply" && outcome.reply.code, 421);
    assert.deepEqual(recipientOutcome(outcome).reasons, ["greylisted"]);
  }
  const closed = await b.prober.probe([CLOSED], "user@closed.test", bulk());
  assert.deepEqual(recipientOutcome(closed.outcome).reasons, ["probe_unavailable"]);
  assert.equal(peer.connections, 3, "no connection to the refusing host from the other process");
  assert.equal(dials.get("127.0.42.11"), 3, "no dial to the closed host from the other process");

  // A process that starts during the cool-off reads it, with the refusal, from the table.
  const c = await startProcess();
  await eventually(
    "the cool-off to be stored",
    async () => {
      await c.health.load();
      return c.health.failing(BUSY.exchange);
    },
    { timeoutMs: 3000 },
  );
  const late = await c.prober.probe([BUSY], "late@busy.test", bulk());
  assert.equal(late.outcome.kind === "reply" && late.outcome.reply.code, 421);
  assert.equal(peer.connections, 3);
});
