import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../errors.ts';
import { DataDirLock, LOCK_SOCKET_FILE, PID_FILE } from './data-dir-lock.ts';
import type { LockMode } from './data-dir-lock.ts';

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'hostwarden-lock-'));
  const dir = join(root, 'data');
  await mkdir(dir);
  try {
    await fn(dir);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

const refused =
  (dir: string, pid: number) =>
  (err: unknown): boolean => {
    assert.ok(err instanceof ConfigError, String(err));
    assert.equal(err.flag, '--embedded-data-dir');
    assert.equal(
      err.message,
      `--embedded-data-dir ${dir} is locked by Hostwarden process ${pid}: two processes must not share a data directory; stop it or choose another directory`,
    );
    assert.doesNotMatch(err.message, /\n/);
    return true;
  };

describe('DataDirLock', () => {
  for (const mode of ['abstract', 'file'] as LockMode[]) {
    test(`${mode}: one holder at a time, named by its pid; free again after release`, () =>
      withDir(async (dir) => {
        const first = await DataDirLock.acquire(dir, { mode });
        assert.equal(await readFile(join(dir, PID_FILE), 'utf8'), `${process.pid}\n`);
        await assert.rejects(DataDirLock.acquire(dir, { mode }), refused(dir, process.pid));
        // Another spelling of the same directory meets the same lock.
        const alias = join(dir, '..', 'alias');
        await symlink(dir, alias);
        await assert.rejects(DataDirLock.acquire(`${alias}/`, { mode }), refused(`${alias}/`, process.pid));
        await first.release();
        await first.release();
        assert.deepEqual(await readdir(dir), [], 'release removes the pid file (and the socket file)');
        const second = await DataDirLock.acquire(alias, { mode });
        await second.release();
      }));
  }

  test('abstract: a pid file left by a dead holder neither blocks nor names anyone', () =>
    withDir(async (dir) => {
      await writeFile(join(dir, PID_FILE), '999999999\n');
      const lock = await DataDirLock.acquire(dir, { mode: 'abstract', pid: 4242 });
      assert.equal(await readFile(join(dir, PID_FILE), 'utf8'), '4242\n');
      await lock.release();
    }));

  test("file: a lock file nobody accepts on is a dead holder's and is replaced", () =>
    withDir(async (dir) => {
      await writeFile(join(dir, LOCK_SOCKET_FILE), '');
      const lock = await DataDirLock.acquire(dir, { mode: 'file' });
      await assert.rejects(DataDirLock.acquire(dir, { mode: 'file' }), refused(dir, process.pid));
      await lock.release();
    }));

  test('a holder whose pid cannot be found is still refused, as another process', () =>
    withDir(async (dir) => {
      const lock = await DataDirLock.acquire(dir, { mode: 'abstract', pid: 999999999 });
      await assert.rejects(DataDirLock.acquire(dir, { mode: 'abstract' }), /is locked by another Hostwarden process: two processes/);
      await lock.release();
    }));

  test('a missing directory is an error naming it', async () => {
    await assert.rejects(DataDirLock.acquire('/nonexistent/hostwarden-data'), /cannot lock the data directory \/nonexistent\/hostwarden-data: ENOENT/);
  });
});
