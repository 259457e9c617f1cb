import { pino, type Logger } from 'pino';
import { lazyRequire } from './base/lazy-require.js';
import type { Config } from './config/schema.js';

/** Readable lines on a terminal, JSON lines otherwise. */
export function createLogger(config: Pick<Config, 'logLevel'>, stream: NodeJS.WriteStream = process.stdout): Logger {
  const options = { level: config.logLevel, base: undefined };
  if (stream.isTTY) {
    const pretty = lazyRequire('pino-pretty') as typeof import('pino-pretty');
    return pino(options, pretty({ destination: stream, colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' }));
  }
  return pino(options, stream);
}
