/**
 * Progress of a long export or import. On a terminal: one bar redrawn in place with `\r`. Otherwise (a log,
 * a pipe): plain lines such as `export: 120/450 files, 1.2 GB`, at most one per interval, and a last line
 * when done.
 */
import { formatBytes } from '../base/units.js';

export interface ProgressStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface ProgressOptions {
  /** `export`, `import`, … : the start of every line. */
  label: string;
  stream: ProgressStream;
  totalFiles?: number;
  totalBytes?: number;
  /** Least time between plain lines (default 2 s). A terminal bar is redrawn at most every 100 ms. */
  intervalMs?: number;
  /** Also show the byte rate since the start. */
  rate?: boolean;
  /** Clock, for tests. */
  now?: () => number;
}

export class Progress {
  private files = 0;
  private bytes = 0;
  private lastDraw: number;
  private drawn = false;
  private finished = false;
  private readonly started: number;
  private readonly tty: boolean;
  private readonly interval: number;
  private readonly now: () => number;

  constructor(private readonly options: ProgressOptions) {
    this.now = options.now ?? Date.now;
    this.started = this.now();
    this.tty = options.stream.isTTY === true;
    this.interval = this.tty ? 100 : (options.intervalMs ?? 2000);
    // A bar shows at once; the first plain line only after an interval (a short run prints just its last line).
    this.lastDraw = this.tty ? -Infinity : this.started;
  }

  /** Sets the totals that are known (a total left out keeps its value). */
  setTotals(totals: { files?: number; bytes?: number }): void {
    if (totals.files !== undefined) this.options.totalFiles = totals.files;
    if (totals.bytes !== undefined) this.options.totalBytes = totals.bytes;
  }

  /** Adds to the counts (bytes as they stream; a file when one is complete). */
  add(files: number, bytes: number): void {
    this.files += files;
    this.bytes += bytes;
    if (this.finished) return;
    const now = this.now();
    if (now - this.lastDraw >= this.interval) {
      this.lastDraw = now;
      this.draw();
    }
  }

  /** Prints the final state (and ends the bar's line). */
  done(note = 'done'): void {
    if (this.finished) return;
    this.finished = true;
    const seconds = ((this.now() - this.started) / 1000).toFixed(1);
    if (this.tty) {
      this.draw(`, ${note} in ${seconds} s`);
      this.options.stream.write('\n');
    } else {
      this.options.stream.write(`${this.text()}, ${note} in ${seconds} s\n`);
    }
  }

  /** Ends a bar that is on screen without a final line (before an error message is printed). */
  abort(): void {
    if (this.finished) return;
    this.finished = true;
    if (this.tty && this.drawn) this.options.stream.write('\n');
  }

  private text(): string {
    const { label, totalFiles, totalBytes } = this.options;
    // A total of nothing is no total: `0 files, 0 B` rather than `0/0 files, 0 B of 0 B`.
    const files = totalFiles ? `${this.files}/${totalFiles} files` : `${this.files} files`;
    const bytes = totalBytes ? `${formatBytes(this.bytes)} of ${formatBytes(totalBytes)}` : formatBytes(this.bytes);
    const seconds = (this.now() - this.started) / 1000;
    const rate = this.options.rate && seconds > 0 ? `, ${formatBytes(Math.round(this.bytes / seconds))}/s` : '';
    return `${label}: ${files}, ${bytes}${rate}`;
  }

  private draw(suffix = ''): void {
    if (!this.tty) {
      this.options.stream.write(`${this.text()}\n`);
      return;
    }
    const { totalBytes } = this.options;
    const fraction = totalBytes ? Math.min(1, this.bytes / totalBytes) : null;
    const width = 24;
    const bar = fraction === null ? '' : ` [${'#'.repeat(Math.round(fraction * width)).padEnd(width, '-')}] ${String(Math.floor(fraction * 100)).padStart(3)}%`;
    let line = `${this.text()}${bar}${suffix}`;
    const columns = this.options.stream.columns;
    if (columns && line.length >= columns) line = line.slice(0, columns - 1);
    this.options.stream.write(`\r${line}\x1b[K`);
    this.drawn = true;
  }
}
