/**
 * Crash safety with the DNS server running: a burst of manifest changes, kill -9 in the middle,
 * restart on the same data directory; every record that was answered before the kill (and so
 * was acknowledged by the zone store) is answered again.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { dig, digAvailable } from '../support/dig.ts';
import { startHostwarden } from '../support/hostwarden-process.ts';
import type { RunningHostwarden } from '../support/hostwarden-process.ts';
import { loadBalancerService } from '../support/manifests.ts';

const BURST = 60;

describe(
  'kill -9 during a burst of changes, with the DNS server running',
  { skip: !(await digAvailable()) && 'dig is not installed (apt-get install bind9-dnsutils)' },
  () => {
    let root: string | undefined;
    let hw: RunningHostwarden | undefined;
    after(async () => {
      await hw?.stop('SIGKILL');
      if (root !== undefined) await rm(root, { recursive: true, force: true });
    });

    test('every record answered before the kill is answered after the restart', async () => {
      root = await mkdtemp(join(tmpdir(), 'hw-crash-'));
      const manifests = join(root, 'manifests');
      const data = join(root, 'data');
      await mkdir(manifests);
      const args = [
        '--manifests-dir',
        manifests,
        '--embedded-data-dir',
        data,
        '--embedded-zone',
        'example.org',
        '--min-event-sync-interval',
        '0s',
        '--log-level',
        'info',
      ];
      hw = await startHostwarden(args);
      const port = hw.dnsPort;

      const answered = new Set<number>();
      let written = 0;
      const deadline = Date.now() + 20_000;
      for (let i = 0; i < BURST && Date.now() < deadline; i++) {
        await writeFile(join(manifests, `burst-${i}.yaml`), loadBalancerService(`burst-${i}`, `burst-${i}.example.org`, `192.0.2.${(i % 250) + 1}`));
        // Probe an earlier name while the burst goes on; what answers has been committed.
        const probe = Math.max(0, i - 3);
        if (!answered.has(probe) && (await dig(port, [`burst-${probe}.example.org`, 'A', '+norec'])).status === 'NOERROR') answered.add(probe);
        if (answered.size >= 10 && i > BURST / 2) break;
        written = i + 1;
      }
      // On a loaded machine the burst can outrun the first sync: keep probing what was written
      // (the later files are still being applied, so the kill still lands mid-change).
      while (answered.size === 0 && Date.now() < deadline) {
        for (let i = 0; i < written; i++) if ((await dig(port, [`burst-${i}.example.org`, 'A', '+norec'])).status === 'NOERROR') answered.add(i);
        if (answered.size === 0) await new Promise((r) => setTimeout(r, 50));
      }
      assert.ok(answered.size > 0, 'some records were answered during the burst');
      await hw.stop('SIGKILL');

      hw = await startHostwarden(args);
      for (const i of answered) {
        const r = await dig(hw.dnsPort, [`burst-${i}.example.org`, 'A', '+norec']);
        assert.equal(r.status, 'NOERROR', `burst-${i}.example.org was answered before the kill`);
      }
    });
  },
);
