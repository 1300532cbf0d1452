// A small file system of its own for one test (a tmpfs under /tmp/vrai-diskfull-*), to fill up and free again. Needs
// the right to mount (root); without it `mountTmpfs` says why, for the test to skip.
import { execFileSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, rmdirSync, statfsSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { TestContext } from "node:test";

export interface Tmpfs {
  path: string;
  /** Bytes a file may still take. */
  free(): number;
  /** Writes a filler file until only `leaveBytes` are free (0: until the file system refuses a single byte). */
  fill(leaveBytes?: number): void;
  /** Removes the filler file. */
  unfill(): void;
}

/**
 * Mounts a tmpfs of `sizeMb` MiB for the test and unmounts it after (lazily if a process still holds it). Returns
 * why it cannot when mounting is not permitted here.
 */
export function mountTmpfs(t: TestContext, options: { sizeMb: number }): Tmpfs | string {
  const { sizeMb } = options;
  const path = mkdtempSync("/tmp/vrai-diskfull-");
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${sizeMb}m,mode=0700`, "tmpfs", path], { stdio: "pipe" });
  } catch (error) {
    rmdirSync(path);
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    return `cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN): ${stderr || String(error)}`;
  }
  t.after(() => {
    try {
      execFileSync("umount", [path], { stdio: "pipe" });
    } catch {
      execFileSync("umount", ["-l", path], { stdio: "pipe" }); // a process still holds a file there
    }
    rmdirSync(path);
  });
  const filler = join(path, "filler");
  const free = () => {
    const stats = statfsSync(path);
    return stats.bavail * stats.bsize;
  };
  return {
    path,
    free,
    fill(leaveBytes = 0) {
      const fd = openSync(filler, "a", 0o600);
      try {
        // Large writes first, then smaller ones, until the file system refuses even a page.
        for (const chunk of [1024 * 1024, 64 * 1024, 4096]) {
          const block = Buffer.alloc(chunk);
          while (free() - chunk >= leaveBytes) {
            try {
              writeSync(fd, block);
            } catch (error) {
              if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
              break;
            }
          }
        }
      } finally {
        closeSync(fd);
      }
    },
    unfill() {
      rmSync(filler, { force: true });
    },
  };
}
