/**
 * The SOA serial survives an emptied data directory (an emptyDir after a pod restart) through the
 * ConfigMap `run` keeps in the cluster: changes made faster than one per second push the serial
 * past the clock, and a new process on an empty directory still serves a higher serial than the
 * last one served (the leader, with leader election, saves). Without permission on ConfigMaps the process serves and warns once.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dig, digAvailable } from '../support/dig.ts';
import { startHostwarden } from '../support/hostwarden-process.ts';
import type { RunningHostwarden } from '../support/hostwarden-process.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';

const skip = !(await digAvailable()) && 'dig is not installed (apt-get install bind9-dnsutils)';
const CHANGES = 12;
const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'hostwarden-embedded-serials' };

async function soaSerial(port: number): Promise<number> {
  const r = await dig(port, ['example.org', 'SOA', '+short']);
  const serial = Number(r.raw.trim().split(/\s+/)[2]);
  assert.ok(Number.isInteger(serial), `SOA answer: ${r.raw}`);
  return serial;
}

/** Polls `fn` every 50 ms until it returns a value, for at most `ms`. */
async function until<T>(what: string, fn: () => Promise<T | undefined> | T | undefined, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const v = await fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function service(i: number): Parameters<TestApiServer['create']>[0] {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: `web-${i}`, namespace: 'default', annotations: { 'external-dns.alpha.kubernetes.io/hostname': `web-${i}.example.org` } },
    spec: { type: 'LoadBalancer', externalIPs: [`192.0.2.${i + 1}`] },
  };
}

describe('SOA serial kept in the cluster', { skip }, () => {
  let api: TestApiServer;
  let root: string;
  let kubeconfig: string;
  const running: RunningHostwarden[] = [];
  const start = async (data: string, extra: string[] = []): Promise<RunningHostwarden> => {
    const hw = await startHostwarden([
      '--source',
      'service',
      '--kubeconfig',
      kubeconfig,
      '--embedded-data-dir',
      join(root, data),
      '--embedded-zone',
      'example.org',
      '--txt-owner-id',
      'serial',
      '--min-event-sync-interval',
      '10ms',
      ...extra,
    ]);
    running.push(hw);
    return hw;
  };

  before(async () => {
    api = await startTestApiServer({ bookmarkIntervalMs: 200 });
    root = await mkdtemp(join(tmpdir(), 'hw-serial-'));
    kubeconfig = await api.writeKubeconfig(root);
  });
  after(async () => {
    for (const hw of running) await hw.stop('SIGKILL');
    await api.stop();
    await rm(root, { recursive: true, force: true });
  });

  test('a new process on an empty data directory serves a serial above the last one served', async () => {
    // With leader election the leader saves, and the ConfigMap sits beside its Lease.
    const first = await start('data-1', ['--leader-elect', '--leader-election-namespace', 'default']);
    let last = await until('the first SOA', () => soaSerial(first.dnsPort));
    for (let i = 0; i < CHANGES; i++) {
      api.create(service(i));
      const before = last;
      last = await until(`change ${i}`, async () => {
        const s = await soaSerial(first.dnsPort);
        return s > before ? s : undefined;
      });
    }
    const kept = await until('the kept serial', () => {
      const data = api.get(CONFIGMAP)?.['data'] as Record<string, string> | undefined;
      return data?.['example.org'] === String(last) ? last : undefined;
    });
    assert.equal(kept, last);
    assert.equal(await first.stop('SIGTERM'), 0);
    // The test proves something only when the clock alone would start below the last serial.
    assert.ok(last >= Math.floor(Date.now() / 1000), `serial ${last} did not outpace the clock; raise CHANGES`);

    const second = await start('data-2', ['--leader-elect', '--leader-election-namespace', 'default']);
    const served = await until('the SOA after the restart', () => soaSerial(second.dnsPort));
    assert.ok(served > last, `served ${served} after the restart, last before it ${last}`);
    await second.stop('SIGTERM');
  });

  test('without permission on ConfigMaps the process serves and warns once, naming the verb and resource', async () => {
    api.failNextRequests(100_000, 403, (r) => r.plural === 'configmaps');
    const hw = await start('data-3');
    api.create(service(100));
    await until('web-100', async () => ((await dig(hw.dnsPort, ['web-100.example.org', 'A', '+short'])).raw.trim() === '192.0.2.101' ? true : undefined));
    await new Promise((r) => setTimeout(r, 500));
    const warnings = hw.logs.filter((l) => l['level'] === 40 && l['resource'] === 'configmaps');
    assert.equal(warnings.length, 1, JSON.stringify(warnings));
    assert.equal(warnings[0]?.['verb'], 'get');
    assert.match(String(warnings[0]?.['msg']), /no permission to get configmaps .*grant get\/create\/patch on configmaps/);
    assert.ok((await soaSerial(hw.dnsPort)) > 0);
  });
});
