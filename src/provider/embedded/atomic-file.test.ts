import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AtomicWriteError, removeStaleTempFiles, tempPathFor, writeFileAtomic } from './atomic-file.ts';

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'hostwarden-atomic-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('replaces the file and leaves no temporary file', () =>
  withDir(async (dir) => {
    const target = join(dir, 'a.zone');
    await writeFile(target, 'old');
    await writeFileAtomic(target, 'new');
    assert.equal(await readFile(target, 'utf8'), 'new');
    assert.deepEqual(await readdir(dir), ['a.zone']);
  }));

test('a failed rename removes the temporary file and keeps the target', () =>
  withDir(async (dir) => {
    const target = join(dir, 'a.zone');
    await mkdir(join(target, 'child'), { recursive: true });
    await assert.rejects(writeFileAtomic(target, 'new'), (err: unknown) => err instanceof AtomicWriteError && !err.renamed && err.transient);
    assert.deepEqual(await readdir(dir), ['a.zone']);
  }));

test('stale temporary files are found by their pattern, other files are kept', () =>
  withDir(async (dir) => {
    const stale = tempPathFor(join(dir, 'a.zone'), 4242);
    await writeFile(stale, 'half');
    await writeFile(join(dir, 'a.zone'), 'zone');
    await writeFile(join(dir, 'notes.tmp'), 'mine');
    assert.deepEqual(await removeStaleTempFiles(dir), [stale.slice(dir.length + 1)]);
    assert.deepEqual((await readdir(dir)).sort(), ['a.zone', 'notes.tmp']);
  }));
