/**
 * The main job end to end, as a user runs it: bin/hostwarden run over a manifests directory
 * into the embedded store, answered by the embedded DNS server and checked with Debian's dig.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { dig, digAvailable } from '../support/dig.ts';
import { startHostwarden } from '../support/hostwarden-process.ts';
import type { RunningHostwarden } from '../support/hostwarden-process.ts';
import { runCli } from '../support/cli.ts';
import { loadBalancerService } from '../support/manifests.ts';

async function answerOf(port: number, name: string, type = 'A'): Promise<{ status: string; answer: string[] }> {
  const r = await dig(port, [name, type, '+norec']);
  return { status: r.status, answer: r.answer.map((l) => l.split(' ').slice(-1)[0] ?? '') };
}

/** Polls dig until `pred` holds; returns the milliseconds it took. Bounded by count and time. */
async function waitForAnswer(port: number, name: string, pred: (a: { status: string; answer: string[] }) => boolean, timeoutMs = 5000): Promise<number> {
  const start = Date.now();
  for (let i = 0; i < 500; i++) {
    if (pred(await answerOf(port, name))) return Date.now() - start;
    if (Date.now() - start > timeoutMs) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${name} did not reach the expected answer within ${timeoutMs} ms (last: ${JSON.stringify(await answerOf(port, name))})`);
}

describe(
  'hostwarden run (manifests → embedded store → DNS)',
  { skip: !(await digAvailable()) && 'dig is not installed (apt-get install bind9-dnsutils)' },
  () => {
    let root: string;
    let manifests: string;
    let data: string;
    let hw: RunningHostwarden | undefined;
    const args = (): string[] => [
      '--manifests-dir',
      manifests,
      '--embedded-data-dir',
      data,
      '--embedded-zone',
      'example.org',
      '--txt-owner-id',
      'e2e',
      '--min-event-sync-interval',
      '100ms',
    ];

    before(async () => {
      root = await mkdtemp(join(tmpdir(), 'hw-run-'));
      manifests = join(root, 'manifests');
      data = join(root, 'data');
      await import('node:fs/promises').then((fs) => fs.mkdir(manifests));
      await writeFile(join(manifests, 'web.yaml'), loadBalancerService('web', 'www.example.org', '192.0.2.10'));
      await writeFile(join(manifests, 'broken.yaml'), 'kind: Service\nmetadata: [unclosed\n');
      hw = await startHostwarden(args());
      await hw.waitForLog((l) => l['msg'] === 'changes committed to zone files');
    });
    after(async () => {
      await hw?.stop();
      await rm(root, { recursive: true, force: true });
    });

    test('serves the record and its external-dns ownership TXT', async () => {
      const port = hw?.dnsPort ?? 0;
      assert.deepEqual(await answerOf(port, 'www.example.org'), { status: 'NOERROR', answer: ['192.0.2.10'] });
      const txt = await dig(port, ['a-www.example.org', 'TXT', '+short']);
      assert.match(txt.raw, /"heritage=external-dns,external-dns\/owner=e2e,external-dns\/resource=service\/default\/web"/);
    });

    test('a malformed file is reported with its name and line, and the others still sync', async () => {
      const line = await hw?.waitForLog((l) => typeof l['file'] === 'string' && String(l['file']).endsWith('broken.yaml'));
      assert.ok(line !== undefined);
      assert.equal(typeof line['line'], 'number');
    });

    test('editing a manifest changes the answer without a restart', async () => {
      const port = hw?.dnsPort ?? 0;
      await writeFile(join(manifests, 'web.yaml'), loadBalancerService('web', 'www.example.org', '192.0.2.11'));
      const ms = await waitForAnswer(port, 'www.example.org', (a) => a.answer[0] === '192.0.2.11');
      process.stdout.write(`# change-to-answer: ${ms} ms\n`);
    });

    test('a new file adds a record; deleting it removes the record and its TXT', async () => {
      const port = hw?.dnsPort ?? 0;
      await writeFile(join(manifests, 'api.yaml'), loadBalancerService('api', 'api.example.org', '192.0.2.12'));
      await waitForAnswer(port, 'api.example.org', (a) => a.answer[0] === '192.0.2.12');
      await unlink(join(manifests, 'api.yaml'));
      await waitForAnswer(port, 'api.example.org', (a) => a.status === 'NXDOMAIN');
      assert.equal((await dig(port, ['a-api.example.org', 'TXT'])).status, 'NXDOMAIN');
    });

    test('/metrics has the external-dns names and /healthz answers', async () => {
      const base = `http://127.0.0.1:${hw?.metricsPort ?? 0}`;
      const metrics = await (await fetch(`${base}/metrics`)).text();
      for (const name of [
        'external_dns_controller_last_sync_timestamp_seconds',
        'external_dns_registry_endpoints_total',
        'external_dns_source_endpoints_total',
        'external_dns_source_errors_total',
        'external_dns_registry_errors_total',
        'hostwarden_sync_duration_seconds',
        'hostwarden_dns_queries_total',
        'hostwarden_dns_query_duration_seconds',
        'hostwarden_dns_zones',
      ]) {
        assert.match(metrics, new RegExp(`^${name}`, 'm'), name);
      }
      const health = await fetch(`${base}/healthz`);
      assert.equal(health.status, 200);
    });

    test('kill -9 and restart: every acknowledged record is still served', async () => {
      assert.ok(hw !== undefined);
      await hw.stop('SIGKILL');
      const zone = await readFile(join(data, 'example.org.zone'), 'utf8');
      assert.match(zone, /www\.example\.org\.\s+\d+\s+IN\s+A\s+192\.0\.2\.11/);
      hw = await startHostwarden(args());
      assert.deepEqual(await answerOf(hw.dnsPort, 'www.example.org'), { status: 'NOERROR', answer: ['192.0.2.11'] });
    });

    test('run --once syncs and exits 0; a foreign record is left alone', async () => {
      const other = join(root, 'other');
      await import('node:fs/promises').then((fs) => fs.mkdir(other));
      await writeFile(join(other, 'web.yaml'), loadBalancerService('web', 'www.example.org', '198.51.100.1'));
      await hw?.stop();
      hw = undefined;
      const r = await runCli([
        'run',
        '--once',
        '--manifests-dir',
        other,
        '--embedded-data-dir',
        data,
        '--embedded-zone',
        'example.org',
        '--txt-owner-id',
        'intruder',
        '--metrics-address',
        '',
      ]);
      assert.equal(r.code, 0, r.stderr);
      const zone = await readFile(join(data, 'example.org.zone'), 'utf8');
      assert.match(zone, /www\.example\.org\.\s+\d+\s+IN\s+A\s+192\.0\.2\.11/, 'owned by e2e, not changed by intruder');
      assert.doesNotMatch(zone, /198\.51\.100\.1/);
    });

    test('a configuration error stops start-up with one message naming the flag', async () => {
      // --log-level error: only the refusal, apart from the start-up warning about Node 20's end of life.
      const r = await runCli(['run', '--txt-prefix', 'p.', '--txt-suffix', '-s', '--log-level', 'error']);
      assert.equal(r.code, 2);
      assert.match(r.stderr, /--txt-prefix and --txt-suffix cannot be used together/);
      assert.equal(r.stderr.trim().split('\n').length, 1);
    });
  },
);
