import { pino } from 'pino';
import { lazyRequire } from './base/lazy-require.js';
/** Readable lines on a terminal, JSON lines otherwise. */
export function createLogger(config, stream = process.stdout) {
    const options = { level: config.logLevel, base: undefined };
    if (stream.isTTY) {
        const pretty = lazyRequire('pino-pretty');
        return pino(options, pretty({ destination: stream, colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' }));
    }
    return pino(options, stream);
}
