/**
 * Logger construction. Every component receives a pino Logger (or a child of it) through its
 * constructor; nothing logs through a module-level instance.
 */
import { pino } from 'pino';
import type { Logger } from 'pino';
import { prettyFactory } from 'pino-pretty';

export type { Logger };

export type LogFormat = 'text' | 'json';

export function createLogger(level: string, format: LogFormat, destination: NodeJS.WritableStream = process.stderr): Logger {
  if (format === 'json') return pino({ level, base: undefined }, destination);
  return pino({ level, base: undefined }, textDestination(destination));
}

/** A logger that drops everything, for tests and library callers that do not care. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

// Names, targets and error messages come from objects, packets and requests: in the text format a
// newline in one would start what looks like a log line of its own, and an ESC would drive the
// terminal. JSON escapes them already; the text format gets them as visible escapes.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const NAMED_ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** The text with every control character (C0, DEL, C1, U+2028/2029) written as an escape (`\n`, `\u001b`). */
export function escapeControl(text: string): string {
  return text.replace(CONTROL, (c) => NAMED_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Escapes what the pretty printer writes raw: the message, the `name` field, and stacks (of the
 * entry and of `err`/`error`). Everything else it prints as JSON, which escapes by itself.
 */
function escapeEntry(entry: unknown): unknown {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return entry;
  const o = entry as Record<string, unknown>;
  for (const key of ['msg', 'name']) {
    const v = o[key];
    if (typeof v === 'string') o[key] = escapeControl(v);
  }
  escapeStack(o);
  for (const key of ['err', 'error']) {
    const v = o[key];
    if (typeof v === 'object' && v !== null) escapeStack(v as Record<string, unknown>);
  }
  return o;
}

/** A stack keeps its line breaks (the printer indents its lines), but the message it opens with is escaped whole. */
function escapeStack(o: Record<string, unknown>): void {
  const raw = o['stack'];
  if (typeof raw !== 'string') return;
  let stack = raw;
  const message = o['message'];
  if (typeof message === 'string' && message !== '') {
    const at = stack.indexOf(message);
    if (at >= 0 && at <= 100) stack = `${stack.slice(0, at)}${escapeControl(message)}${stack.slice(at + message.length)}`;
  }
  o['stack'] = stack.split('\n').map(escapeControl).join('\n');
}

/** pino's destination for the text format: each JSON line escaped, then pretty-printed. */
function textDestination(destination: NodeJS.WritableStream): { write(line: string): void } {
  const pretty = prettyFactory({ colorize: false, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
  return {
    write(line: string): void {
      let entry: unknown;
      try {
        entry = JSON.parse(line);
      } catch {
        destination.write(`${escapeControl(line.trimEnd())}\n`);
        return;
      }
      destination.write(pretty(escapeEntry(entry)));
    },
  };
}

export type LimitedLevel = 'error' | 'warn' | 'info' | 'debug';

export interface LogLimitOptions {
  /** Identical messages logged per interval; the rest are counted. */
  perInterval?: number;
  intervalMs?: number;
  now?: () => number;
}

interface Window {
  level: LimitedLevel;
  msg: string;
  startedAt: number;
  logged: number;
  suppressed: number;
  timer: NodeJS.Timeout | undefined;
}

/** Distinct messages tracked at once; messages are code constants, so this is only a backstop. */
const MAX_TRACKED = 256;

/**
 * A log for lines that untrusted clients can trigger once per packet or request (a refused
 * transfer, a bad request): at most `perInterval` lines with the same message per interval, then
 * one summary line with the number suppressed, so a flood costs a few lines, not one per packet.
 */
export class RateLimitedLog {
  private readonly logger: Logger;
  private readonly perInterval: number;
  private readonly intervalMs: number;
  private readonly now: () => number;
  private readonly windows = new Map<string, Window>();

  constructor(logger: Logger, opts: LogLimitOptions = {}) {
    this.logger = logger;
    this.perInterval = Math.max(1, opts.perInterval ?? 10);
    this.intervalMs = Math.max(1, opts.intervalMs ?? 10_000);
    this.now = opts.now ?? Date.now;
  }

  error(fields: Record<string, unknown>, msg: string): void {
    this.log('error', fields, msg);
  }

  warn(fields: Record<string, unknown>, msg: string): void {
    this.log('warn', fields, msg);
  }

  info(fields: Record<string, unknown>, msg: string): void {
    this.log('info', fields, msg);
  }

  debug(fields: Record<string, unknown>, msg: string): void {
    this.log('debug', fields, msg);
  }

  log(level: LimitedLevel, fields: Record<string, unknown>, msg: string): void {
    if (!this.logger.isLevelEnabled(level)) return;
    const key = `${level} ${msg}`;
    const now = this.now();
    let w = this.windows.get(key);
    if (w !== undefined && now - w.startedAt >= this.intervalMs) {
      this.close(key, w);
      w = undefined;
    }
    if (w === undefined) {
      if (this.windows.size >= MAX_TRACKED) this.flush();
      w = { level, msg, startedAt: now, logged: 0, suppressed: 0, timer: undefined };
      this.windows.set(key, w);
    }
    if (w.logged < this.perInterval) {
      w.logged++;
      this.logger[level](fields, msg);
      return;
    }
    w.suppressed++;
    if (w.timer === undefined) {
      const open = w;
      // The summary must come out even if the flood stops; unref'd, so it never holds the process open.
      open.timer = setTimeout(
        () => {
          if (this.windows.get(key) === open) this.close(key, open);
        },
        Math.max(1, open.startedAt + this.intervalMs - now),
      );
      open.timer.unref();
    }
  }

  /** Writes the summary of every open window and forgets them (on stop, or when too many are open). */
  flush(): void {
    for (const [key, w] of [...this.windows]) this.close(key, w);
  }

  private close(key: string, w: Window): void {
    this.windows.delete(key);
    if (w.timer !== undefined) clearTimeout(w.timer);
    if (w.suppressed === 0) return;
    const seconds = Math.max(1, Math.round((this.now() - w.startedAt) / 1000));
    this.logger[w.level]({ suppressed: w.suppressed, seconds }, `${w.msg} (${w.suppressed} more like it suppressed in ${seconds}s)`);
  }
}
