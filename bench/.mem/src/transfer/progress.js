/**
 * Progress of a long export or import. On a terminal: one bar redrawn in place with `\r`. Otherwise (a log,
 * a pipe): plain lines such as `export: 120/450 files, 1.2 GB`, at most one per interval, and a last line
 * when done.
 */
import { formatBytes } from '../base/units.js';
export class Progress {
    options;
    files = 0;
    bytes = 0;
    lastDraw;
    drawn = false;
    finished = false;
    started;
    tty;
    interval;
    now;
    constructor(options) {
        this.options = options;
        this.now = options.now ?? Date.now;
        this.started = this.now();
        this.tty = options.stream.isTTY === true;
        this.interval = this.tty ? 100 : (options.intervalMs ?? 2000);
        // A bar shows at once; the first plain line only after an interval (a short run prints just its last line).
        this.lastDraw = this.tty ? -Infinity : this.started;
    }
    /** Sets the totals that are known (a total left out keeps its value). */
    setTotals(totals) {
        if (totals.files !== undefined)
            this.options.totalFiles = totals.files;
        if (totals.bytes !== undefined)
            this.options.totalBytes = totals.bytes;
    }
    /** Adds to the counts (bytes as they stream; a file when one is complete). */
    add(files, bytes) {
        this.files += files;
        this.bytes += bytes;
        if (this.finished)
            return;
        const now = this.now();
        if (now - this.lastDraw >= this.interval) {
            this.lastDraw = now;
            this.draw();
        }
    }
    /** Prints the final state (and ends the bar's line). */
    done(note = 'done') {
        if (this.finished)
            return;
        this.finished = true;
        const seconds = ((this.now() - this.started) / 1000).toFixed(1);
        if (this.tty) {
            this.draw(`, ${note} in ${seconds} s`);
            this.options.stream.write('\n');
        }
        else {
            this.options.stream.write(`${this.text()}, ${note} in ${seconds} s\n`);
        }
    }
    /** Ends a bar that is on screen without a final line (before an error message is printed). */
    abort() {
        if (this.finished)
            return;
        this.finished = true;
        if (this.tty && this.drawn)
            this.options.stream.write('\n');
    }
    text() {
        const { label, totalFiles, totalBytes } = this.options;
        const files = totalFiles !== undefined ? `${this.files}/${totalFiles} files` : `${this.files} files`;
        const bytes = totalBytes !== undefined ? `${formatBytes(this.bytes)} of ${formatBytes(totalBytes)}` : formatBytes(this.bytes);
        const seconds = (this.now() - this.started) / 1000;
        const rate = this.options.rate && seconds > 0 ? `, ${formatBytes(Math.round(this.bytes / seconds))}/s` : '';
        return `${label}: ${files}, ${bytes}${rate}`;
    }
    draw(suffix = '') {
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
        if (columns && line.length >= columns)
            line = line.slice(0, columns - 1);
        this.options.stream.write(`\r${line}\x1b[K`);
        this.drawn = true;
    }
}
