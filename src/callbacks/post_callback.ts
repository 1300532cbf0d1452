// One attempt at a completion callback: resolve the host, check every address it resolves to against the callback
// policy (callback_target.ts), then POST to the address checked (undici, a lookup that answers only that address, so
// no second DNS answer can slip in between), all of it within one deadline of ours. No redirect is followed: a 3xx is
// an attempt that failed, as it is for Stripe's webhooks.
import { isIP } from "node:net";
import { Agent, request } from "undici";
import { deadline, isTimeoutReason } from "../async/deadline.ts";
import { DnsError } from "../email/errors.ts";
import type { MxResolver } from "../email/net/mx_resolver.ts";
import {
  callbackUrlProblem,
  isLocalhostName,
  literalAddress,
  refusedAddress,
  type CallbackPolicy,
} from "./callback_target.ts";

export interface PostCallbackOptions {
  body: string;
  headers: Record<string, string>;
  policy: CallbackPolicy;
  resolver: Pick<MxResolver, "resolveAddresses">;
  /** Bound on the whole attempt: resolution, connection, TLS, the answer's status and its body. */
  timeoutMs: number;
  /** Aborts the attempt (the deliverer stops). */
  signal?: AbortSignal;
  /** Certificate authorities trusted instead of Node's own (tests); unset: Node's. */
  tlsCa?: string;
}

/** What came of it: the receiver's status, a refusal by policy (final), or a failure to reach it (retried). */
export type PostOutcome = { status: number } | { refused: string } | { error: string };

/** The receiver's answer body is read up to this and dropped: only its status counts. */
const ANSWER_BODY_LIMIT = 64 * 1024;

export async function postCallback(url: string, options: PostCallbackOptions): Promise<PostOutcome> {
  const { body, headers, policy, resolver, timeoutMs, signal, tlsCa } = options;
  const limit = deadline(timeoutMs, { parents: [signal], what: "deliver the callback" });
  let agent: Agent | undefined;
  try {
    // Judged again: the operator's settings may have changed since the job was submitted.
    const problem = callbackUrlProblem(url, policy);
    if (problem !== undefined) return { refused: `callback_url ${problem}` };
    const { hostname } = new URL(url);
    const address = literalAddress(hostname) ?? (isLocalhostName(hostname) ? "127.0.0.1" : undefined);
    let target: string;
    if (address !== undefined) target = address;
    else {
      const addresses = await resolver.resolveAddresses(hostname, { signal: limit.signal });
      const refused = addresses.map((a) => refusedAddress(a, policy)).find((why) => why !== undefined);
      if (refused !== undefined) return { refused: `${hostname} resolves to ${refused}` };
      target = addresses[0]!;
    }
    const family = isIP(target);
    agent = new Agent({
      connect: {
        ...(tlsCa === undefined ? {} : { ca: tlsCa }),
        // Node's autoSelectFamily asks for every address (`all`); either way the one answer is the address checked.
        lookup: (_host: string, lookupOptions: { all?: boolean }, done: (...args: unknown[]) => void) => {
          if (lookupOptions?.all) done(null, [{ address: target, family }]);
          else done(null, target, family);
        },
      } as never,
    });
    const response = await request(url, {
      method: "POST",
      body,
      headers,
      dispatcher: agent,
      signal: limit.signal,
    });
    await response.body.dump({ limit: ANSWER_BODY_LIMIT, signal: limit.signal }).catch(() => {});
    return { status: response.statusCode };
  } catch (error) {
    if (limit.signal.aborted && isTimeoutReason(limit.signal.reason)) {
      return { error: `no answer within ${timeoutMs} ms` };
    }
    if (limit.signal.aborted) throw limit.signal.reason;
    if (error instanceof DnsError) return { error: `cannot resolve the host (${error.code})` };
    // The code or the error's name, never its message: it may quote the URL, whose path and query are the receiver's.
    const { code, name } = error as { code?: unknown; name?: unknown };
    return { error: `cannot reach the receiver (${typeof code === "string" ? code : String(name ?? "error")})` };
  } finally {
    limit.dispose();
    // Nothing of the attempt outlives it: the connection goes with its agent.
    void agent?.destroy().catch(() => {});
  }
}
