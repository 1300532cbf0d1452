// What the address service says about its street index, for /readyz and for the calls it cannot answer yet.

/** Where one import stands: the département being read, its rows so far and the share of the source read. */
export interface ImportStatus {
  departement: string;
  rows: number;
  /** Percent of the source's bytes read; null when its size is not known (a download without Content-Length). */
  percent: number | null;
}

export interface AddressIndexStatus {
  /**
   * `loading`: reading the indexes and starting the worker threads (calls wait for it, a second or so);
   * `importing`: building the indexes of configured départements from BAN_SOURCE; `serving`: answering from the
   * indexes in `departements`.
   */
  phase: "loading" | "importing" | "serving";
  /** False during a first import (no index existed): calls then answer 503 service-unavailable. */
  answering: boolean;
  /** Départements indexed and answered. */
  departements: readonly string[];
  /** Configured départements being imported now. */
  importing: readonly string[];
  /** The import under way, once it has read rows. */
  progress: ImportStatus | null;
  /** Configured départements left without an index (the import failed): they answer unknown (postcode_not_covered). */
  missing: readonly string[];
}

/** Retry-After, in seconds, of what answers 503 during a first import (the calls, /readyz). */
export const IMPORT_RETRY_AFTER_SECONDS = 5;

/** Thrown by verify() while no index can answer (a first import): the HTTP layer answers 503 with Retry-After. */
export class AddressIndexUnavailableError extends Error {
  readonly code = "ADDRESS_INDEX_IMPORTING";
  readonly retryAfterSeconds: number;
  constructor(importing: readonly string[], retryAfterSeconds: number) {
    super(`Cannot verify the address yet: the street index of ${importing.join(", ")} is being imported`);
    this.name = "AddressIndexUnavailableError";
    this.retryAfterSeconds = retryAfterSeconds;
  }
}
