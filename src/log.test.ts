import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { RateLimitedLog, createLogger, escapeControl } from './log.ts';
import type { LogFormat } from './log.ts';

function capture(format: LogFormat, level = 'info'): { logger: ReturnType<typeof createLogger>; text: () => string } {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  return { logger: createLogger(level, format, sink), text: () => chunks.join('') };
}

/** Lines that start a log entry in the text format: `[HH:MM:ss.l] LEVEL`. */
const ENTRY = /^\[\d\d:\d\d:\d\d\.\d{3}\] [A-Z]+/;

describe('text log format', () => {
  test('a newline in a hostname cannot start a forged line', () => {
    const { logger, text } = capture('text');
    const forged = 'www.example.org\n[12:00:00.000] INFO: all records deleted';
    logger.info({ dnsName: forged, name: forged, nested: { target: forged } }, `record ${forged} refused`);
    logger.child({ zone: forged }).warn(`zone ${forged}`);
    const err = new Error(`cannot resolve ${forged}`);
    logger.error({ err }, 'failed');
    logger.error(err, `bare ${forged}`);
    const lines = text()
      .split('\n')
      .filter((l) => l !== '');
    assert.equal(lines.filter((l) => ENTRY.test(l)).length, 4, text());
    assert.ok(
      lines.every((l) => !l.startsWith('[12:00:00.000]')),
      text(),
    );
    assert.match(text(), /record www\.example\.org\\n\[12:00:00\.000\] INFO: all records deleted refused/);
  });

  test('terminal escapes and other control characters are shown as escapes', () => {
    const { logger, text } = capture('text');
    logger.info(`a\u001b[2Jb\rc\td\u0000e\u0085f\u2028g`);
    assert.match(text(), /a\\u001b\[2Jb\\rc\\td\\u0000e\\u0085f\\u2028g/);
    // eslint-disable-next-line no-control-regex -- asserting none are left
    assert.doesNotMatch(text().trimEnd(), /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028]/);
  });

  test('the JSON format is unchanged: one JSON object a line', () => {
    const { logger, text } = capture('json');
    logger.info({ dnsName: 'a\nb' }, 'm\nn');
    const lines = text().trimEnd().split('\n');
    assert.equal(lines.length, 1);
    const entry = JSON.parse(lines[0] ?? '') as Record<string, unknown>;
    assert.equal(entry['msg'], 'm\nn');
    assert.equal(entry['dnsName'], 'a\nb');
  });

  test('escapeControl leaves ordinary text, Unicode included, alone', () => {
    assert.equal(escapeControl('bücher.example — ok'), 'bücher.example — ok');
    assert.equal(escapeControl('a\nb'), 'a\\nb');
  });
});

describe('RateLimitedLog', () => {
  test('logs N identical messages per interval, then one summary with the count', () => {
    const { logger, text } = capture('json');
    let now = 1_000_000;
    const log = new RateLimitedLog(logger, { perInterval: 3, intervalMs: 10_000, now: () => now });
    for (let i = 0; i < 2000; i++) log.info({ remote: `10.0.0.${i % 250}` }, 'zone transfer refused');
    log.warn({}, 'another message');
    now += 10_000;
    log.info({ remote: '10.0.0.1' }, 'zone transfer refused');
    const entries = text()
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { msg: string; suppressed?: number });
    assert.deepEqual(
      entries.map((e) => e.msg),
      [
        'zone transfer refused',
        'zone transfer refused',
        'zone transfer refused',
        'another message',
        'zone transfer refused (1997 more like it suppressed in 10s)',
        'zone transfer refused',
      ],
    );
    assert.equal(entries[4]?.suppressed, 1997);
  });

  test('the summary comes out when the flood stops, and flush writes pending ones', async () => {
    const { logger, text } = capture('json');
    const log = new RateLimitedLog(logger, { perInterval: 1, intervalMs: 30 });
    for (let i = 0; i < 5; i++) log.info({}, 'bad request');
    for (let i = 0; i < 5; i++) log.error({}, 'bad packet');
    log.flush();
    assert.match(text(), /bad packet \(4 more like it suppressed/);
    for (let i = 0; i < 3; i++) log.info({}, 'bad request');
    // Bounded wait for the timer: at most 2 s.
    for (let i = 0; i < 100 && !/bad request \(2 more/.test(text()); i++) await new Promise((r) => setTimeout(r, 20));
    assert.match(text(), /bad request \(2 more like it suppressed/);
  });

  test('lines below the level cost nothing and are not counted', () => {
    const { logger, text } = capture('json', 'warn');
    const log = new RateLimitedLog(logger, { perInterval: 1 });
    for (let i = 0; i < 10; i++) log.info({}, 'noise');
    log.flush();
    assert.equal(text(), '');
  });
});
