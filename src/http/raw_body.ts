// Bodies that skip the web-stream machinery of Request and Response, which costs more than the rest of a test-mode
// call. serve.ts reads the request body into a Buffer before the handler runs and json()/problem() know their body as
// a string, so both are handed over through these maps; anything else goes through the standard streams.
const requestBodies = new WeakMap<Request, Buffer>();
const responseBodies = new WeakMap<Response, string>();

export function attachRequestBody(request: Request, body: Buffer): void {
  requestBodies.set(request, body);
}

export async function requestBytes(request: Request): Promise<Uint8Array> {
  return requestBodies.get(request) ?? new Uint8Array(await request.arrayBuffer());
}

export function textResponse(body: string, init: ResponseInit): Response {
  const response = new Response(body, init);
  responseBodies.set(response, body);
  return response;
}

export async function responseBytes(response: Response): Promise<Buffer> {
  const text = responseBodies.get(response);
  return text !== undefined ? Buffer.from(text) : Buffer.from(await response.arrayBuffer());
}
