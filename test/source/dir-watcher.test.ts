import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../src/log.ts';
import { DirWatcher } from '../../src/source/manifest/dir-watcher.ts';

/** Polls `check` every 25 ms for at most 3 s. */
async function waitFor(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 3000;
  for (let i = 0; i < 200 && Date.now() < deadline; i += 1) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.fail(`timed out waiting for ${what}`);
}

describe('DirWatcher', () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'hostwarden-watch-'));
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  test('fs.watch: a burst of writes is reported with the touched files', async () => {
    const dir = join(root, 'burst');
    await mkdir(join(dir, 'sub'), { recursive: true });
    const calls: string[][] = [];
    const watcher = new DirWatcher({ dir, logger: silentLogger(), onChange: (files) => calls.push(files), signature: async () => '' });
    watcher.start();
    try {
      await Promise.all([1, 2, 3].map((i) => writeFile(join(dir, 'sub', `f${i}.yaml`), 'x')));
      await waitFor('a change report', () => calls.length > 0);
      await waitFor('all three files reported', () => new Set(calls.flat()).size >= 3);
      assert.ok(calls.flat().every((f) => f.startsWith('sub')));
    } finally {
      watcher.close();
    }
  });

  test('polling notices a directory that appears later', async () => {
    const dir = join(root, 'later');
    let calls = 0;
    const watcher = new DirWatcher({
      dir,
      logger: silentLogger(),
      poll: true,
      pollIntervalMs: 50,
      onChange: () => (calls += 1),
      signature: async () => (await readdir(dir)).sort().join(','),
    });
    watcher.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 120));
      await mkdir(dir);
      await writeFile(join(dir, 'a.yaml'), 'x');
      await waitFor('a change report', () => calls > 0);
    } finally {
      watcher.close();
    }
  });

  test('no reports after close', async () => {
    const dir = join(root, 'closed');
    await mkdir(dir);
    let calls = 0;
    const watcher = new DirWatcher({ dir, logger: silentLogger(), onChange: () => (calls += 1), signature: async () => '' });
    watcher.start();
    watcher.close();
    await writeFile(join(dir, 'a.yaml'), 'x');
    await new Promise((resolve) => setTimeout(resolve, 250));
    assert.equal(calls, 0);
  });
});
