// Where a completion callback may be sent: https anywhere public, plain http only to the hosts an operator lists, and
// never into a private, loopback or link-local network unless the operator allows that range. The ranges are judged
// by the guard of SMTP probes (email/net/cidr.ts), so a callback cannot reach what an MX record could not either.
//
// A URL is judged twice: at submission as written (an IP literal or a localhost name is refused at once, with a 400),
// and at each delivery on the addresses its host resolves to, every one of which must pass; the POST then connects to
// the address that was checked, never to a second lookup's answer (DNS rebinding).
import { isIP } from "node:net";
import { addressRange, isProbeTarget, parseCidr, type Cidr } from "../email/net/cidr.ts";

export interface CallbackPolicy {
  /** CALLBACK_ALLOW_CIDRS: ranges a callback may reach although private, loopback or link-local. */
  allowCidrs: readonly Cidr[];
  /** CALLBACK_ALLOW_HTTP_HOSTS: hosts (names or addresses, as URLs write them) plain http may be sent to. */
  allowHttpHosts: ReadonlySet<string>;
}

/** Longer URLs are refused: a receiver's address, not a place to carry data. */
export const CALLBACK_URL_MAX_LENGTH = 2048;

/** The policy of the configuration's two lists; throws RangeError naming a bad entry. */
export function callbackPolicy(options: {
  allowCidrs: readonly string[];
  allowHttpHosts: readonly string[];
}): CallbackPolicy {
  const allowCidrs = options.allowCidrs.map((text) => {
    try {
      return parseCidr(text);
    } catch (error) {
      throw new RangeError(`Cannot read configuration: CALLBACK_ALLOW_CIDRS entry "${text}" is not a CIDR range`, {
        cause: error,
      });
    }
  });
  const allowHttpHosts = new Set(
    options.allowHttpHosts.map((host) => {
      // Written as a URL would write it: lower case, IPv6 in brackets, IPv4 in its dotted form.
      try {
        return new URL(`http://${isIP(host) === 6 ? `[${host}]` : host}/`).hostname;
      } catch (error) {
        throw new RangeError(`Cannot read configuration: CALLBACK_ALLOW_HTTP_HOSTS entry "${host}" is not a host`, {
          cause: error,
        });
      }
    }),
  );
  return { allowCidrs, allowHttpHosts };
}

/** The address part of a URL's hostname ("[::1]" is ::1), or undefined for a name. */
export function literalAddress(hostname: string): string | undefined {
  const bare = hostname.startsWith("[") ? hostname.slice(1, -1) : hostname;
  return isIP(bare) === 0 ? undefined : bare;
}

/** RFC 6761 §6.3: localhost names are this machine, whatever a resolver says (written fully qualified too). */
export function isLocalhostName(hostname: string): boolean {
  const name = hostname.replace(/\.+$/, "");
  return name === "localhost" || name.endsWith(".localhost");
}

/** Why `ip` may not be reached, or undefined when it may. */
export function refusedAddress(ip: string, policy: CallbackPolicy): string | undefined {
  if (isProbeTarget(ip, policy.allowCidrs)) return undefined;
  return `${ip} is a ${addressRange(ip)} address`;
}

/**
 * Why `text` cannot be a callback URL, in words that complete "callback_url …", or undefined when it can be one (its
 * host's addresses are checked again at each delivery).
 */
export function callbackUrlProblem(text: string, policy: CallbackPolicy): string | undefined {
  if (text.length > CALLBACK_URL_MAX_LENGTH) return `is longer than ${CALLBACK_URL_MAX_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "is not an absolute URL";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "must be an https URL";
  if (url.protocol === "http:" && !policy.allowHttpHosts.has(url.hostname)) {
    return "must be an https URL (plain http only to the hosts this server's operator allows)";
  }
  // The signature authenticates the call; a password in the URL would be shown by every read of the job.
  if (url.username !== "" || url.password !== "") return "must not carry a user name or password";
  const literal = literalAddress(url.hostname);
  if (literal !== undefined) {
    const refused = refusedAddress(literal, policy);
    return refused === undefined ? undefined : `must not point at a private or loopback address (${refused})`;
  }
  if (isLocalhostName(url.hostname) && refusedAddress("127.0.0.1", policy) !== undefined) {
    return "must not point at this machine (localhost)";
  }
  return undefined;
}

/** The host of a URL, for logs: never its path or query, which may carry the receiver's tokens. */
export function hostOf(text: string): string {
  try {
    return new URL(text).host;
  } catch {
    return "(invalid)";
  }
}
