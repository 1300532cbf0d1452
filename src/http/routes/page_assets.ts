// The page for people (GET / in a browser) and the files it loads: web/ of this repository, and the API reference
// renderer from node_modules (swagger-ui-dist, docs/decisions.md "The page"). Nothing is built: the files are served
// as they are, gzipped once in memory when the client takes gzip. Every answer carries a Content-Security-Policy
// that lets the page load and call its own origin only, with no inline script; the API's answers carry none of these
// headers (their CORS behaviour is unchanged: none is sent).
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { projectFile } from "../../paths.ts";
import { HttpError } from "../errors.ts";
import { decodeSegment } from "../router.ts";

/**
 * Only the page's own origin: scripts from files (no inline script, no eval), styles from files (style attributes in
 * markup refused; scripts may still set element.style), and images from files or `data:` (the reference renderer's
 * icons are data: URIs in its stylesheet, which load nothing from anywhere). No framing, no <base>, no plugins.
 */
export const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const PAGE_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": PAGE_CSP,
  "x-content-type-options": "nosniff",
  // The page's URL never holds a key, but nothing about it needs to leave either.
  "referrer-policy": "no-referrer",
  // Revalidated on each load (cheap: 304 by ETag), so that an upgrade is seen at once.
  "cache-control": "no-cache",
};

const TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
};

/** The files of the reference renderer the page loads (its bundle and stylesheet), out of everything the package has. */
const RENDERER_FILES = ["swagger-ui-bundle.js", "swagger-ui.css"] as const;

interface Asset {
  type: string;
  bytes: Buffer;
  /** Made on the first gzip request: most of these files shrink to a quarter. */
  gzipped?: Buffer;
  etag: string;
}

function typeOf(name: string): string | undefined {
  const dot = name.lastIndexOf(".");
  return dot < 0 ? undefined : TYPES[name.slice(dot)];
}

function load(path: string, type: string): Asset {
  const bytes = readFileSync(path);
  return { type, bytes, etag: `"${createHash("sha256").update(bytes).digest("base64url").slice(0, 22)}"` };
}

/** The folder of an installed package, found as node finds it from this module (source or compiled alike). */
function packageFolder(name: string): string {
  return dirname(createRequire(import.meta.url).resolve(`${name}/package.json`));
}

/** Every file web/ holds with a type the page uses, by name; read once, at the first request. */
function pageFiles(): Map<string, string> {
  const folder = fileURLToPath(projectFile("web/"));
  const files = new Map<string, string>();
  for (const name of readdirSync(folder)) if (typeOf(name) !== undefined) files.set(name, join(folder, name));
  return files;
}

/** True when Accept-Encoding takes gzip (by name or `*`) with a quality above zero. */
function acceptsGzip(request: Request): boolean {
  for (const item of (request.headers.get("accept-encoding") ?? "").split(",")) {
    const [coding = "", ...params] = item.split(";").map((part) => part.trim().toLowerCase());
    if (coding !== "gzip" && coding !== "*") continue;
    const q = params.find((p) => p.startsWith("q="));
    if (q === undefined || Number(q.slice(2)) > 0) return true;
  }
  return false;
}

function answer(request: Request, asset: Asset): Response {
  const headers: Record<string, string> = { ...PAGE_HEADERS, "content-type": asset.type, etag: asset.etag };
  headers.vary = "accept-encoding";
  if (request.headers.get("if-none-match") === asset.etag) return new Response(null, { status: 304, headers });
  if (acceptsGzip(request) && asset.bytes.length > 1024) {
    asset.gzipped ??= gzipSync(asset.bytes);
    headers["content-encoding"] = "gzip";
    return new Response(new Uint8Array(asset.gzipped), { headers });
  }
  return new Response(new Uint8Array(asset.bytes), { headers });
}

export interface PageAssets {
  /** GET /: the page itself. */
  page(request: Request): Response;
  /** GET /assets/:name: a file of web/. */
  file(request: Request, params: Record<string, string>): Response;
  /** GET /assets/swagger-ui/:name: a file of the reference renderer. */
  renderer(request: Request, params: Record<string, string>): Response;
}

export function pageAssets(): PageAssets {
  const cache = new Map<string, Asset>();
  let files: Map<string, string> | undefined;
  let rendererFolder: string | undefined;
  const cached = (key: string, path: string, type: string): Asset => {
    let asset = cache.get(key);
    if (asset === undefined) cache.set(key, (asset = load(path, type)));
    return asset;
  };
  const notFound = (name: string | undefined) =>
    new HttpError("not-found", `Cannot find /assets/${name ?? ""}: the page has no such file`);
  return {
    page(request) {
      files ??= pageFiles();
      return answer(request, cached("index.html", files.get("index.html")!, TYPES[".html"]!));
    },
    file(request, params) {
      files ??= pageFiles();
      const name = decodeSegment(params.name!);
      const path = name === undefined ? undefined : files.get(name);
      if (name === undefined || path === undefined) throw notFound(name);
      return answer(request, cached(name, path, typeOf(name)!));
    },
    renderer(request, params) {
      const name = decodeSegment(params.name!);
      if (name === undefined || !(RENDERER_FILES as readonly string[]).includes(name)) {
        throw notFound(`swagger-ui/${name ?? ""}`);
      }
      rendererFolder ??= packageFolder("swagger-ui-dist");
      return answer(request, cached(`swagger-ui/${name}`, join(rendererFolder, name), typeOf(name)!));
    },
  };
}
