import { pino, type Logger } from 'pino';
import type { Config } from './config/schema.js';

export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  return pino({ level: config.logLevel, base: undefined });
}
