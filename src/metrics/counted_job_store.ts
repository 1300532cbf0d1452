// The job runner's store with counters: items claimed, items given their final answer (by verdict), and leases found
// run out at claim time. Submission is counted where jobs are accepted (the API process), not here.
import type { JobStore } from "../jobs/job_store.ts";
import type { Metrics } from "./metrics.ts";

/** `store`, its claims and completions recorded in the vrai_bulk_* counters. */
export function countedJobStore(store: JobStore, metrics: Metrics): JobStore {
  return {
    ...store,
    async claim(owner, options) {
      const items = await store.claim(owner, {
        ...options,
        onLeaseExpired: (n) => {
          metrics.leaseExpired(n);
          options.onLeaseExpired?.(n);
        },
      });
      if (items.length > 0) metrics.bulkClaimed(items.length);
      return items;
    },
    async complete(item, options) {
      const written = await store.complete(item, options);
      if (written) metrics.bulkDone(options.result.verdict);
      return written;
    },
    async settle(settlements, options) {
      const written = await store.settle(settlements, options);
      settlements.forEach((s, i) => {
        if (written[i] && "result" in s) metrics.bulkDone(s.result.verdict);
      });
      return written;
    },
  };
}
