// In-process news of bulk jobs: a runner says "rows of this job were just written" after each write that counted
// them on the job, and a job read waiting for that job's end (`Prefer: wait=N`, http/job_wait.ts) re-reads the job's
// status at once instead of at its next periodic check. The runners cannot tell cheaply which write is a job's last
// (the store finishes the job in the same statement, and chunks end out of order), so every write is news and the
// waiter's one status query decides; a job with nobody waiting costs a map lookup per write.
//
// Only this process hears it: a job worked by another process sharing the database is seen by the waiter's periodic
// re-read of the status.

export interface JobProgress {
  /** Rows of the job were written (perhaps its last): its waiters look at its status again. */
  wrote(jobId: string): void;
  /** Calls `fn` at each write of the job's rows until the returned function is called. */
  listen(jobId: string, fn: () => void): () => void;
}

export function createJobProgress(): JobProgress {
  const listeners = new Map<string, Set<() => void>>();
  return {
    wrote(jobId) {
      const set = listeners.get(jobId);
      if (set === undefined) return;
      for (const fn of [...set]) fn();
    },
    listen(jobId, fn) {
      let set = listeners.get(jobId);
      if (set === undefined) {
        set = new Set();
        listeners.set(jobId, set);
      }
      set.add(fn);
      return () => {
        const current = listeners.get(jobId);
        if (current === undefined) return;
        current.delete(fn);
        if (current.size === 0) listeners.delete(jobId);
      };
    },
  };
}

/**
 * The process's one notifier: the runners and the HTTP app of a process share it unless given their own. Job ids are
 * random UUIDs, so several apps in one process (tests) never hear each other's jobs.
 */
export const processJobProgress: JobProgress = createJobProgress();
