// How far the run is, on stderr (stdout may be the results): a bar with rate and ETA when stderr is a terminal, and
// plain lines otherwise, because a bar's carriage returns make a log file or a CI page unreadable. Messages (waits,
// notes) go through the same reporter so that they never tear the bar.
import { MultiBar, type SingleBar } from "cli-progress";

export interface Progress {
  /** Sets the count of addresses to verify; shows the bar or the first line. */
  start(total: number): void;
  /** Addresses answered so far. */
  update(done: number): void;
  /** A line of text for the user, above the bar. */
  note(message: string): void;
  /** Ends the bar (or prints the last line). */
  stop(): void;
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
      format: "{bar} {percentage}% | {value}/{total} addresses | {speed} | ETA {eta_formatted}",
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
      bar = bars.create(total, 0, { speed: speed(0) });
    },
    update(done) {
      bar?.update(done, { speed: speed(done) });
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
  let lastLine = Number.NEGATIVE_INFINITY;
  let lastDone = -1;
  const line = () => {
    lastLine = now();
    lastDone = done;
    const seconds = (now() - started) / 1000;
    const rate = seconds > 0 ? done / seconds : 0;
    const percent = total > 0 ? Math.floor((done * 100) / total) : 100;
    const eta = rate > 0 && done < total ? `, ETA ${formatDuration((total - done) / rate)}` : "";
    stream.write(`verify: ${done}/${total} addresses (${percent}%), ${rate.toFixed(1)}/s${eta}\n`);
  };
  return {
    start(count) {
      total = count;
      started = now();
      line();
    },
    update(count) {
      done = count;
      if (done !== lastDone && now() - lastLine >= everyMs) line();
    },
    note(message) {
      stream.write(`${message}\n`);
    },
    stop() {
      if (done !== lastDone) line();
    },
  };
}

/** 75 -> "1m15s", 3700 -> "1h01m". */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}
