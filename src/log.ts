// One JSON line per event on stdout. Callers pass fields, never secrets: no API key, no full email address,
// no street line (see redact.ts for the helpers that make values safe to log).

export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface CreateLoggerOptions {
  level?: LogLevel;
  write?: (line: string) => void;
}

/**
 * Lines written within one turn of the event loop leave in one write: under load a syscall per request line cost more
 * than the rest of a test-mode call. What is pending is flushed synchronously when the process exits.
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

export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const { level = "info", write = bufferedStdout() } = options;
  const min = ORDER[level];
  const emit = (lvl: LogLevel, msg: string, fields?: LogFields) => {
    if (ORDER[lvl] < min) return;
    write(`${JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...fields })}\n`);
  };
  return {
    debug: (msg, fields) => emit("debug", msg, fields),
    info: (msg, fields) => emit("info", msg, fields),
    warn: (msg, fields) => emit("warn", msg, fields),
    error: (msg, fields) => emit("error", msg, fields),
  };
}

/** A logger that drops everything: for tests and benches. */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
