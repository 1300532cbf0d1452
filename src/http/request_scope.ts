// What one request carries through the service: its id (X-Request-Id, docs/decisions.md "Logs"), a logger whose
// lines carry that id, and who called, for the request line. app.ts opens the scope of every request; code that
// serves it finds it by the request (scopeOf) and hands its logger down, so that the lines written for this request
// (the email engine's probe lines included) carry its id. A Request handed to the app by a test works the same.
import { randomUUID } from "node:crypto";
import type { Logger } from "../log.ts";

export const REQUEST_ID_HEADER = "x-request-id";

/**
 * An id a client may choose: 1 to 128 characters of letters, digits, `.`, `_`, `:` and `-`. That covers UUIDs,
 * ULIDs, W3C trace ids and the ids proxies add (`<trace>:<span>`), and keeps anything that could forge a log line
 * or a header (spaces, quotes, control characters, commas of repeated headers) out.
 */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The client's X-Request-Id when it is sane, otherwise a new UUID. */
export function requestIdFrom(header: string | null | undefined): string {
  return header != null && SANE_REQUEST_ID.test(header) ? header : randomUUID();
}

export class RequestScope {
  #log: Logger | undefined;
  /** Who called, once the key is known: account name and key prefix (never the key itself). */
  account: string | undefined;
  keyPrefix: string | undefined;

  constructor(
    readonly id: string,
    private readonly root: Logger,
  ) {}

  /** Lines written for this request: they carry `request_id`. Built on first use (most calls write only one line). */
  get log(): Logger {
    return (this.#log ??= this.root.child({ request_id: this.id }));
  }
}

const scopes = new WeakMap<object, RequestScope>();

/** Opens the scope of a request, with the id taken from its X-Request-Id header or generated. */
export function openScope(request: Request, root: Logger): RequestScope {
  const scope = new RequestScope(requestIdFrom(request.headers.get(REQUEST_ID_HEADER)), root);
  scopes.set(request, scope);
  return scope;
}

/** The scope app.ts opened for this request; undefined for a request it never saw (a handler called directly). */
export function scopeOf(request: Request): RequestScope | undefined {
  return scopes.get(request);
}
