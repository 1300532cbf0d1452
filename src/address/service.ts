// The address service the HTTP layer uses: index ensured and loaded once into shared memory, reference lookups
// packed once into shared memory, matching on the piscina pool (config.workers threads).
import type { Config } from "../config.ts";
import { silentLogger, type Logger } from "../log.ts";
import { Batcher } from "./batcher.ts";
import { ensureIndexes } from "./load.ts";
import { createMatchPool } from "./pool.ts";
import { cachedReference } from "./reference/compile.ts";
import type { AddressInput, AddressVerification } from "./types.ts";

export interface AddressService {
  verify(input: AddressInput, options?: { signal?: AbortSignal }): Promise<AddressVerification>;
  /** true once the index of every configured département is loaded. */
  readonly ready: boolean;
  /**
   * Configured départements left without an index (offline, no BAN file): addresses there answer unknown
   * (postcode_not_covered). The service serves all the same; /readyz lists them.
   */
  readonly missing: readonly string[];
  close(): Promise<void>;
}

/** Makes sure config.banDepartements are indexed under config.banIndexDir (importing from config.banSource when
 *  missing; offline with nothing indexed: one clear warning, serve with unknown/postcode_not_covered), loads the index
 *  once into shared memory, starts the piscina pool (config.workers threads). */
export async function createAddressService(config: Config, options: { log?: Logger } = {}): Promise<AddressService> {
  const { log = silentLogger } = options;
  const started = performance.now();
  const loaded = await ensureIndexes({
    departements: config.banDepartements,
    banSource: config.banSource,
    indexDir: config.banIndexDir,
    log,
  });
  const referenceBuffer = cachedReference(config.banIndexDir);
  const pool = createMatchPool({ indexBuffers: loaded.buffers, referenceBuffer }, { threads: config.workers });
  // One task per thread before answering ready, so that the first requests do not pay the workers' start.
  await Promise.all(Array.from({ length: config.workers }, () => pool.run({ inputs: [] })));
  // The signal is not handed to piscina: aborting a running task there terminates its thread (and the tasks queued
  // behind it), a high price for a match of a few microseconds. The batcher answers an abort at once instead.
  const batcher = new Batcher((inputs) => pool.run({ inputs }) as Promise<AddressVerification[]>);
  let ready = loaded.missing.length === 0;
  log.info("address service ready", {
    departements: loaded.departements,
    index_bytes: loaded.buffers.reduce((n, b) => n + b.byteLength, 0),
    workers: config.workers,
    ms: Math.round(performance.now() - started),
  });
  return {
    get ready() {
      return ready;
    },
    missing: loaded.missing,
    async verify(input, opts = {}) {
      const t0 = performance.now();
      const result = await batcher.submit(input, { signal: opts.signal });
      return { ...result, duration_ms: Math.round(performance.now() - t0) };
    },
    async close() {
      ready = false;
      await pool.destroy();
    },
  };
}
