import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { main } from './main.ts';

/** Runs `plan` over an empty manifests directory and returns the V8 options main asked for. */
async function v8OptionsFor(extra: string[]): Promise<{ code: number; options: string[]; stderr: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'hw-heap-'));
  const options: string[] = [];
  let stderr = '';
  const sink = (keep: boolean): NodeJS.WriteStream =>
    new Writable({
      write(chunk: Buffer, _enc, cb) {
        if (keep) stderr += chunk.toString();
        cb();
      },
    }) as unknown as NodeJS.WriteStream;
  try {
    const code = await main({
      argv: ['plan', '--manifests-dir', dir, '--provider', 'inmemory', '--domain-filter', 'example.org', '--embedded-data-dir', join(dir, 'data'), ...extra],
      env: {},
      stdout: sink(false),
      stderr: sink(true),
      onSignal: () => undefined,
      setV8Option: (o) => options.push(o),
    });
    return { code, options, stderr };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('--heap-growth-percent', () => {
  test('asks V8 for a 10 % growth step by default', async () => {
    const r = await v8OptionsFor([]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.options, ['--heap-growing-percent=10']);
  });

  test('passes another step on, and 0 leaves V8 its own policy', async () => {
    assert.deepEqual((await v8OptionsFor(['--heap-growth-percent', '50'])).options, ['--heap-growing-percent=50']);
    assert.deepEqual((await v8OptionsFor(['--heap-growth-percent', '0'])).options, []);
  });

  test('a value out of range is a configuration error naming the flag', async () => {
    const r = await v8OptionsFor(['--heap-growth-percent', '5000']);
    assert.equal(r.code, 2);
    assert.deepEqual(r.options, []);
    assert.match(r.stderr, /--heap-growth-percent must be a whole number from 0 to 1000/);
  });
});
