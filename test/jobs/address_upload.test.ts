// A bulk address job written as its upload is read (jobs/address_upload.ts), on the embedded database and on the
// local PostgreSQL: its chunks are in the database while the rows still come, nobody sees or works them until the
// upload is committed, equal rows are found across chunks, a discard leaves nothing, and the sweeper deletes an
// upload whose process died once it is older than any request can last.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createAddressJobStore } from "../../src/jobs/address_job_store.ts";
import { startAddressUpload, UPLOAD_INSERT_CHUNKS } from "../../src/jobs/address_upload.ts";
import { ABANDONED_UPLOAD_MS, startSweeper } from "../../src/jobs/sweeper.ts";
import { silentLogger } from "../../src/log.ts";
import { createAccount, type DatabaseKind, openTestDatabase, type OpenTestDatabase } from "../helpers/database.ts";

const line = (i: number) => ({ line: `${i} rue de Rivoli 75001 Paris` });

for (const kind of ["embedded", "postgres"] as DatabaseKind[]) {
  describe(`address uploads on the ${kind} database`, () => {
    let db: OpenTestDatabase;
    before(async () => {
      db = await openTestDatabase(kind);
    });
    after(async () => {
      await db?.close();
    });
    const count = async (table: "jobs" | "address_job_chunks", jobId: string) =>
      (
        await db.sql`select count(*)::int as n from ${db.sql(table)} where ${db.sql(table === "jobs" ? "id" : "job_id")} = ${jobId}`
      )[0]!.n as number;

    it("startAddressUpload() writes whole chunks as rows come, hides them until commit(), and finds equal rows across chunks", async () => {
      const store = createAddressJobStore(db.sql);
      const account = await createAccount(db.sql);
      const upload = startAddressUpload(db.sql, account, { columns: ["adresse"] });
      const rows = UPLOAD_INSERT_CHUNKS * 1000 + 1500;
      for (let i = 1; i <= rows; i++) {
        // Row 4500 repeats row 3 (another spelling): it is answered from row 3.
        const input = i === 4500 ? { line: "  3 RUE DE RIVOLI 75001 paris" } : line(i);
        upload.add(input, [input.line]);
        await upload.drain();
      }
      assert.equal(upload.written, UPLOAD_INSERT_CHUNKS * 1000, "whole chunks written while the rows still come");
      assert.equal(await count("address_job_chunks", upload.jobId), UPLOAD_INSERT_CHUNKS);
      assert.equal(upload.distinct, rows - 1);
      await upload.finish();
      assert.equal(upload.written, rows);
      // Not submitted: no read sees it, no claim hands it out.
      assert.equal(await store.read(account, upload.jobId), undefined);
      assert.deepEqual(await store.claim("worker", { limit: 10, leaseMs: 60_000 }), []);

      const job = await upload.commit({ idempotency: { key: "k1", requestHash: "h1" } });
      assert.equal(job.status, "queued");
      assert.equal(job.total, rows);
      const read = await store.read(account, upload.jobId);
      assert.equal(read?.status, "queued");
      assert.equal(read?.total, rows);
      const claimed = await store.claim("worker", { limit: 10, leaseMs: 60_000 });
      assert.equal(claimed.length, Math.ceil(rows / 1000));
      const fifth = claimed.find((c) => c.chunk === 4)!;
      assert.equal(fifth.firstRow, 4001);
      const dupOf = JSON.parse(fifth.dupOf) as Array<number | null>;
      assert.equal(dupOf[499], 3, "row 4500 is row 3 again");
      assert.equal(dupOf[498], null);
      assert.equal((await db.sql`select columns from jobs where id = ${upload.jobId}`)[0]!.columns[0], "adresse");
      await upload.discard();
      assert.equal(await count("jobs", upload.jobId), 1, "a committed upload is kept");
    });

    it("an upload whose rows come answered is completed at commit, and a discarded one leaves nothing", async () => {
      const store = createAddressJobStore(db.sql);
      const account = await createAccount(db.sql);
      const answered = startAddressUpload(db.sql, account);
      const answer = { verdict: "deliverable" as const, reasons: [], normalized: null, duration_ms: 0 };
      answered.add(line(1), undefined, answer);
      answered.add(line(1), undefined, answer);
      await answered.drain();
      await answered.finish();
      // Fewer rows than one insert takes: all of them go in the commit's transaction, never 'uploading'.
      assert.equal(await count("jobs", answered.jobId), 0);
      const job = await answered.commit();
      assert.equal(job.status, "completed");
      const read = await store.read(account, answered.jobId);
      assert.equal(read?.status, "completed");
      assert.equal(read?.summary.deliverable, 2);

      const dropped = startAddressUpload(db.sql, account);
      for (let i = 1; i <= UPLOAD_INSERT_CHUNKS * 1000; i++) dropped.add(line(i));
      await dropped.drain();
      assert.equal(await count("address_job_chunks", dropped.jobId), UPLOAD_INSERT_CHUNKS);
      await dropped.discard();
      assert.equal(await count("jobs", dropped.jobId), 0);
      assert.equal(await count("address_job_chunks", dropped.jobId), 0);
      await assert.rejects(dropped.commit(), /discarded/);
    });

    it("startSweeper() deletes an upload left uploading once it is older than any request can last", async () => {
      const account = await createAccount(db.sql);
      const began = new Date();
      const abandoned = startAddressUpload(db.sql, account, { now: began });
      for (let i = 1; i <= UPLOAD_INSERT_CHUNKS * 1000 + 500; i++) abandoned.add(line(i));
      await abandoned.drain();
      await abandoned.finish();
      // The process dies here: the upload is never committed nor discarded.
      const kept = startAddressUpload(db.sql, account, { now: began });
      kept.add(line(1));
      await kept.finish();
      await kept.commit({ now: began });
      let clock = new Date(began.getTime() + ABANDONED_UPLOAD_MS - 60_000);
      const sweeper = startSweeper({ sql: db.sql, log: silentLogger, intervalMs: 60_000, now: () => clock });
      try {
        await sweeper.sweepNow();
        assert.equal(await count("jobs", abandoned.jobId), 1, "an upload younger than the bound may still be running");
        clock = new Date(began.getTime() + ABANDONED_UPLOAD_MS);
        assert.equal(await sweeper.sweepNow(), 1);
        assert.equal(await count("jobs", abandoned.jobId), 0);
        assert.equal(await count("address_job_chunks", abandoned.jobId), 0);
        assert.equal(await count("jobs", kept.jobId), 1, "a submitted job lives its 48 hours");
      } finally {
        await sweeper.stop();
      }
      assert.throws(() => startSweeper({ sql: db.sql, log: silentLogger, abandonedUploadMs: 0 }), RangeError);
    });
  });
}
