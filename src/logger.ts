import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { Config } from './config/schema.js';

/** Readable lines on a terminal, JSON lines otherwise. */
export function createLogger(config: Pick<Config, 'logLevel'>, stream: NodeJS.WriteStream = process.stdout): Logger {
  const options = { level: config.logLevel, base: undefined };
  if (stream.isTTY) return pino(options, pretty({ destination: stream, colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' }));
  return pino(options, stream);
}
