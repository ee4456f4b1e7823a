import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { MINIMUM_NODE, RELEASE_LINES, runtimeWarning, supportedLines } from './runtime.ts';

const DAY = new Date('2026-11-26T12:00:00Z');

test('supported lines: the LTS releases not yet past their end of life', () => {
  assert.deepEqual(supportedLines(DAY), [22, 24, 26]);
  assert.deepEqual(supportedLines(new Date('2026-04-30T12:00:00Z')), [20, 22, 24, 26]);
  assert.deepEqual(supportedLines(new Date('2027-05-01T00:00:00Z')), [24, 26]);
});

test('end-of-life, odd and too-old releases warn and name the supported lines; maintained LTS and newer lines do not', () => {
  assert.equal(
    runtimeWarning('v20.20.2', DAY),
    'Node.js 20 reached end of life on 2026-04-30 and gets no security fixes; Hostwarden supports the Node.js LTS releases still maintained upstream (22, 24, 26 today)',
  );
  assert.match(runtimeWarning('25.1.0', new Date('2026-01-10T00:00:00Z')) ?? '', /^Node\.js 25 is not an LTS release/);
  assert.match(runtimeWarning('20.11.0', DAY) ?? '', /older than 20\.19/);
  for (const v of ['22.23.3', '24.21.0', '26.10.0', '28.0.0']) assert.equal(runtimeWarning(v, DAY), undefined, v);
});

test('the table lists each line once, in order, LTS lines even', () => {
  const majors = RELEASE_LINES.map((l) => l.major);
  assert.deepEqual(
    majors,
    [...majors].sort((a, b) => a - b),
  );
  for (const l of RELEASE_LINES) assert.equal(l.lts, l.major % 2 === 0);
});

test('MINIMUM_NODE is what package.json engines says', () => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } };
  assert.equal(pkg.engines.node, `>=${MINIMUM_NODE}`);
});
