// email_live: the whole email pipeline (syntax → DNS → SMTP → catch-all) against loopback peers started here:
// dnsmasq for DNS and fast SMTP peers on 127.0.4.x:25. Bounded in count and time; prints one comparable line.
// raw_req_s is the baseline measured in the same run: bare SMTP dialogues (connect, EHLO, MAIL, RCPT, QUIT) against
// the same peers with the same concurrency, without DNS, checks or connection limits.
//   npx tsx bench/email_live.ts            (BENCH_N, BENCH_SECONDS, BENCH_CONCURRENCY to change the bounds)
import { loadConfig } from "../src/config.ts";
import { createEmailEngine } from "../src/email/engine.ts";
import { createNetDialer } from "../src/email/smtp/dialer.ts";
import { DNSMASQ_MISSING, findDnsmasq, startDnsmasq, startFastSmtpPeer, type Dnsmasq, type SmtpPeer } from "../test/email/peers.ts";

const N = Number(process.env.BENCH_N ?? 5000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const DOMAINS = 8;
const ZONE = "vrai-bench.net";

/** Runs `task` with bounded concurrency until N calls or the time bound; returns sorted latencies and elapsed s. */
async function drive(task: (i: number) => Promise<unknown>): Promise<{ latencies: number[]; elapsed: number }> {
  const latencies: number[] = [];
  const deadline = performance.now() + SECONDS * 1000;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < N && performance.now() < deadline) {
        const i = next++;
        const t0 = performance.now();
        await task(i);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  return { latencies: latencies.sort((a, b) => a - b), elapsed };
}

async function main(): Promise<void> {
  if (findDnsmasq() === null) {
    console.log(`email_live skipped=1 reason="${DNSMASQ_MISSING}" node=${process.version}`);
    return;
  }
  const domains = Array.from({ length: DOMAINS }, (_, i) => ({ name: `d${i}.${ZONE}`, mx: `mx.d${i}.${ZONE}`, ip: `127.0.4.${10 + i}` }));
  let dns: Dnsmasq | null = null;
  const peers: SmtpPeer[] = [];
  try {
    dns = await startDnsmasq({
      zones: [ZONE],
      mx: domains.map((d) => ({ domain: d.name, exchange: d.mx, priority: 10 })),
      hosts: domains.map((d) => ({ name: d.mx, address: d.ip })),
    });
    for (const d of domains) peers.push(await startFastSmtpPeer({ host: d.ip, mailboxes: Array.from({ length: 50 }, (_, i) => `user${i}`) }));
    const engine = createEmailEngine({
      ...loadConfig({}),
      dnsServers: [dns.server],
      probeAllowCidrs: ["127.0.0.0/8"],
      probeTimeoutMs: 2000,
      emailDeadlineMs: 5000,
    });
    // Three in four addresses exist; the rest are unknown users (a realistic mix of 250 and 550 answers).
    const address = (i: number) => `user${i % 4 === 3 ? 1000 + i : i % 50}@${domains[i % DOMAINS]!.name}`;
    for (let i = 0; i < DOMAINS * 2; i++) await engine.verify(address(i)); // warm-up: MX and catch-all caches

    const { latencies, elapsed } = await drive((i) => engine.verify(address(i)));
    await engine.close();

    const dialer = createNetDialer();
    const raw = await drive(async (i) => {
      const signal = AbortSignal.timeout(2000);
      const d = domains[i % DOMAINS]!;
      const conn = await dialer.dial({ host: d.mx, address: d.ip, port: 25 }, { signal });
      await conn.read({ signal });
      for (const line of ["EHLO bench.example", "MAIL FROM:<verify@bench.example>", `RCPT TO:<${address(i)}>`, "QUIT"]) {
        await conn.command(line, { signal });
      }
      conn.close();
    });

    const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!;
    console.log(
      `email_live n=${latencies.length} req_s=${Math.round(latencies.length / elapsed)} p50=${pct(50).toFixed(2)}ms p99=${pct(99).toFixed(2)}ms raw_req_s=${Math.round(raw.latencies.length / raw.elapsed)} node=${process.version}`,
    );
  } finally {
    await Promise.all(peers.map((p) => p.stop()));
    await dns?.stop();
  }
}

await main();
