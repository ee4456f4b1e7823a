/**
 * Logger construction. Every component receives a pino Logger (or a child of it) through its
 * constructor; nothing logs through a module-level instance.
 */
import { pino } from 'pino';
import type { Logger } from 'pino';
import { PinoPretty } from 'pino-pretty';

export type { Logger };

export type LogFormat = 'text' | 'json';

export function createLogger(level: string, format: LogFormat, destination: NodeJS.WritableStream = process.stderr): Logger {
  if (format === 'json') return pino({ level, base: undefined }, destination);
  const pretty = PinoPretty({ destination, sync: true, colorize: false, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
  return pino({ level, base: undefined }, pretty);
}

/** A logger that drops everything, for tests and library callers that do not care. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
