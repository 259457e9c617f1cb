import { pino, type DestinationStream, type Logger } from 'pino';
import type { Config } from './config/schema.js';
import { terminalLines } from './terminal-log.js';

/** `terminal`: short readable lines (one per request); `json`: pino's JSON lines. */
export type LogFormat = 'terminal' | 'json';

/** Readable lines on a terminal, JSON lines otherwise. */
export const logFormatFor = (stream: { isTTY?: boolean }): LogFormat => (stream.isTTY ? 'terminal' : 'json');

export interface LogOptions {
  /** Default: from the stream (`logFormatFor`). */
  format?: LogFormat;
  /** Colors in terminal lines. Default: when the stream is a terminal and NO_COLOR is not set. */
  colors?: boolean;
}

export function createLogger(
  config: Pick<Config, 'logLevel'>,
  stream: DestinationStream & { isTTY?: boolean } = process.stdout,
  options: LogOptions = {},
): Logger {
  const pinoOptions = { level: config.logLevel, base: undefined };
  if ((options.format ?? logFormatFor(stream)) === 'json') return pino(pinoOptions, stream);
  const colors = options.colors ?? (stream.isTTY === true && !process.env.NO_COLOR);
  return pino(pinoOptions, terminalLines(stream, { colors }));
}
