// test-scope: once
// The pieces processes share through PostgreSQL, each process played by its own connection pool on one schema: MX
// slot leases (never more than the limit, freed by their holder or by their expiry), the wishes for slots, and MX
// cool-offs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { silentLogger } from "../../src/log.ts";
import { createClusterChannel } from "../../src/email/cluster/cluster_channel.ts";
import { createSlotLeases } from "../../src/email/cluster/slot_leases.ts";
import { shareCoolOff } from "../../src/email/cluster/shared_cool_off.ts";
import { createMxHealth } from "../../src/email/smtp/mx_health.ts";
import { openTestDatabase } from "../helpers/database.ts";
import { eventually } from "../helpers/eventually.ts";

async function cluster(t: import("node:test").TestContext) {
  const db = await openTestDatabase("postgres");
  t.after(() => db.close());
  /** A process: its own pool on the schema, its own channel. */
  const join = async () => {
    const peer = await db.openPeer();
    const channel = createClusterChannel(peer.sql, { log: silentLogger });
    await channel.open();
    t.after(async () => {
      await channel.close();
      await peer.close();
    });
    return channel;
  };
  return { db, join };
}

test("slot leases: never more than the limit over processes, given back at once or when their holder died", async (t) => {
  const { db, join } = await cluster(t);
  const [a, b] = [await join(), await join()];
  const leasesA = createSlotLeases({ channel: a, maxPerHost: 2, ttlMs: 3000, log: silentLogger });
  const leasesB = createSlotLeases({ channel: b, maxPerHost: 2, ttlMs: 3000, log: silentLogger });
  t.after(async () => {
    await leasesA.close();
    await leasesB.close();
  });
  const host = "mx.example.test";
  // Four processes' worth of asking at once: exactly two slots are given.
  const granted = await Promise.all([leasesA.take(host), leasesB.take(host), leasesA.take(host), leasesB.take(host)]);
  assert.equal(granted.filter(Boolean).length, 2);
  assert.equal(await leasesA.take(host), false);
  assert.equal(await leasesB.take("mx.other.test"), true, "each host has its own slots");

  // A slot given back is announced: the other process hears it at once.
  let heard = 0;
  leasesB.onChange((h) => {
    if (h === host) heard++;
  });
  const holder = (leasesA.held().get(host) ?? 0) > 0 ? leasesA : leasesB;
  holder.give(host);
  if (holder === leasesA) await eventually("the freed slot to be announced", () => heard > 0, { timeoutMs: 2000 });
  assert.equal(await leasesB.take(host), true);

  // A process that died holds its slots until their lease runs out, then they are free.
  await db.sql`delete from mx_slot_leases where host = 'mx.dead.test'`;
  await db.sql`insert into mx_slot_leases (host, slot, holder, expires_at)
               values ('mx.dead.test', 0, 'dead', now() + interval '600 milliseconds'),
                      ('mx.dead.test', 1, 'dead', now() + interval '600 milliseconds')`;
  assert.equal(await leasesA.take("mx.dead.test"), false);
  await new Promise((resolve) => setTimeout(resolve, 700));
  assert.equal(await leasesA.take("mx.dead.test"), true);

  // Leases of a live process are renewed: still held well past their first expiry.
  const short = createSlotLeases({ channel: a, maxPerHost: 1, ttlMs: 400, log: silentLogger });
  t.after(() => short.close());
  assert.equal(await short.take("mx.renewed.test"), true);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const [live] = await db.sql`select count(*)::int as n from mx_slot_leases
                              where host = 'mx.renewed.test' and expires_at > now()`;
  assert.equal(live?.n, 1, "still held by its live holder");
});

test("wishes: another process's interactive caller is known within moments, and so is its end", async (t) => {
  const { join } = await cluster(t);
  const [a, b] = [await join(), await join()];
  const leasesA = createSlotLeases({ channel: a, maxPerHost: 1, ttlMs: 3000, log: silentLogger });
  const leasesB = createSlotLeases({ channel: b, maxPerHost: 1, ttlMs: 3000, log: silentLogger });
  t.after(async () => {
    await leasesA.close();
    await leasesB.close();
  });
  assert.equal(leasesA.othersWant("mx.example.test"), null);
  leasesB.want("mx.example.test", "interactive");
  await eventually("A to hear B's wish", () => leasesA.othersWant("mx.example.test"), {
    until: (w) => w === "interactive",
    timeoutMs: 2000,
  });
  assert.equal(leasesB.othersWant("mx.example.test"), null, "a process does not hear its own wish");
  leasesB.want("mx.example.test", null);
  await eventually("A to hear the wish is over", () => leasesA.othersWant("mx.example.test"), {
    until: (w) => w === null,
    timeoutMs: 2000,
  });
});

test("an MX host one process found failing is skipped by the others, and by a process that starts later", async (t) => {
  const { join } = await cluster(t);
  const [a, b] = [await join(), await join()];
  const healthA = shareCoolOff(createMxHealth({ coolOffMs: 60_000 }), {
    channel: a,
    coolOffMs: 60_000,
    log: silentLogger,
  });
  const healthB = shareCoolOff(createMxHealth({ coolOffMs: 60_000 }), {
    channel: b,
    coolOffMs: 60_000,
    log: silentLogger,
  });
  for (let i = 0; i < 3; i++) healthA.timedOut("mx.tarpit.test");
  assert.ok(healthA.failing("mx.tarpit.test"));
  await eventually("B to skip the host too", () => healthB.failing("mx.tarpit.test"), { timeoutMs: 2000 });
  assert.equal(healthB.failing("mx.fine.test"), false);
  const c = await join();
  const healthC = shareCoolOff(createMxHealth({ coolOffMs: 60_000 }), {
    channel: c,
    coolOffMs: 60_000,
    log: silentLogger,
  });
  await eventually(
    "the cool-off to be stored",
    async () => {
      await healthC.load();
      return healthC.failing("mx.tarpit.test");
    },
    { timeoutMs: 2000 },
  );
});
