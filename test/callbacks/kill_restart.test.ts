// `npm start` killed with SIGKILL while a callback is in flight, then started again on the same STATE_DIR: the
// callback's row, leased by the dead process, is taken back at start and sent again, and the job read counts both
// attempts. Nothing about it lived only in the dead process.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKeyWithCli, startServerProcess } from "../helpers/process.ts";
import { eventually } from "../helpers/eventually.ts";
import { RESERVED_EMAILS } from "../../src/testmode/email.ts";
import { verifySignature } from "../../src/callbacks/signature.ts";
import { startReceiver } from "./receiver.ts";

test("a callback in flight when its server is killed is sent again by the restarted server", async (t) => {
  // The first call is held unanswered, as a slow receiver would: the process dies in the middle of it.
  const receiver = await startReceiver(["silent", 200]);
  t.after(() => receiver.close());
  const env = {
    STATE_DIR: mkdtempSync(join(tmpdir(), "vrai-callback-kill-")),
    CALLBACK_ALLOW_CIDRS: "127.0.0.0/8",
    CALLBACK_ALLOW_HTTP_HOSTS: "127.0.0.1",
    CALLBACK_TIMEOUT_MS: "120000",
  };
  // A test key's job is stored already completed: its callback is due at once, with no network check to wait for.
  const key = await createKeyWithCli(env, ["--account", "callbacks", "--mode", "test"]);
  const headers = { "content-type": "application/json", authorization: `Bearer ${key}` };

  const first = await startServerProcess(t, env);
  const secret = (await (await fetch(`${first.url}/v1/account/callback-secret`, { headers })).json()).secret;
  const submitted = await fetch(`${first.url}/v1/email/bulk`, {
    method: "POST",
    headers,
    body: JSON.stringify({ emails: RESERVED_EMAILS, callback_url: `${receiver.url}/hook` }),
  });
  assert.equal(submitted.status, 202);
  const { job_id } = await submitted.json();
  await receiver.received(1, 30_000);
  const inFlight = await (await fetch(`${first.url}/v1/jobs/${job_id}`, { headers })).json();
  assert.deepEqual([inFlight.callback.state, inFlight.callback.attempts], ["pending", 1]);
  first.child.kill("SIGKILL");
  await first.exited;

  const second = await startServerProcess(t, env);
  const job = await eventually(
    "the restarted server to deliver the callback",
    async () => (await fetch(`${second.url}/v1/jobs/${job_id}`, { headers })).json(),
    {
      until: (job) => job.callback?.state === "delivered",
      timeoutMs: 30_000,
      intervalMs: 100,
      describe: (job) => JSON.stringify(job.callback),
    },
  );
  assert.equal(job.callback.attempts, 2, "the attempt the dead process made counts");
  assert.equal(job.callback.last_status, 200);
  assert.equal(receiver.calls.length, 2);
  const [dead, delivered] = receiver.calls;
  assert.equal(dead!.body, delivered!.body, "the same notice");
  assert.ok(verifySignature(String(delivered!.headers["vrai-signature"]), delivered!.body, secret));
});
