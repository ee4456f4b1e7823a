/** A JSON logger whose lines tests can read back as objects. */
import { Writable } from 'node:stream';
import { createLogger } from '../../src/log.ts';
import type { Logger } from '../../src/log.ts';

export type LogLine = Record<string, unknown> & { level: number; msg: string };

export function capturingLogger(level = 'debug'): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString('utf8').split('\n')) if (l.trim() !== '') lines.push(JSON.parse(l) as LogLine);
      done();
    },
  });
  return { logger: createLogger(level, 'json', stream), lines };
}

/** pino's number for `warn`. */
export const WARN = 40;
export const INFO = 30;
