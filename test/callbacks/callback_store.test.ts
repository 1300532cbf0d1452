// The delivery state of completion callbacks, on the embedded database and on PostgreSQL: due only once its job has
// ended, leased to one deliverer at a time, taken over when a lease runs out (a deliverer that died), and recorded
// only by the lease's holder.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createAccount, openTestDatabase, type OpenTestDatabase } from "../helpers/database.ts";
import { createJobStore } from "../../src/jobs/job_store.ts";
import { createCallbackStore } from "../../src/callbacks/callback_store.ts";
import { createCallbackSecretStore } from "../../src/callbacks/secret_store.ts";
import type { EmailVerification } from "../../src/email/types.ts";
import { allChecks } from "../../src/email/vocabulary.ts";

const URL_A = "https://hooks.example.com/a";
const t0 = new Date("2026-06-01T10:00:00Z");
const at = (ms: number) => new Date(t0.getTime() + ms);

function answer(email: string): EmailVerification {
  return {
    email,
    verdict: "undeliverable",
    reasons: ["invalid_syntax"],
    suggestion: null,
    flags: { disposable: null, role: null, catch_all: null },
    checks: allChecks("skipped"),
    duration_ms: 0,
  };
}

for (const kind of ["embedded", "postgres"] as const) {
  test(`${kind}: callback store`, async (t) => {
    const db: OpenTestDatabase = await openTestDatabase(kind);
    t.after(() => db.close());
    const jobs = createJobStore(db.sql);
    const callbacks = createCallbackStore(db.sql);
    const account = await createAccount(db.sql);
    const giveUpAfterMs = 24 * 3600_000;

    await t.test("a callback is due once its job has ended, not while it runs", async () => {
      const running = await jobs.submit(account, ["a@x.test"], { callbackUrl: URL_A, now: t0 });
      const ended = await jobs.submit(account, ["b@x.test"], {
        callbackUrl: URL_A,
        answers: [answer("b@x.test")],
        now: t0,
      });
      const none = await jobs.submit(account, ["c@x.test"], { answers: [answer("c@x.test")], now: t0 });
      const due = await callbacks.claim("a", { limit: 10, leaseMs: 1000, now: at(1) });
      assert.deepEqual(
        due.map((c) => [c.jobId, c.accountId, c.url, c.attempts]),
        [[ended.jobId, account, URL_A, 1]],
      );
      const read = await jobs.read(account, running.jobId, { now: at(1) });
      assert.deepEqual(read?.callback, {
        url: URL_A,
        state: "pending",
        attempts: 0,
        last_status: null,
        last_error: null,
        next_attempt_at: null,
        delivered_at: null,
      });
      assert.equal((await jobs.read(account, none.jobId, { now: at(1) }))?.callback, undefined);
      assert.ok(
        await callbacks.record(
          due[0]!,
          { delivered: true, status: 204, error: null, retryInMs: 0 },
          {
            giveUpAfterMs,
            now: at(2),
          },
        ),
      );
      const delivered = await jobs.read(account, ended.jobId, { now: at(3) });
      assert.deepEqual(delivered?.callback, {
        url: URL_A,
        state: "delivered",
        attempts: 1,
        last_status: 204,
        last_error: null,
        next_attempt_at: null,
        delivered_at: at(2).toISOString(),
      });
      assert.deepEqual(await callbacks.claim("a", { limit: 10, leaseMs: 1000, now: at(10_000) }), [], "never again");
    });

    await t.test(
      "one deliverer at a time; a lease that ran out goes to the next, whose record alone counts",
      async () => {
        const job = await jobs.submit(account, ["d@x.test"], {
          callbackUrl: URL_A,
          answers: [answer("d@x.test")],
          now: at(100_000),
        });
        const now = at(100_001);
        const [first, second] = await Promise.all([
          callbacks.claim("first", { limit: 10, leaseMs: 5000, now }),
          callbacks.claim("second", { limit: 10, leaseMs: 5000, now }),
        ]);
        assert.equal(first!.length + second!.length, 1, "claimed once");
        const held = [...first!, ...second!][0]!;
        assert.deepEqual(await callbacks.claim("third", { limit: 10, leaseMs: 5000, now: at(104_000) }), []);
        // The holder died: its lease runs out and the next deliverer takes the callback, its attempt counted.
        const [taken] = await callbacks.claim("third", { limit: 10, leaseMs: 5000, now: at(106_000) });
        assert.equal(taken?.jobId, job.jobId);
        assert.equal(taken?.attempts, 2);
        const late = await callbacks.record(
          held,
          { delivered: true, status: 200, error: null, retryInMs: 0 },
          {
            giveUpAfterMs,
            now: at(106_500),
          },
        );
        assert.equal(late, false, "the former holder writes nothing");
        assert.ok(
          await callbacks.record(
            taken!,
            { delivered: false, status: 500, error: "the receiver answered 500", retryInMs: 30_000 },
            {
              giveUpAfterMs,
              now: at(107_000),
            },
          ),
        );
        const read = await jobs.read(account, job.jobId, { now: at(107_001) });
        assert.equal(read?.callback?.state, "pending");
        assert.equal(read?.callback?.last_status, 500);
        assert.equal(read?.callback?.next_attempt_at, at(137_000).toISOString());
        assert.deepEqual(await callbacks.claim("x", { limit: 10, leaseMs: 5000, now: at(136_999) }), [], "not yet due");
        const [again] = await callbacks.claim("x", { limit: 10, leaseMs: 5000, now: at(137_000) });
        assert.equal(again?.attempts, 3);
        // A graceful stop hands it back, its attempt uncounted.
        assert.equal(await callbacks.release("x"), 1);
        const [back] = await callbacks.claim("y", { limit: 10, leaseMs: 5000, now: at(137_001) });
        assert.equal(back?.attempts, 3);
        // Given up when the next attempt would come more than a day after the first.
        assert.ok(
          await callbacks.record(
            back!,
            { delivered: false, status: null, error: "no answer", retryInMs: giveUpAfterMs },
            {
              giveUpAfterMs,
              now: at(137_002),
            },
          ),
        );
        const failed = await jobs.read(account, job.jobId, { now: at(137_003) });
        assert.equal(failed?.callback?.state, "failed");
        assert.equal(failed?.callback?.next_attempt_at, null);
      },
    );

    await t.test("a refusal fails the callback at once; the rows go with their job", async () => {
      const job = await jobs.submit(account, ["e@x.test"], {
        callbackUrl: URL_A,
        answers: [answer("e@x.test")],
        now: at(200_000),
      });
      const [due] = await callbacks.claim("a", { limit: 10, leaseMs: 5000, now: at(200_001) });
      assert.equal(due?.jobId, job.jobId);
      await callbacks.record(
        due!,
        { delivered: false, status: null, error: "refused", final: true, retryInMs: 30_000 },
        {
          giveUpAfterMs,
          now: at(200_002),
        },
      );
      assert.equal((await jobs.read(account, job.jobId, { now: at(200_003) }))?.callback?.state, "failed");
      await jobs.sweep({ now: at(72 * 3600_000) });
      const [{ n }] = await db.sql`select count(*)::int as n from job_callbacks`;
      assert.equal(n, 0);
    });

    await t.test(
      "the account's secret is made once, even by concurrent first reads, and rotation keeps the old",
      async () => {
        const secrets = createCallbackSecretStore(db.sql);
        const other = await createAccount(db.sql, "secrets");
        const first = await Promise.all([
          secrets.current(other),
          secrets.current(other),
          secrets.signingSecrets(other),
        ]);
        assert.equal(first[0].secret, first[1].secret);
        assert.deepEqual(first[2], [first[0].secret]);
        assert.equal(first[0].previousExpiresAt, null);
        const rotated = await secrets.rotate(other);
        assert.notEqual(rotated.secret, first[0].secret);
        assert.deepEqual(await secrets.signingSecrets(other), [rotated.secret, first[0].secret]);
        // Once the overlap is over, only the new one signs.
        await db.sql`update callback_secrets set previous_until = clock_timestamp() - interval '1 second'
                   where account_id = ${other}`;
        assert.deepEqual(await secrets.signingSecrets(other), [rotated.secret]);
        assert.equal((await secrets.current(other)).previousExpiresAt, null);
      },
    );
  });
}
