/**
 * The real bin/hostwarden run over a manifests directory with special entries: two
 * self-referencing directory links, a link to a directory, a link loop and a FIFO named *.yaml.
 * The sync finishes (warning about the FIFO and the loop by name), every file is read once, and
 * SIGTERM is honoured within a second; also while a sync is stuck waiting on a provider that
 * never answers.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { dig, digAvailable } from '../support/dig.ts';
import { startHostwarden } from '../support/hostwarden-process.ts';
import type { RunningHostwarden } from '../support/hostwarden-process.ts';
import { loadBalancerService } from '../support/manifests.ts';
import { startWebhookFixture } from '../support/webhook-fixture.ts';

const STOP_WITHIN_MS = 1000;

/** SIGTERM, then the milliseconds until the process exited, and its exit code. */
async function terminate(hw: RunningHostwarden): Promise<{ ms: number; code: number | null }> {
  const start = performance.now();
  const code = await hw.stop('SIGTERM');
  return { ms: Math.round(performance.now() - start), code };
}

describe(
  'hostwarden run: special entries in the manifests directory',
  { skip: !(await digAvailable()) && 'dig is not installed (apt-get install bind9-dnsutils)' },
  () => {
    let root: string;
    let hw: RunningHostwarden | undefined;

    before(async () => {
      root = await mkdtemp(join(tmpdir(), 'hw-entries-'));
    });
    after(async () => {
      await hw?.stop('SIGKILL');
      await rm(root, { recursive: true, force: true });
    });

    test('links, loops and a FIFO: the sync completes, each file is read once, SIGTERM exits within a second', async () => {
      const manifests = join(root, 'manifests');
      await mkdir(join(manifests, 'team'), { recursive: true });
      await writeFile(join(manifests, 'team', 'web.yaml'), loadBalancerService('web', 'www.example.org', '192.0.2.10'));
      await symlink('.', join(manifests, 'team', 'again'));
      await symlink('..', join(manifests, 'team', 'up'));
      await symlink('team', join(manifests, 'alias'));
      await symlink('loop.yaml', join(manifests, 'loop.yaml'));
      execFileSync('mkfifo', [join(manifests, 'pipe.yaml')]);
      hw = await startHostwarden([
        '--manifests-dir',
        manifests,
        '--embedded-data-dir',
        join(root, 'data'),
        '--embedded-zone',
        'example.org',
        '--log-level',
        'debug',
      ]);
      await hw.waitForLog((l) => l['msg'] === 'changes committed to zone files', 20_000);
      assert.equal((await dig(hw.dnsPort, ['www.example.org', 'A', '+short'])).raw.trim(), '192.0.2.10');
      const fifo = await hw.waitForLog((l) => l['file'] === join(manifests, 'pipe.yaml'));
      assert.equal(fifo['msg'], `${join(manifests, 'pipe.yaml')}: not a regular file (a FIFO); not read`);
      const loop = await hw.waitForLog((l) => l['file'] === join(manifests, 'loop.yaml'));
      assert.match(String(loop['msg']), /cannot be followed: ELOOP/);
      // team/ is reached four ways (itself, alias, again, up) and read once.
      const revisits = await hw.waitForLog((l) => l['msg'] === 'directories reached again through symbolic links were read once');
      assert.equal(revisits['count'], 3);
      const { ms, code } = await terminate(hw);
      hw = undefined;
      process.stdout.write(`# SIGTERM to exit: ${ms} ms\n`);
      assert.equal(code, 0);
      assert.ok(ms < STOP_WITHIN_MS, `exited after ${ms} ms`);
    });

    test('SIGTERM is honoured within a second while a sync waits on a provider that never answers', async () => {
      const manifests = join(root, 'manifests-2');
      await mkdir(manifests);
      await writeFile(join(manifests, 'web.yaml'), loadBalancerService('web', 'www.example.org', '192.0.2.10'));
      const webhook = await startWebhookFixture();
      try {
        webhook.script.set('GET /records', [{ status: 200, body: '[]', delayMs: 60_000 }]);
        hw = await startHostwarden(
          [
            '--manifests-dir',
            manifests,
            '--provider',
            'webhook',
            '--webhook-provider-url',
            webhook.url,
            '--webhook-provider-read-timeout',
            '60s',
            '--domain-filter',
            'example.org',
          ],
          { dns: false },
        );
        for (let i = 0; i < 200 && !webhook.requests.some((r) => r.path === '/records'); i++) await new Promise((r) => setTimeout(r, 25));
        assert.ok(
          webhook.requests.some((r) => r.path === '/records'),
          'the sync is waiting on GET /records',
        );
        const { ms, code } = await terminate(hw);
        hw = undefined;
        process.stdout.write(`# SIGTERM to exit mid-sync: ${ms} ms\n`);
        assert.equal(code, 0);
        assert.ok(ms < STOP_WITHIN_MS, `exited after ${ms} ms`);
      } finally {
        await webhook.stop();
      }
    });
  },
);
