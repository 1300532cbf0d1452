// address_csv_download: the CSV download of a finished 100,000-row bulk address job, alone: the rows stored as a CSV
// submission's would be (a job submitted with its answers), then the route's body read to its end in this process, as
// the server makes it (the embedded database in its worker thread, postgres.js over its socket). Prints wall and CPU
// time (every thread of the process) per read, and a hash of the bytes, so that a faster body is seen to be the same.
//   npx tsx bench/address_csv_download.ts   (BENCH_ROWS=N, BENCH_READS=R)
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInput, AddressVerification } from "../src/address/types.ts";
import { addressCsvResponse } from "../src/http/routes/read_job.ts";
import { createAddressJobStore } from "../src/jobs/address_job_store.ts";
import { openDatabase } from "../src/store/db.ts";
import { randomUUID } from "node:crypto";

/** CPU ms of this process's threads from /proc (Linux): the main thread's, and all the others' together. */
function threadCpuMs(): { main: number; others: number } {
  const ticks = (tid: string) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  };
  let main = 0;
  let others = 0;
  for (const tid of readdirSync("/proc/self/task")) {
    if (tid === String(process.pid)) main += ticks(tid);
    else others += ticks(tid);
  }
  return { main: main * 10, others: others * 10 };
}

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const READS = Number(process.env.BENCH_READS ?? 5);
const dir = mkdtempSync(join(tmpdir(), "vrai-bench-download-"));
const db = await openDatabase({ databaseUrl: process.env.DATABASE_URL, stateDir: dir } as never);
try {
  const account = randomUUID();
  await db.sql`insert into accounts (id, name, plan) values (${account}, ${`bench-${account}`}, 'unmetered')`;
  const streets = ["Rue de Rivoli", "Boulevard Saint-Germain", "Avenue des Champs-Élysées", 'Rue "du" Bac, bis'];
  const inputs: AddressInput[] = [];
  const rows: string[][] = [];
  const answers: AddressVerification[] = [];
  for (let i = 0; i < ROWS; i++) {
    const street = streets[i % streets.length]!;
    const line = `${(i % 200) + 1} ${street} 750${String((i % 20) + 1).padStart(2, "0")} Paris`;
    inputs.push({ line });
    rows.push([String(i + 1), line]);
    const found = i % 7 !== 6;
    answers.push({
      verdict: found ? "valid" : "invalid",
      reasons: found ? (i % 3 === 0 ? ["corrected_spelling"] : []) : ["street_not_found", "ambiguous"],
      normalized: found
        ? {
            house_number: String((i % 200) + 1),
            house_number_suffix: i % 11 === 0 ? "bis" : null,
            street: street.toUpperCase() === street ? street : street,
            postcode: `750${String((i % 20) + 1).padStart(2, "0")}`,
            city: "Paris",
            country: "FR",
            line: `${(i % 200) + 1} ${street}, 750${String((i % 20) + 1).padStart(2, "0")} Paris`,
            latitude: 48.85 + (i % 1000) / 100_000,
            longitude: 2.35 - (i % 997) / 100_000,
            insee_code: `751${String((i % 20) + 1).padStart(2, "0")}`,
            ban_id: `75101_${(i * 7919).toString(36)}_${String(i % 200).padStart(5, "0")}`,
            postal_line_4: `${(i % 200) + 1} ${street.toUpperCase()}`,
            postal_line_6: "75001 PARIS",
          }
        : null,
      duration_ms: 0.05,
    } as unknown as AddressVerification);
  }
  const store = createAddressJobStore(db.sql);
  const job = await store.submit(account, inputs, { answers, table: { columns: ["id", "adresse"], rows } });
  for (let r = 0; r < READS; r++) {
    const cpu0 = process.cpuUsage();
    const threads0 = threadCpuMs();
    const t0 = performance.now();
    const table = await store.readTable(account, job.jobId);
    const hash = createHash("sha256");
    let bytes = 0;
    if (process.env.BENCH_FORMAT === "0") {
      // The database's part alone: the chunks read, not written.
      for await (const chunk of table!.chunks()) bytes += chunk.results.byteLength + (chunk.fields?.byteLength ?? 0);
    } else {
      const response = addressCsvResponse(table!, {});
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        hash.update(chunk);
        bytes += chunk.byteLength;
      }
    }
    const wall = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const threads = threadCpuMs();
    console.log(
      `address_csv_download rows=${ROWS} wall_ms=${wall.toFixed(0)} cpu_ms=${((cpu.user + cpu.system) / 1000).toFixed(0)} ` +
        `main_cpu_ms=${threads.main - threads0.main} other_threads_cpu_ms=${threads.others - threads0.others} ` +
        `bytes=${bytes} sha256=${hash.digest("hex").slice(0, 16)}`,
    );
  }
} finally {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
}
