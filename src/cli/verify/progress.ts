// How far the run is, on stderr (stdout may be the results): a bar with rate and ETA when stderr is a terminal, and
// plain lines otherwise, because a bar's carriage returns make a log file or a CI page unreadable. Messages (waits,
// notes) go through the same reporter so that they never tear the bar.
import { MultiBar, type SingleBar } from "cli-progress";

export interface Progress {
  /** Sets the count of addresses to verify; shows the bar or the first line. */
  start(total: number): void;
  /** Addresses answered so far, and the addresses the server will try again (none when omitted). */
  update(done: number, retries?: Retries): void;
  /** A line of text for the user, above the bar. */
  note(message: string): void;
  /** Ends the bar (or prints the last line). */
  stop(): void;
}

/**
 * Addresses the server tried already and will try again (a greylisting server's delay, a mail or DNS server that did
 * not answer in time), and when the first of them is due (ms since the epoch). Final answers alone would leave the
 * count at 0 for as long as those wait: this says why nothing moves.
 */
export interface Retries {
  waiting: number;
  nextAt?: number;
}

export interface ProgressOptions {
  stream?: NodeJS.WriteStream;
  /** Plain lines are printed at most this often (the last one always); ignored for the bar. */
  everyMs?: number;
  now?: () => number;
}

/** A bar when `stream` is a terminal, plain lines otherwise. */
export function createProgress(options: ProgressOptions = {}): Progress {
  const { stream = process.stderr } = options;
  return stream.isTTY ? barProgress(stream) : lineProgress({ ...options, stream });
}

function barProgress(stream: NodeJS.WriteStream): Progress {
  const bars = new MultiBar(
    {
      stream,
      format: "{bar} {percentage}% | {value}/{total} addresses | {speed} | ETA {eta_formatted}{retries}",
      hideCursor: true,
      clearOnComplete: false,
      etaBuffer: 20,
      fps: 5,
    },
    undefined,
  );
  let bar: SingleBar | undefined;
  const started = Date.now();
  const speed = (done: number) => `${((done * 1000) / Math.max(1, Date.now() - started)).toFixed(1)}/s`;
  return {
    start(total) {
      bar = bars.create(total, 0, { speed: speed(0), retries: "" });
    },
    update(done, retries) {
      const waiting = retries && retries.waiting > 0 ? ` | ${describeRetries(retries, Date.now())}` : "";
      bar?.update(done, { speed: speed(done), retries: waiting });
    },
    note(message) {
      // MultiBar.log wants the line end and only buffers: update() prints it above the bar now, not at the next
      // redraw (which a stop() right after would never do). Without a bar yet it is plain output.
      if (bar) {
        bars.log(`${message}\n`);
        bars.update();
      } else stream.write(`${message}\n`);
    },
    stop() {
      bars.stop();
    },
  };
}

function lineProgress(options: Required<Pick<ProgressOptions, "stream">> & ProgressOptions): Progress {
  const { stream, everyMs = 5000, now = Date.now } = options;
  let total = 0;
  let done = 0;
  let started = now();
  let retries: Retries = { waiting: 0 };
  let lastLine = Number.NEGATIVE_INFINITY;
  let lastDone = -1;
  let lastWaiting = 0;
  const line = () => {
    lastLine = now();
    lastDone = done;
    lastWaiting = retries.waiting;
    const seconds = (now() - started) / 1000;
    const rate = seconds > 0 ? done / seconds : 0;
    const percent = total > 0 ? Math.floor((done * 100) / total) : 100;
    const eta = rate > 0 && done < total ? `, ETA ${formatDuration((total - done) / rate)}` : "";
    const waiting = retries.waiting > 0 ? `, ${describeRetries(retries, now())}` : "";
    stream.write(`verify: ${done}/${total} addresses (${percent}%), ${rate.toFixed(1)}/s${eta}${waiting}\n`);
  };
  return {
    start(count) {
      total = count;
      started = now();
      line();
    },
    update(count, waiting = { waiting: 0 }) {
      done = count;
      retries = waiting;
      // Addresses starting or ending a wait for a retry are news at once: it is why the count stands still.
      const turned = retries.waiting > 0 !== lastWaiting > 0;
      const changed = done !== lastDone || retries.waiting !== lastWaiting;
      if (turned || (changed && now() - lastLine >= everyMs)) line();
    },
    note(message) {
      stream.write(`${message}\n`);
    },
    stop() {
      if (done !== lastDone || retries.waiting !== lastWaiting) line();
    },
  };
}

/** "3 waiting for a retry, next in 45s" ("due now" once the time has come: it waits for a worker of the server). */
export function describeRetries(retries: Retries, now: number): string {
  const { waiting, nextAt } = retries;
  const when =
    nextAt === undefined ? "" : nextAt <= now ? ", due now" : `, next in ${formatDuration((nextAt - now) / 1000)}`;
  return `${waiting} waiting for a retry${when}`;
}

/** 75 -> "1m15s", 3700 -> "1h01m". */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}
