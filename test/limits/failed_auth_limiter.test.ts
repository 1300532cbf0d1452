import { test } from "node:test";
import assert from "node:assert/strict";
import { clientBucket, createFailedAuthLimiter } from "../../src/limits/failed_auth_limiter.ts";

test("createFailedAuthLimiter() refuses an address after perMinute failures and gives one back every 60/perMinute s", () => {
  let clock = 1_000_000;
  const limiter = createFailedAuthLimiter({ perMinute: 3, now: () => clock });
  const address = "203.0.113.7";
  for (let i = 0; i < 3; i++) {
    assert.equal(limiter.retryAfter(address), 0, `before failure ${i + 1}`);
    limiter.fail(address);
  }
  assert.equal(limiter.retryAfter(address), 20);
  clock += 5_000;
  assert.equal(limiter.retryAfter(address), 15);
  clock += 15_000;
  assert.equal(limiter.retryAfter(address), 0);
  limiter.fail(address);
  assert.equal(limiter.retryAfter(address), 20);
  clock += 60_000;
  for (let i = 0; i < 3; i++) limiter.fail(address);
  assert.equal(limiter.retryAfter(address), 20, "a full minute gives the whole allowance back, no more");
  assert.equal(limiter.retryAfter("203.0.113.8"), 0, "another address has its own");
});

test("createFailedAuthLimiter() counts IPv6 clients per /64 and IPv4-mapped ones as IPv4", () => {
  const limiter = createFailedAuthLimiter({ perMinute: 1, now: () => 0 });
  limiter.fail("2001:db8:1:2:aaaa::1");
  assert.ok(limiter.retryAfter("2001:db8:1:2:bbbb::2") > 0, "same /64");
  assert.equal(limiter.retryAfter("2001:db8:1:3::1"), 0, "another /64");
  limiter.fail("::ffff:192.0.2.1");
  assert.ok(limiter.retryAfter("192.0.2.1") > 0);
  assert.equal(clientBucket("2001:0db8:0001:0002::1"), clientBucket("2001:db8:1:2:ffff:ffff:ffff:ffff"));
});

test("createFailedAuthLimiter() remembers at most `max` addresses, the least recently seen forgotten first", () => {
  const limiter = createFailedAuthLimiter({ perMinute: 1, max: 2, now: () => 0 });
  limiter.fail("192.0.2.1");
  limiter.fail("192.0.2.2");
  limiter.fail("192.0.2.3");
  assert.equal(limiter.retryAfter("192.0.2.1"), 0, "forgotten");
  assert.ok(limiter.retryAfter("192.0.2.3") > 0);
});

test("createFailedAuthLimiter() with perMinute 0 never refuses, and refuses bad options", () => {
  const off = createFailedAuthLimiter({ perMinute: 0 });
  for (let i = 0; i < 100; i++) off.fail("192.0.2.1");
  assert.equal(off.retryAfter("192.0.2.1"), 0);
  assert.throws(() => createFailedAuthLimiter({ perMinute: -1 }), RangeError);
  assert.throws(() => createFailedAuthLimiter({ perMinute: 1.5 }), RangeError);
  assert.throws(() => createFailedAuthLimiter({ perMinute: 1, max: 0 }), RangeError);
});
