// One process owns an embedded database directory. A lock file holds the owner's pid; a lock left by a dead process
// (SIGKILL, power loss) is taken over, a live owner is reported with a clear error.
import { mkdirSync, openSync, readFileSync, rmSync, writeSync, closeSync } from "node:fs";
import { join } from "node:path";

export class StateDirLockedError extends Error {
  readonly code = "STATE_DIR_LOCKED";
  constructor(
    readonly dir: string,
    readonly pid: number,
  ) {
    super(
      `Cannot open the embedded database: ${dir} is used by process ${pid}. ` +
        `Stop it, use another STATE_DIR, or set DATABASE_URL to share a PostgreSQL between processes`,
    );
    this.name = "StateDirLockedError";
  }
}

export interface StateDirLock {
  release(): void;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The pid holding the directory, or undefined when nobody (alive) does. */
export function stateDirOwner(dir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(dir, "vrai.lock"), "utf8").trim());
    return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

export function lockStateDir(dir: string): StateDirLock {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, "vrai.lock");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, "wx", 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          rmSync(file, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const owner = stateDirOwner(dir);
      if (owner !== undefined && owner !== process.pid) throw new StateDirLockedError(dir, owner);
      rmSync(file, { force: true }); // stale: its process is gone
    }
  }
  throw new Error(`Cannot lock ${dir}: the lock file keeps reappearing`);
}
