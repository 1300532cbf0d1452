// One conformance suite for the job store, run against the embedded database and the real PostgreSQL alike.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, beforeEach, describe, it } from "node:test";
import { createJobStore, FAILURE_VERIFIER, IdempotencyKeyTaken, type JobStore } from "../../src/jobs/job_store.ts";
import type { Sql } from "../../src/store/db.ts";
import { answer } from "./fake_verifier.ts";
import { createAccount, type OpenTestDatabase, statementsSentBy } from "../helpers/database.ts";

const HOUR = 3600_000;

export function jobStoreSuite(name: string, open: () => Promise<OpenTestDatabase>): void {
  describe(`job store on ${name}`, () => {
    let db: OpenTestDatabase;
    let sql: Sql;
    let store: JobStore;
    let account: string;

    before(async () => {
      db = await open();
      sql = db.sql;
      store = createJobStore(sql);
    });
    after(async () => {
      await db?.close();
    });
    // claim() serves every job in the table: each test starts from an empty queue.
    beforeEach(async () => {
      await sql`delete from jobs`;
      account = await createAccount(sql);
    });

    it("submit() deduplicates, keeps the first spelling in submission order and expires 48 hours later", async () => {
      const now = new Date("2026-01-10T12:00:00.000Z");
      const job = await store.submit(account, [" Jane@Example.com", "b@x.fr", "jane@example.COM ", "c@x.fr"], { now });
      assert.equal(job.total, 3);
      assert.equal(job.createdAt.toISOString(), now.toISOString());
      assert.equal(job.expiresAt.getTime() - job.createdAt.getTime(), 48 * HOUR);
      const emails = await sql`select email from job_items where job_id = ${job.jobId} order by position`;
      assert.deepEqual(
        emails.map((r) => r.email),
        ["Jane@Example.com", "b@x.fr", "c@x.fr"],
      );
      const read = await store.read(account, job.jobId, { now });
      assert.deepEqual(read, {
        job_id: job.jobId,
        status: "queued",
        total: 3,
        processed: 0,
        created_at: "2026-01-10T12:00:00.000Z",
        expires_at: "2026-01-12T12:00:00.000Z",
        summary: { undeliverable: 0, risky: 0, unknown: 0, deliverable: 0, retrying: 0, next_retry_at: null },
        results: [],
      });
    });

    it("submit() keeps a CSV submission's header and the kept rows' cells; readTable() gives them back in order", async () => {
      const emails = ["a@x.fr", "A@X.fr ", "b@x.fr"];
      const table = {
        columns: ["name", "email"],
        rows: [
          ["Ann", "a@x.fr"],
          ["Ann again", "A@X.fr "],
          ["Bob", "b@x.fr"],
        ],
      };
      const job = await store.submit(account, emails, { table });
      assert.equal(job.total, 2);
      const items = await store.claim("w", { limit: 10, leaseMs: 60_000 });
      const mine = items.filter((i) => i.jobId === job.jobId);
      for (const item of mine.reverse()) {
        await store.complete(item, { result: { ...answer(item.email), verdict: "risky" } as never });
      }
      const read = await store.readTable(account, job.jobId);
      assert.deepEqual(read?.columns, ["name", "email"]);
      assert.deepEqual(
        read?.rows.map((r) => [r.fields, r.result.email]),
        [
          [["Ann", "a@x.fr"], "a@x.fr"],
          [["Bob", "b@x.fr"], "b@x.fr"],
        ],
      );
      assert.deepEqual(read?.job.summary, {
        undeliverable: 0,
        risky: 2,
        unknown: 0,
        deliverable: 0,
        retrying: 0,
        next_retry_at: null,
      });
      assert.equal(await store.readTable(account, "not-a-uuid"), undefined);
      const json = await store.submit(account, ["c@x.fr"]);
      assert.equal((await store.readTable(account, json.jobId))?.columns, null);
    });

    it("read() pages the finished results in submission order; the summary counts them all", async () => {
      const job = await store.submit(account, ["p1@x.fr", "p2@x.fr", "p3@x.fr", "p4@x.fr"]);
      const items = (await store.claim("w", { limit: 100, leaseMs: 60_000 })).filter((i) => i.jobId === job.jobId);
      for (const item of items.slice(0, 3)) await store.complete(item, { result: answer(item.email) as never });
      const emailsOf = (read: Awaited<ReturnType<JobStore["read"]>>) => read?.results.map((r) => r.email);
      assert.deepEqual(emailsOf(await store.read(account, job.jobId)), ["p1@x.fr", "p2@x.fr", "p3@x.fr"]);
      assert.deepEqual(emailsOf(await store.read(account, job.jobId, { offset: 1, limit: 1 })), ["p2@x.fr"]);
      assert.deepEqual(emailsOf(await store.read(account, job.jobId, { offset: 2 })), ["p3@x.fr"]);
      const page = await store.read(account, job.jobId, { limit: 0 });
      assert.deepEqual(page?.results, []);
      const { undeliverable = 0, risky = 0, unknown = 0, deliverable = 0 } = page?.summary ?? {};
      assert.equal(undeliverable + risky + unknown + deliverable, 3);
    });

    it("read() counts the items waiting for a retry and says when the first is due; processed counts final answers only", async () => {
      const now = new Date("2026-01-10T12:00:00.000Z");
      const at = (seconds: number) => new Date(now.getTime() + seconds * 1000);
      const job = await store.submit(account, ["a@x.fr", "b@x.fr", "c@x.fr", "d@x.fr"], { now });
      const [a, b, c, d] = await store.claim("w", { limit: 4, leaseMs: 600_000, now });
      await store.defer(a!, { delayMs: 60_000, counts: "timeout", now });
      await store.defer(b!, { delayMs: 30_000, counts: "greylist", now });
      await store.complete(c!, { result: answer(c!.email) as never });
      // Handed back at a graceful stop: waiting for a worker again, not for a retry.
      await store.release("w");
      assert.equal(d!.email, "d@x.fr");
      const retries = async (when: Date) => {
        const read = await store.read(account, job.jobId, { now: when, limit: 0 });
        const table = await store.readTable(account, job.jobId, { now: when });
        assert.deepEqual(table?.job.summary, read?.summary, "CSV and JSON reads agree");
        return [read?.processed, read?.summary.retrying, read?.summary.next_retry_at];
      };
      assert.deepEqual(await retries(at(1)), [1, 2, at(30).toISOString()]);
      // Due, not yet taken by a worker: due "now", never in the past.
      assert.deepEqual(await retries(at(45)), [1, 2, at(45).toISOString()]);
      // Taken again: held by a worker, no longer waiting.
      const retried = await store.claim("w", { limit: 4, leaseMs: 600_000, now: at(61) });
      assert.deepEqual(retried.map((i) => i.email).sort(), ["a@x.fr", "b@x.fr", "d@x.fr"]);
      assert.deepEqual(await retries(at(61)), [1, 0, null]);
      for (const item of retried) await store.complete(item, { result: answer(item.email) as never });
      const done = await store.read(account, job.jobId, { now: at(62) });
      assert.deepEqual(
        [done?.status, done?.processed, done?.summary.retrying, done?.summary.next_retry_at],
        ["completed", 4, 0, null],
      );
    });

    it("submit() stores 5000 addresses in one statement", async () => {
      const emails = Array.from({ length: 5000 }, (_, i) => `user${i}@domain${i % 50}.test`);
      const { value: job, statements } = await statementsSentBy(sql, () => store.submit(account, emails));
      assert.equal(statements.length, 1, `one statement, one round trip: ${statements.join(" | ").slice(0, 500)}`);
      assert.match(statements[0]!, /insert into jobs .* insert into job_items /);
      assert.equal(job.total, 5000);
      const rows = await sql`
        select i.position, i.email, i.status, i.result, i.lease_owner, i.attempts, i.not_before = j.created_at as due
        from job_items i join jobs j on j.id = i.job_id
        where i.job_id = ${job.jobId} order by i.position`;
      assert.deepEqual(
        rows.map((r) => ({ ...r })),
        emails.map((email, i) => ({
          position: i + 1,
          email,
          status: "pending",
          result: null,
          lease_owner: null,
          attempts: 0,
          due: true,
        })),
        "every address in its row, in submission order, pending and due at submission",
      );
    });

    it("submit() of nothing gives a completed job with no results", async () => {
      const job = await store.submit(account, []);
      const read = await store.read(account, job.jobId);
      assert.equal(read?.status, "completed");
      assert.equal(read?.total, 0);
    });

    it("submit() with answers stores the job already completed with them, and nothing to claim", async () => {
      const answers = [answer("deliverable@vrai.test"), answer("bad@vrai.test")];
      const job = await store.submit(account, ["deliverable@vrai.test", "bad@vrai.test", "BAD@vrai.test"], { answers });
      const read = await store.read(account, job.jobId);
      assert.equal(read?.status, "completed");
      assert.equal(read?.processed, 2);
      assert.deepEqual(read?.results, answers);
      assert.deepEqual(await store.claim("w1", { limit: 10, leaseMs: 1000 }), []);
      await assert.rejects(store.submit(account, ["a@x.fr"], { answers: [] }), RangeError);
    });

    it("read() answers undefined alike for an unknown, malformed, foreign or expired job", async () => {
      const now = new Date();
      const job = await store.submit(account, ["a@x.fr"], { now });
      const stranger = await createAccount(sql);
      assert.ok(await store.read(account, job.jobId, { now }));
      assert.equal(await store.read(account, randomUUID(), { now }), undefined);
      assert.equal(await store.read(account, "not-a-uuid", { now }), undefined);
      assert.equal(await store.read(stranger, job.jobId, { now }), undefined);
      assert.equal(await store.read(account, job.jobId, { now: new Date(now.getTime() + 48 * HOUR) }), undefined);
    });

    it("claim() hands out items in submission order, marks the job running and never hands an item out twice under a live lease", async () => {
      const job = await store.submit(account, ["a@x.fr", "b@x.fr", "c@x.fr"]);
      const first = await store.claim("w1", { limit: 2, leaseMs: 60_000 });
      assert.deepEqual(
        first.map((i) => [i.email, i.position, i.attempts, i.owner]),
        [
          ["a@x.fr", 1, 1, "w1"],
          ["b@x.fr", 2, 1, "w1"],
        ],
      );
      assert.equal((await store.read(account, job.jobId))?.status, "running");
      const second = await store.claim("w2", { limit: 5, leaseMs: 60_000 });
      assert.deepEqual(
        second.map((i) => i.email),
        ["c@x.fr"],
      );
      assert.deepEqual(await store.claim("w3", { limit: 5, leaseMs: 60_000 }), []);
    });

    it("claim() from concurrent claimers shares the items without overlap", async () => {
      const emails = Array.from({ length: 200 }, (_, i) => `u${i}@x.fr`);
      await store.submit(account, emails);
      const peer = await db.openPeer();
      try {
        const peerStore = createJobStore(peer.sql);
        const claims = await Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            (i % 2 ? peerStore : store).claim(`w${i}`, { limit: 30, leaseMs: 60_000 }),
          ),
        );
        const positions = claims.flat().map((i) => i.position);
        assert.equal(positions.length, 200);
        assert.equal(new Set(positions).size, 200);
      } finally {
        await peer.close();
      }
    });

    it("claim() takes back the items of a worker whose lease ran out, counting the attempt", async () => {
      const now = new Date();
      await store.submit(account, ["a@x.fr"], { now });
      await store.claim("dead", { limit: 1, leaseMs: 1000, now });
      assert.deepEqual(await store.claim("w2", { limit: 1, leaseMs: 1000, now: new Date(now.getTime() + 999) }), []);
      const [item] = await store.claim("w2", { limit: 1, leaseMs: 1000, now: new Date(now.getTime() + 1000) });
      assert.equal(item?.attempts, 2);
      assert.equal(item?.owner, "w2");
    });

    it("renew() keeps a lease alive past its first term", async () => {
      const now = new Date();
      await store.submit(account, ["a@x.fr"], { now });
      const items = await store.claim("w1", { limit: 1, leaseMs: 1000, now });
      assert.equal(await store.renew(items, { leaseMs: 1000, now: new Date(now.getTime() + 900) }), 1);
      assert.deepEqual(await store.claim("w2", { limit: 1, leaseMs: 1000, now: new Date(now.getTime() + 1500) }), []);
    });

    it("complete() writes one result per item, only under the writer's lease, and finishes the job with its last item", async () => {
      const now = new Date();
      const job = await store.submit(account, ["a@x.fr", "bad@x.fr", "c@x.fr"], { now });
      const [a, bad, c] = await store.claim("w1", { limit: 3, leaseMs: 1000, now });
      assert.equal(await store.complete(c!, { result: answer("c@x.fr") }), true);
      assert.equal(await store.complete(a!, { result: answer("a@x.fr") }), true);
      // Progress is visible, in submission order, before the job ends.
      const partial = await store.read(account, job.jobId);
      assert.equal(partial?.status, "running");
      assert.equal(partial?.processed, 2);
      assert.deepEqual(
        partial?.results.map((r) => r.email),
        ["a@x.fr", "c@x.fr"],
      );
      // A second write of the same item, and a write by a worker that lost its lease, change nothing.
      assert.equal(await store.complete(a!, { result: answer("bad@x.fr") }), false);
      const [taken] = await store.claim("w2", { limit: 1, leaseMs: 1000, now: new Date(now.getTime() + 2000) });
      assert.equal(taken?.position, 2);
      assert.equal(await store.complete(bad!, { result: answer("bad@x.fr") }), false);
      assert.equal(await store.complete(taken!, { result: answer("bad@x.fr") }), true);
      const done = await store.read(account, job.jobId);
      assert.equal(done?.status, "completed");
      assert.equal(done?.processed, 3);
      assert.deepEqual(done?.results, [answer("a@x.fr"), answer("bad@x.fr"), answer("c@x.fr")]);
      assert.equal(done?.failure_reason, undefined);
    });

    it("complete() fails a job whose every item got the fallback answer, with a failure_reason", async () => {
      const job = await store.submit(account, ["a@x.fr"]);
      const [a] = await store.claim("w1", { limit: 1, leaseMs: 1000 });
      await store.complete(a!, { result: answer("a@x.fr"), exhausted: true });
      const read = await store.read(account, job.jobId);
      assert.equal(read?.status, "failed");
      assert.equal(read?.failure_reason, FAILURE_VERIFIER);
      assert.equal(read?.results.length, 1);
    });

    it("defer() hides an item until its delay has passed and counts greylist tries", async () => {
      const now = new Date();
      await store.submit(account, ["a@x.fr"], { now });
      const [a] = await store.claim("w1", { limit: 1, leaseMs: 1000, now });
      assert.equal(await store.defer(a!, { delayMs: 60_000, counts: "greylist", now }), true);
      assert.deepEqual(await store.claim("w1", { limit: 1, leaseMs: 1000, now: new Date(now.getTime() + 59_999) }), []);
      const [again] = await store.claim("w1", { limit: 1, leaseMs: 1000, now: new Date(now.getTime() + 60_000) });
      assert.equal(again?.greylistTries, 1);
      assert.equal(again?.greylistedAt?.toISOString(), now.toISOString());
      assert.equal(again?.attempts, 2);
      // A deferral after an error keeps the greylist count.
      assert.equal(await store.defer(again!, { delayMs: 0 }), true);
      const [third] = await store.claim("w1", { limit: 1, leaseMs: 1000 });
      assert.equal(third?.greylistTries, 1);
      assert.equal(third?.attempts, 3);
    });

    it("settle() writes many items' results and deferrals in one statement, each under its own lease", async () => {
      const now = new Date();
      const job = await store.submit(account, ["a@x.fr", "b@x.fr", "c@x.fr", "d@x.fr"], { now });
      const [a, b, c, d] = await store.claim("w1", { limit: 4, leaseMs: 1000, now });
      // d's lease runs out and w2 takes it over: w1's write for it must not count.
      await sql`update job_items set lease_owner = 'w2' where job_id = ${job.jobId} and position = 4`;
      const { value: written, statements } = await statementsSentBy(sql, () =>
        store.settle(
          [
            { item: c!, result: answer("c@x.fr") },
            { item: b!, retry: { delayMs: 60_000, counts: "greylist" } },
            { item: a!, result: answer("a@x.fr") },
            { item: d!, result: answer("d@x.fr") },
            { item: a!, result: answer("bad@x.fr") },
          ],
          { now },
        ),
      );
      assert.equal(statements.length, 1, `one statement: ${statements.join(" | ").slice(0, 300)}`);
      assert.deepEqual(
        written,
        [true, true, true, false, false],
        "d's lease is w2's; a's second settlement is not written",
      );
      const read = await store.read(account, job.jobId);
      assert.equal(read?.processed, 2);
      assert.equal(read?.status, "running");
      assert.deepEqual(
        read?.results,
        [answer("a@x.fr"), answer("c@x.fr")],
        "in submission order, the first answer of a",
      );
      // b is due again after its delay (d too, once w2's lease has run out).
      const again = await store.claim("w1", { limit: 5, leaseMs: 1000, now: new Date(now.getTime() + 60_000) });
      const b2 = again.find((i) => i.email === "b@x.fr");
      assert.deepEqual([b2?.greylistTries, b2?.attempts], [1, 2]);
      assert.deepEqual(await store.settle([]), []);
    });

    it("settle() finishes each job of the list exactly once, counting the fallback answers of each", async () => {
      const first = await store.submit(account, ["a@x.fr", "b@x.fr"]);
      const second = await store.submit(account, ["c@x.fr"]);
      const third = await store.submit(account, ["d@x.fr", "e@x.fr"]);
      const items = await store.claim("w1", { limit: 10, leaseMs: 60_000 });
      assert.equal(items.length, 5);
      const of = (jobId: string) => items.filter((i) => i.jobId === jobId);
      const written = await store.settle([
        ...of(first.jobId).map((item) => ({ item, result: answer(item.email), exhausted: true })),
        ...of(second.jobId).map((item) => ({ item, result: answer(item.email), exhausted: true })),
        // Only one of the third job's two items: that job goes on.
        { item: of(third.jobId)[1]!, result: answer("e@x.fr") },
      ]);
      assert.deepEqual(written, [true, true, true, true]);
      const [one, two, three] = await Promise.all([first, second, third].map((job) => store.read(account, job.jobId)));
      assert.deepEqual([one?.status, one?.processed, one?.failure_reason], ["failed", 2, FAILURE_VERIFIER]);
      assert.deepEqual([two?.status, two?.processed], ["failed", 1]);
      assert.deepEqual([three?.status, three?.processed, three?.failure_reason], ["running", 1, undefined]);
      // The last item ends the third job; a repeat of the same list changes nothing.
      assert.deepEqual(await store.settle([{ item: of(third.jobId)[0]!, result: answer("d@x.fr") }]), [true]);
      assert.deepEqual(await store.settle(of(first.jobId).map((item) => ({ item, result: answer(item.email) }))), [
        false,
        false,
      ]);
      const done = await store.read(account, third.jobId);
      assert.deepEqual([done?.status, done?.processed], ["completed", 2]);
      assert.equal((await store.read(account, first.jobId))?.processed, 2);
    });

    it("settle() from concurrent writers on the same jobs counts every item once", async () => {
      const emails = Array.from({ length: 120 }, (_, i) => `u${i}@x.fr`);
      const jobs = await Promise.all([store.submit(account, emails), store.submit(account, emails)]);
      const peer = await db.openPeer();
      try {
        const peerStore = createJobStore(peer.sql);
        const items = await store.claim("w1", { limit: 240, leaseMs: 60_000 });
        // Twelve writers at once, each with items of both jobs in its own order.
        const lists = Array.from({ length: 12 }, (_, k) => items.filter((_, i) => i % 12 === k));
        await Promise.all(
          lists.map((list, k) =>
            (k % 2 ? peerStore : store).settle(
              (k % 3 ? list : [...list].reverse()).map((item) => ({ item, result: answer(item.email) })),
            ),
          ),
        );
        for (const job of jobs) {
          const read = await store.read(account, job.jobId);
          assert.deepEqual([read?.status, read?.processed, read?.results.length], ["completed", 120, 120]);
        }
      } finally {
        await peer.close();
      }
    });

    it("release() hands every held item back at once without counting the attempt", async () => {
      await store.submit(account, ["a@x.fr", "b@x.fr"]);
      await store.claim("w1", { limit: 2, leaseMs: 60_000 });
      assert.equal(await store.release("w1"), 2);
      assert.equal(await store.release("w1"), 0);
      const again = await store.claim("w2", { limit: 2, leaseMs: 60_000 });
      assert.deepEqual(
        again.map((i) => i.attempts),
        [1, 1],
      );
    });

    it("claim() leaves the items of an expired job alone", async () => {
      const now = new Date();
      await store.submit(account, ["a@x.fr"], { now });
      assert.deepEqual(
        await store.claim("w1", { limit: 1, leaseMs: 1000, now: new Date(now.getTime() + 48 * HOUR) }),
        [],
      );
    });

    it("reclaimAll() hands back the items of every owner, counting their attempt", async () => {
      await store.submit(account, ["a@x.fr", "b@x.fr"]);
      await store.claim("dead1", { limit: 1, leaseMs: 60_000 });
      await store.claim("dead2", { limit: 1, leaseMs: 60_000 });
      assert.equal(await store.reclaimAll(), 2);
      const again = await store.claim("w1", { limit: 2, leaseMs: 60_000 });
      assert.deepEqual(
        again.map((i) => i.attempts),
        [2, 2],
      );
    });

    it("an Idempotency-Key names one live job per account: a second submit under it is refused, another account's is its own, an expired job's key is free again", async () => {
      const now = new Date("2026-01-10T12:00:00.000Z");
      const idempotency = { key: "run-7", requestHash: "h1" };
      const job = await store.submit(account, ["a@x.fr"], { now, idempotency });
      assert.deepEqual(await store.findIdempotent(account, "run-7", { now }), {
        ...job,
        status: "queued",
        requestHash: "h1",
      });
      assert.equal(await store.findIdempotent(account, "run-8", { now }), undefined);
      await assert.rejects(store.submit(account, ["b@x.fr"], { now, idempotency }), IdempotencyKeyTaken);
      const other = await createAccount(sql, "other");
      assert.equal(await store.findIdempotent(other, "run-7", { now }), undefined);
      await store.submit(other, ["a@x.fr"], { now, idempotency });

      // 48 hours on, before the sweeper ran: the job is gone for the client, and so is its hold on the key.
      const later = new Date(now.getTime() + 48 * HOUR);
      assert.equal(await store.findIdempotent(account, "run-7", { now: later }), undefined);
      const again = await store.submit(account, ["b@x.fr"], {
        now: later,
        idempotency: { key: "run-7", requestHash: "h2" },
      });
      assert.equal((await store.findIdempotent(account, "run-7", { now: later }))?.jobId, again.jobId);
    });

    it("sweep() deletes every row of the jobs submitted 48 hours ago and keeps the younger ones", async () => {
      const now = new Date();
      const old = await store.submit(account, ["a@x.fr", "b@x.fr"], { now: new Date(now.getTime() - 48 * HOUR) });
      const young = await store.submit(account, ["c@x.fr"], { now: new Date(now.getTime() - 47 * HOUR) });
      assert.equal(await store.sweep({ now }), 1);
      const jobs = await sql`select id from jobs`;
      assert.deepEqual(
        jobs.map((r) => r.id),
        [young.jobId],
      );
      const [items] = await sql`select count(*)::int as n from job_items where job_id = ${old.jobId}`;
      assert.equal(items!.n, 0);
      assert.equal(await store.sweep({ now }), 0);
    });
  });
}
