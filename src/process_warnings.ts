// Node writes its process warnings (a possible listener leak, a deprecation, an experimental feature) as plain text on
// stderr, where an operator's log collector, reading the server's output as JSON lines, meets a line it cannot parse.
// They go through the logger instead: one JSON line at warn, with the warning's name, code and message.
import type { Logger } from "./log.ts";

/**
 * Replaces node's own printer of process warnings with a log line. `logger` is read at each warning: main.ts replaces
 * its logger once the configuration is read.
 */
export function logProcessWarnings(logger: () => Logger): void {
  process.removeAllListeners("warning");
  process.on("warning", (warning: Error & { code?: string }) => {
    logger().warn("process warning", { name: warning.name, code: warning.code, warning: warning.message });
  });
}
