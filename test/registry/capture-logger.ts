/** A pino logger that keeps its JSON lines in memory, so tests can assert on warnings. */
import { pino } from 'pino';
import type { Logger } from 'pino';

export interface CapturedLog {
  logger: Logger;
  lines: () => { level: number; msg: string; [key: string]: unknown }[];
  warnings: () => string[];
}

export function captureLogger(): CapturedLog {
  const chunks: string[] = [];
  const logger = pino({ level: 'debug', base: undefined }, { write: (chunk: string) => void chunks.push(chunk) });
  const lines = (): { level: number; msg: string }[] =>
    chunks
      .join('')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { level: number; msg: string });
  return {
    logger,
    lines,
    warnings: () =>
      lines()
        .filter((l) => l.level === 40)
        .map((l) => l.msg),
  };
}
