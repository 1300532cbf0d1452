// Request and Response shaped like the web's, without the cost of building undici's: on Node 20 `new Request()` and
// `new Response()` each cost tens of microseconds (body streams, signals), more than a whole test-mode call. serve.ts
// hands the app a LightRequest, and json()/problem() answer LightResponses, which it writes without streams. Handlers
// see the web surface they use (method, url, headers.get, signal, arrayBuffer/json/text), the same technique as
// Hono's node adapter; code that is given a real Request or Response (tests, other adapters) works unchanged.
import type { IncomingHttpHeaders } from "node:http";
import type { Readable } from "node:stream";

/** Read-only Headers over node's parsed header object (names already lower-case). */
class NodeHeaders {
  constructor(private readonly raw: IncomingHttpHeaders) {}
  get(name: string): string | null {
    const value = this.raw[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(", ") : value;
  }
  has(name: string): boolean {
    return this.raw[name.toLowerCase()] !== undefined;
  }
  forEach(callback: (value: string, name: string) => void): void {
    for (const name of Object.keys(this.raw)) callback(this.get(name)!, name);
  }
}

export class LightRequest {
  readonly headers: Headers;
  #controller: AbortController | undefined;
  #aborted = false;
  constructor(
    readonly method: string,
    readonly url: string,
    headers: IncomingHttpHeaders,
    private readonly rawBody: Buffer | undefined,
    /** The client's address as the socket reports it (not a header): what failed authentications are counted by. */
    readonly remoteAddress: string | undefined = undefined,
    /**
     * The body still unread, for the routes that read it as it arrives (bulk uploads, body.ts STREAMED_PATHS): it is
     * never held whole, and is only read once the caller is admitted.
     */
    private readonly bodyStream: Readable | undefined = undefined,
  ) {
    this.headers = new NodeHeaders(headers) as unknown as Headers;
  }
  /** Aborted when the client goes away; built only for handlers that ask (most calls never do). */
  get signal(): AbortSignal {
    this.#controller ??= new AbortController();
    if (this.#aborted) this.#controller.abort();
    return this.#controller.signal;
  }
  abort(): void {
    this.#aborted = true;
    this.#controller?.abort();
  }
  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = this.bytes();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }
  async text(): Promise<string> {
    return new TextDecoder().decode(this.bytes());
  }
  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }
  bytes(): Uint8Array {
    if (this.bodyStream !== undefined) throw new TypeError("Cannot read the body whole: it is read as it arrives");
    return this.rawBody ?? new Uint8Array(0);
  }
  /** The body as it arrives: the stream of a streamed request, else the bytes read already. */
  async *chunks(): AsyncGenerator<Uint8Array> {
    if (this.bodyStream === undefined) {
      const bytes = this.bytes();
      if (bytes.byteLength > 0) yield bytes;
      return;
    }
    for await (const chunk of this.bodyStream) yield chunk as Uint8Array;
  }
}

export class LightResponse {
  #headers: Headers | undefined;
  constructor(
    readonly bodyText: string,
    readonly status: number,
    /** Lower-case names. */
    readonly rawHeaders: Record<string, string>,
  ) {}
  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }
  get headers(): Headers {
    return (this.#headers ??= new Headers(this.rawHeaders));
  }
  async text(): Promise<string> {
    return this.bodyText;
  }
  async json(): Promise<unknown> {
    return JSON.parse(this.bodyText);
  }
  async arrayBuffer(): Promise<ArrayBuffer> {
    return new TextEncoder().encode(this.bodyText).buffer as ArrayBuffer;
  }
}

/** The body as it arrives, from a LightRequest (streamed or read), from any other Request through its stream. */
export async function* requestChunks(request: Request): AsyncGenerator<Uint8Array> {
  if (request instanceof LightRequest) {
    yield* request.chunks();
    return;
  }
  if (request.body === null) return;
  for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) yield chunk;
}

/** The bytes of a request body, from a LightRequest without copying, from any other Request through its stream. */
export async function requestBytes(request: Request): Promise<Uint8Array> {
  if (request instanceof LightRequest) return request.bytes();
  return new Uint8Array(await request.arrayBuffer());
}

export function textResponse(body: string, status: number, headers: Record<string, string>): Response {
  return new LightResponse(body, status, headers) as unknown as Response;
}

/** The path of an absolute URL without building a URL object. */
export function pathnameOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const end = url.indexOf("?", start);
  return end < 0 ? url.slice(start) : url.slice(start, end);
}

/** Answers made to be written as they are produced (serve.ts), never held whole: a job's CSV results. */
const STREAMED = new WeakSet<Response>();

/** A Response whose body serve.ts writes chunk by chunk, without a Content-Length, as the client takes it. */
export function streamedResponse(body: ReadableStream<Uint8Array>, init: ResponseInit): Response {
  const response = new Response(body, init);
  STREAMED.add(response);
  return response;
}

export function isStreamedResponse(response: Response): boolean {
  return STREAMED.has(response);
}
