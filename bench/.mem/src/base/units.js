/** Sizes and durations written for people, as messages and the configuration show them. */
/** `1.2 GB`: decimal units, as sizes are written in the configuration. */
export function formatBytes(bytes) {
    if (bytes < 1000)
        return `${bytes} B`;
    let value = bytes;
    let unit = 'B';
    for (const u of ['KB', 'MB', 'GB', 'TB']) {
        if (value < 1000)
            break;
        value /= 1000;
        unit = u;
    }
    return `${value.toFixed(1)} ${unit}`;
}
/** `500 ms`, `10 s`, `2.5 min`: durations as messages show them. */
export function formatDuration(ms) {
    if (ms < 1000)
        return `${ms} ms`;
    if (ms < 120_000)
        return `${Number((ms / 1000).toFixed(1))} s`;
    return `${Number((ms / 60_000).toFixed(1))} min`;
}
