// One JSON line per event on stdout, written by pino: `{"level":"info","time":"<ISO>","msg":"…",…fields}`. Callers
// pass fields, never secrets: no API key, no full email address, no street line (see redact.ts for the helpers that
// make values safe to log). A child logger's lines carry its fields too: the HTTP layer gives each request one whose
// lines carry its `request_id` (http/request_scope.ts).
import { pino, type Logger as PinoLogger } from "pino";

/** LOG_LEVEL: lines below this level are dropped; `silent` drops them all. */
export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";
export const LOG_LEVELS: readonly LogLevel[] = ["debug", "info", "warn", "error", "silent"];
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** A logger whose every line carries `fields` as well (same level, same destination). */
  child(fields: LogFields): Logger;
}

export interface CreateLoggerOptions {
  level?: LogLevel;
  /** Receives each line, newline included (default: stdout, see bufferedStdout). */
  write?: (line: string) => void;
}

/**
 * Lines written within one turn of the event loop leave in one write: under load a syscall per request line cost more
 * than the rest of a test-mode call. What is pending is flushed synchronously when the process exits (stdout is
 * synchronous on Linux for files and pipes).
 */
export function bufferedStdout(): (line: string) => void {
  let pending: string[] = [];
  const flush = () => {
    if (pending.length === 0) return;
    const chunk = pending.join("");
    pending = [];
    process.stdout.write(chunk);
  };
  process.on("exit", flush);
  return (line) => {
    if (pending.push(line) === 1) setImmediate(flush);
  };
}

// pino's numeric levels, to skip building a line's object when its level is off.
const DEBUG = 20;
const INFO = 30;
const WARN = 40;
const ERROR = 50;

/**
 * The message goes into the merged object, first, rather than as pino's message argument (which pino writes last):
 * `"msg":"stopping","signal":"SIGTERM"` reads in order, and a message is never taken for a printf format.
 */
function wrap(p: PinoLogger): Logger {
  const min = p.levelVal;
  return {
    debug(msg, fields) {
      if (DEBUG >= min) p.debug(fields === undefined ? { msg } : { msg, ...fields });
    },
    info(msg, fields) {
      if (INFO >= min) p.info(fields === undefined ? { msg } : { msg, ...fields });
    },
    warn(msg, fields) {
      if (WARN >= min) p.warn(fields === undefined ? { msg } : { msg, ...fields });
    },
    error(msg, fields) {
      if (ERROR >= min) p.error(fields === undefined ? { msg } : { msg, ...fields });
    },
    child: (fields) => wrap(p.child(fields)),
  };
}

export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const { level = "info", write = bufferedStdout() } = options;
  if (!LOG_LEVELS.includes(level)) {
    throw new RangeError(`Cannot create logger: level must be one of ${LOG_LEVELS.join(", ")}, got "${level}"`);
  }
  const p = pino(
    {
      level,
      base: null, // no pid or hostname on every line
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    { write },
  );
  return wrap(p);
}

/** A logger that drops everything: for tests and benches. */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child: () => silentLogger,
};
