/**
 * The CLI wiring of the Kubernetes sources: `bin/hostwarden run --once --source service --source
 * crd` against the test API server through a kubeconfig given by flag and by $KUBECONFIG, into
 * the embedded provider's zone files, with Events written back.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/cli.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';
import { DNSENDPOINT_CRD, eventsFor, waitFor } from './harness.ts';

describe('hostwarden run with Kubernetes sources', () => {
  let api: TestApiServer;
  let dir: string;
  let kubeconfig: string;

  before(async () => {
    api = await startTestApiServer();
    dir = await mkdtemp(join(tmpdir(), 'hostwarden-kube-cli-'));
    kubeconfig = await api.writeKubeconfig(dir);
    api.create(DNSENDPOINT_CRD);
    api.create({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'default', annotations: { 'external-dns.alpha.kubernetes.io/hostname': 'web.example.org' } },
      spec: { type: 'LoadBalancer' },
      status: { loadBalancer: { ingress: [{ ip: '192.0.2.80' }] } },
    });
    api.create({
      apiVersion: 'externaldns.k8s.io/v1alpha1',
      kind: 'DNSEndpoint',
      metadata: { name: 'api', namespace: 'default' },
      spec: { endpoints: [{ dnsName: 'api.example.org', recordType: 'A', targets: ['192.0.2.81'] }] },
    });
  });

  after(async () => {
    await api.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const zone = (data: string): Promise<string> => readFile(join(data, 'example.org.zone'), 'utf8').catch(() => readFile(join(data, 'example.org'), 'utf8'));

  test('--kubeconfig: records land in the zone file and RecordReady events on the objects (--events-emit)', async () => {
    const data = join(dir, 'data-flag');
    const r = await runCli(
      [
        'run',
        '--once',
        '--events-emit',
        'RecordReady',
        '--source',
        'service',
        '--source',
        'crd',
        '--kubeconfig',
        kubeconfig,
        '--embedded-data-dir',
        data,
        '--embedded-zone',
        'example.org',
        '--txt-owner-id',
        'cli',
        '--metrics-address',
        '',
      ],
      { timeoutMs: 60_000 },
    );
    assert.equal(r.code, 0, r.stderr);
    const text = await zone(data);
    assert.match(text, /^web\.example\.org\. \d+ IN A 192\.0\.2\.80$/m);
    assert.match(text, /^api\.example\.org\. \d+ IN A 192\.0\.2\.81$/m);
    await waitFor('RecordReady on Service web', () => (eventsFor(api, 'Service', 'web').some((e) => e.reason === 'RecordReady') ? true : undefined));
    await waitFor('RecordReady on DNSEndpoint api', () => (eventsFor(api, 'DNSEndpoint', 'api').some((e) => e.reason === 'RecordReady') ? true : undefined));
  });

  test('$KUBECONFIG is used when no flag is given; without any configuration start-up fails naming --kubeconfig', async () => {
    const data = join(dir, 'data-env');
    const ok = await runCli(['run', '--once', '--source', 'service', '--embedded-data-dir', data, '--embedded-zone', 'example.org', '--metrics-address', ''], {
      env: { KUBECONFIG: kubeconfig },
      timeoutMs: 60_000,
    });
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(await zone(data), /^web\.example\.org\. \d+ IN A 192\.0\.2\.80$/m);

    const missing = await runCli(
      ['run', '--once', '--source', 'service', '--embedded-data-dir', join(dir, 'data-none'), '--embedded-zone', 'example.org', '--metrics-address', ''],
      { env: { HOME: dir }, timeoutMs: 60_000 },
    );
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--kubeconfig/);
  });
});
