// SMTP probes through a SOCKS5 proxy (RFC 1928, with RFC 1929 username/password): for networks where outbound port
// 25 is blocked, or whose addresses have no reputation. The handshake is the maintained `socks` package's; the socket
// to the proxy is ours, so our own timer bounds the handshake and the caller's signal ends it.
//
// The CONNECT names the IP address the prober's SSRF guard accepted (SmtpTarget.address), never a host name: a proxy
// resolving names would dial whatever its own DNS says, and the guard would no longer hold.
import { connect, isIP, type Socket } from "node:net";
import { SocksClient } from "socks";
import { isTimeoutReason } from "../../async/deadline.ts";
import type { Logger } from "../../log.ts";
import { SmtpError } from "../errors.ts";
import { smtpConnection, type SmtpConnection, type SmtpDialer } from "./dialer.ts";

export interface SocksProxy {
  host: string;
  port: number;
  userId?: string;
  password?: string;
  /** socks5://user@host:port: the proxy named for logs, never with its password. */
  label: string;
}

/**
 * Reads `socks5://[user:pass@]host:port` (port 1080 when absent; user and password percent-decoded). Throws
 * RangeError on anything else: socks5h (the proxy would resolve names) and socks4 are refused.
 *
 * @example
 * parseProxyUrl("socks5://probe:s3cret@10.0.0.2:1080").label; // "socks5://probe@10.0.0.2:1080"
 */
export function parseProxyUrl(text: string): SocksProxy {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new RangeError(`Cannot read proxy: "${redactProxyUrl(text)}" is not a URL`);
  }
  if (url.protocol !== "socks5:") {
    throw new RangeError(`Cannot read proxy: only socks5:// is supported, got "${url.protocol}//"`);
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  if (host === "") throw new RangeError("Cannot read proxy: the URL has no host");
  if (url.pathname !== "" && url.pathname !== "/") throw new RangeError("Cannot read proxy: the URL has a path");
  const port = url.port === "" ? 1080 : Number(url.port);
  const userId = url.username === "" ? undefined : decodeURIComponent(url.username);
  const password = url.password === "" ? undefined : decodeURIComponent(url.password);
  if ((userId ?? "").length > 255 || (password ?? "").length > 255) {
    throw new RangeError("Cannot read proxy: user name and password are at most 255 bytes (RFC 1929)");
  }
  const shown = isIP(host) === 6 ? `[${host}]` : host;
  const label = `socks5://${userId === undefined ? "" : `${encodeURIComponent(userId)}@`}${shown}:${port}`;
  return { host, port, userId, password, label };
}

/** A proxy URL with its password replaced, for messages about a URL that may not even parse. */
export function redactProxyUrl(text: string): string {
  return text.replace(/^([a-z0-9+.-]+:\/\/[^:@/]*):[^@/]*@/i, "$1:***@");
}

export interface SocksDialerOptions {
  proxy: SocksProxy;
  /** Bounds the connection to the proxy and its handshake, then every read of the dialogue (as createNetDialer's). */
  idleTimeoutMs: number;
  log: Logger;
  /** The same failure of the same proxy is logged at most once per this long (default one minute). */
  logEveryMs?: number;
}

// What the `socks` package's client says when the proxy answered CONNECT with a failure: the mail server could not
// be reached through it, which is about the mail server (the proxy works). Everything else is about the proxy.
const DESTINATION_FAILURE =
  /proxy rejected connection - (HostUnreachable|ConnectionRefused|NetworkUnreachable|TTLExpired)/;

// SocksClientState.SentFinalHandshake in the `socks` package: the CONNECT is sent, only the mail server is awaited.
const SENT_CONNECT = 7;

/** A dialer that reaches every target through one SOCKS5 proxy. */
export function createSocksDialer(options: SocksDialerOptions): SmtpDialer {
  const { proxy, idleTimeoutMs, log, logEveryMs = 60_000 } = options;
  if (!Number.isInteger(idleTimeoutMs) || idleTimeoutMs < 1) {
    throw new RangeError("Cannot create SOCKS dialer: idleTimeoutMs must be a positive integer");
  }
  const lastLogged = new Map<string, number>();

  /** One line naming the proxy (never its password) for a failure of the proxy itself, not repeated in a burst. */
  function proxyFailed(why: string): void {
    const now = performance.now();
    const last = lastLogged.get(why);
    if (last !== undefined && now - last < logEveryMs) return;
    lastLogged.set(why, now);
    log.warn("smtp proxy failed", { proxy: proxy.label, error: why });
  }

  return {
    dial(target, { signal }) {
      const what = `connect to ${target.host} through ${proxy.label}`;
      if (isIP(target.address) === 0) {
        // The prober hands over the address its guard accepted; a name here would be resolved by the proxy.
        return Promise.reject(
          new SmtpError("SMTP_TARGET_REFUSED", `Cannot ${what}: ${target.address} is not an IP address`),
        );
      }
      return new Promise<SmtpConnection>((resolve, reject) => {
        if (signal.aborted) {
          const timeout = isTimeoutReason(signal.reason);
          reject(
            new SmtpError(
              timeout ? "SMTP_TIMEOUT" : "SMTP_ABORTED",
              `Cannot ${what}: ${timeout ? "timed out" : "aborted"}`,
            ),
          );
          return;
        }
        let settled = false;
        const socket: Socket = connect({ host: proxy.host, port: proxy.port });
        const client = new SocksClient({
          command: "connect",
          proxy: { host: proxy.host, port: proxy.port, type: 5, userId: proxy.userId, password: proxy.password },
          destination: { host: target.address, port: target.port },
          // Our timer below is the bound; the package's own (unref'd) one only has to stay out of its way.
          timeout: idleTimeoutMs * 2,
        });
        const sentConnect = () => (client as unknown as { state: number }).state >= SENT_CONNECT;
        const done = (error: SmtpError | null) => {
          if (settled) return;
          settled = true;
          signal.removeEventListener("abort", onAbort);
          socket.removeListener("timeout", onTimeout);
          if (error === null) return;
          socket.destroy();
          reject(error);
        };
        const onAbort = () => {
          const timeout = isTimeoutReason(signal.reason);
          if (timeout && !sentConnect()) {
            // The time ran out before the proxy had even taken the CONNECT: the proxy's fault, not the mail
            // server's (which must not be cooled off for it).
            const why = "no answer from the proxy before the deadline";
            proxyFailed(why);
            done(new SmtpError("SMTP_CONNECT", `Cannot ${what}: ${why}`, { cause: signal.reason }));
            return;
          }
          done(
            new SmtpError(
              timeout ? "SMTP_TIMEOUT" : "SMTP_ABORTED",
              `Cannot ${what}: ${timeout ? "timed out" : "aborted"}`,
              {
                cause: signal.reason,
              },
            ),
          );
        };
        const onTimeout = () => {
          if (sentConnect()) {
            done(
              new SmtpError("SMTP_TIMEOUT", `Cannot ${what}: no answer from the mail server for ${idleTimeoutMs} ms`),
            );
            return;
          }
          const why = `no answer from the proxy for ${idleTimeoutMs} ms`;
          proxyFailed(why);
          done(new SmtpError("SMTP_CONNECT", `Cannot ${what}: ${why}`));
        };
        signal.addEventListener("abort", onAbort, { once: true });
        socket.setTimeout(idleTimeoutMs, onTimeout);
        // Until the handshake starts, a socket error (ECONNREFUSED: the proxy is down) is ours to report; from then
        // on the client reports it, as its own error.
        let handshaking = false;
        socket.once("connect", () => {
          if (settled) return;
          handshaking = true;
          client.connect(socket);
        });
        socket.on("error", (error) => {
          if (handshaking || settled) return;
          const code = (error as NodeJS.ErrnoException).code ?? error.message;
          proxyFailed(code);
          done(new SmtpError("SMTP_CONNECT", `Cannot ${what}: ${code}`, { cause: error }));
        });
        client.once("error", (error) => {
          if (settled) return; // our own abort or time-out closed the socket under the handshake
          const message = error.message;
          if (!DESTINATION_FAILURE.test(message)) proxyFailed(message);
          done(new SmtpError("SMTP_CONNECT", `Cannot ${what}: ${message}`, { cause: error }));
        });
        client.once("established", ({ socket: established }) => {
          if (settled) {
            established.destroy();
            return;
          }
          done(null);
          resolve(smtpConnection(established, { idleTimeoutMs }));
        });
      });
    },
  };
}
