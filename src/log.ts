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

export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const { level = "info", write = (line: string) => process.stdout.write(line) } = options;
  const min = ORDER[level];
  const emit = (lvl: LogLevel, msg: string, fields?: LogFields) => {
    if (ORDER[lvl] < min) return;
    write(JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...fields }) + "\n");
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
