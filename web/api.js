// Calls to this server's API with the key from the page: always in the Authorization header, never in a URL. Answers
// come back as { ok, status, data }, problem documents (RFC 9457) included as data, so that every view shows the
// server's own words when a call is refused.

/** Thrown when a call needs a key and none was pasted. */
export class MissingKey extends Error {}

export async function callApi(key, method, path, { body, headers = {}, accept = "application/json" } = {}) {
  if (!key) throw new MissingKey("no key");
  const init = { method, headers: { accept, authorization: `Bearer ${key}`, ...headers }, credentials: "omit" };
  if (body !== undefined) {
    init.body = body instanceof Blob ? body : JSON.stringify(body);
    if (!(body instanceof Blob)) init.headers["content-type"] = "application/json";
  }
  const response = await fetch(path, init);
  const type = response.headers.get("content-type") ?? "";
  const data = /json/.test(type) ? await response.json() : await response.blob();
  return { ok: response.ok, status: response.status, data, headers: response.headers };
}

/** A refusal in words: the problem document's title and detail, or the status alone. */
export function problemText(answer) {
  const data = answer.data;
  if (data && typeof data === "object" && "title" in data) return `${data.title}: ${data.detail ?? ""}`.trim();
  return `HTTP ${answer.status}`;
}
