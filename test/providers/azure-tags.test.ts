/**
 * The `external-dns.kubernetes.io/azure-tags` annotation end to end: a manifest object with the
 * annotation, `hostwarden run --once` through the CLI wiring and the official ARM SDK, and record-set
 * metadata in the ARM emulator (on the record and on its ownership TXT, which carries the record's
 * properties as in external-dns). A second run writes nothing; changed tags rewrite the record sets.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ArmDnsEmulator } from '../support/azure/arm-dns-emulator.ts';
import type { ArmZoneKind } from '../support/azure/arm-dns-emulator.ts';
import { runCli } from '../support/cli.ts';
import { makeSelfSignedCert, opensslUnavailable } from '../support/tls.ts';
import type { SelfSignedCert } from '../support/tls.ts';

const SUB = '00000000-0000-0000-0000-000000000002';
const TOKEN = 'arm-tags-token';
const skip = await opensslUnavailable();

const service = (name: string, hostname: string, ip: string, tags: string | undefined): string => `apiVersion: v1
kind: Service
metadata:
  name: ${name}
  namespace: default
  annotations:
    external-dns.kubernetes.io/hostname: "${hostname}"
${tags === undefined ? '' : `    external-dns.kubernetes.io/azure-tags: "${tags}"\n`}spec:
  type: LoadBalancer
status:
  loadBalancer:
    ingress:
      - ip: ${ip}
`;

describe('azure-tags annotation through hostwarden run and the ARM emulator', { skip: skip ?? false }, () => {
  let cert: SelfSignedCert;
  let emu: ArmDnsEmulator;
  let dir: string;
  let azureJson: string;

  before(async () => {
    cert = await makeSelfSignedCert();
    emu = await ArmDnsEmulator.start({ subscriptionId: SUB, cert, token: TOKEN });
    emu.addZone('public', 'dns-rg', 'tags.test');
    emu.addZone('public', 'dns-rg', 'alias.test');
    emu.addZone('private', 'dns-rg', 'tags.internal');
    dir = await mkdtemp(join(tmpdir(), 'hw-azure-tags-'));
    azureJson = join(dir, 'azure.json');
    await writeFile(
      azureJson,
      JSON.stringify({
        tenantId: 'tenant-1',
        subscriptionId: SUB,
        resourceGroup: 'dns-rg',
        aadClientId: 'test-client',
        aadClientSecret: 'test-secret',
        activeDirectoryAuthorityHost: emu.url,
      }),
    );
  });
  after(async () => {
    await emu?.stop();
    await cert?.cleanup();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  const run = (provider: string, manifests: string, domain: string) =>
    runCli(
      [
        'run',
        '--once',
        '--provider',
        provider,
        '--azure-config-file',
        azureJson,
        '--azure-endpoint',
        emu.url,
        '--manifests-dir',
        manifests,
        '--domain-filter',
        domain,
        '--txt-owner-id',
        'hw-tags',
        '--metrics-address',
        '',
        '--log-format',
        'json',
      ],
      { env: { NODE_EXTRA_CA_CERTS: cert.certFile }, timeoutMs: 60_000 },
    );

  const cases: { provider: string; kind: ArmZoneKind; zone: string }[] = [
    { provider: 'azure', kind: 'public', zone: 'tags.test' },
    // external-dns's other name for azure, whose post-processor would drop azure/tags under it.
    { provider: 'azure-dns', kind: 'public', zone: 'alias.test' },
    { provider: 'azure-private-dns', kind: 'private', zone: 'tags.internal' },
  ];
  for (const { provider, kind, zone } of cases) {
    test(`${provider}: annotation → metadata; second run writes nothing; changed tags update the record sets`, { timeout: 180_000 }, async () => {
      const manifests = join(dir, `manifests-${provider}`);
      await mkdir(manifests);
      const file = join(manifests, 'web.yaml');
      const metadata = (name: string, type: string): unknown => emu.get(kind, zone, name, type)?.properties['metadata'];

      await writeFile(file, service('web', `web.${zone}`, '192.0.2.10', 'cost-center=12345, owner=backend-team ,,broken'));
      const first = await run(provider, manifests, zone);
      assert.equal(first.code, 0, first.stderr);
      assert.deepEqual(metadata('web', 'A'), { 'cost-center': '12345', owner: 'backend-team' });
      assert.deepEqual(metadata('a-web', 'TXT'), { 'cost-center': '12345', owner: 'backend-team' }, 'the ownership TXT carries them too');

      const puts = emu.calls.puts;
      const second = await run(provider, manifests, zone);
      assert.equal(second.code, 0, second.stderr);
      assert.equal(emu.calls.puts, puts, 'metadata read back equals the annotation: no write');

      await writeFile(file, service('web', `web.${zone}`, '192.0.2.10', 'cost-center=67890'));
      const third = await run(provider, manifests, zone);
      assert.equal(third.code, 0, third.stderr);
      assert.ok(emu.calls.puts > puts, 'changed tags are an update');
      assert.deepEqual(metadata('web', 'A'), { 'cost-center': '67890' });
      assert.deepEqual(metadata('a-web', 'TXT'), { 'cost-center': '67890' });
      assert.deepEqual(emu.get(kind, zone, 'web', 'A')?.properties[kind === 'public' ? 'ARecords' : 'aRecords'], [{ ipv4Address: '192.0.2.10' }]);

      await writeFile(file, service('web', `web.${zone}`, '192.0.2.10', undefined));
      const fourth = await run(provider, manifests, zone);
      assert.equal(fourth.code, 0, fourth.stderr);
      assert.equal(metadata('web', 'A'), undefined, 'annotation removed: metadata cleared');
      const after = emu.calls.puts;
      const fifth = await run(provider, manifests, zone);
      assert.equal(fifth.code, 0, fifth.stderr);
      assert.equal(emu.calls.puts, after, 'no metadata on either side: no write');
    });
  }

  test('the emulator keeps metadata as written and refuses one that is not a map of strings, as ARM does', async () => {
    const put = (name: string, metadata: unknown): Promise<{ status: number; body: string }> =>
      new Promise((resolve, reject) => {
        const body = JSON.stringify({ properties: { TTL: 60, ARecords: [{ ipv4Address: '192.0.2.1' }], metadata } });
        const url = new URL(
          `${emu.url}/subscriptions/${SUB}/resourceGroups/dns-rg/providers/Microsoft.Network/dnszones/tags.test/A/${name}?api-version=2018-05-01`,
        );
        const req = request(url, { method: 'PUT', ca: cert.cert, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' } }, (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        });
        req.on('error', reject);
        req.end(body);
      });
    const ok = await put('kept', { team: 'dns' });
    assert.equal(ok.status, 201, ok.body);
    assert.deepEqual((JSON.parse(ok.body) as { properties: { metadata?: unknown } }).properties.metadata, { team: 'dns' });
    assert.deepEqual(emu.get('public', 'tags.test', 'kept', 'A')?.properties['metadata'], { team: 'dns' });
    for (const bad of [{ n: 5 }, ['team=dns'], 'team=dns']) {
      const refused = await put('refused', bad);
      assert.equal(refused.status, 400, JSON.stringify(bad));
      assert.match(refused.body, /InvalidRequestFormat/);
    }
    assert.equal(emu.get('public', 'tags.test', 'refused', 'A'), undefined);
  });
});
