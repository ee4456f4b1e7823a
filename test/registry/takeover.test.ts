/**
 * Taking over a zone that external-dns manages: the zone files hold external-dns's records and
 * ownership TXT records (new format, old format, encrypted), Hostwarden's planner and TXT
 * registry run against the embedded provider, and the result must be what external-dns itself
 * would read back, with a second sync changing nothing.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DomainFilter } from '../../src/endpoint/domain-filter.ts';
import { newEndpoint } from '../../src/endpoint/endpoint.ts';
import type { Endpoint, EndpointInit } from '../../src/endpoint/endpoint.ts';
import { silentLogger } from '../../src/log.ts';
import { calculatePlan } from '../../src/plan/plan.ts';
import { EmbeddedProvider } from '../../src/provider/embedded/embedded.ts';
import { hasChanges } from '../../src/plan/changes.ts';
import { parseLabels } from '../../src/registry/txt/labels.ts';
import { TXTNameMapper } from '../../src/registry/txt/name-mapper.ts';
import { TXTRegistry } from '../../src/registry/txt/txt-registry.ts';

const ZONE = 'example.org';
const AES_KEY = Buffer.from(')K_Fy|?Z.64#UuHm`}[d!GC%WJM_fs{_');
// external-dns's own encrypted value for owner=foo-owner, resource=foo-resource (labels_test.go).
const FOREIGN_ENCRYPTED =
  '+lvP8q9KHJ6BS6O81i2Q6DLNdf2JSKy8j/gbZKviTZlGYj7q+yDoYMgkQ1hPn6urtGllM5bfFMcaaHto52otQtiOYrX8990J3kQqg4s47G27hzNNpXlckPuVVSGSLOQ25dQ9IBuqjbc=';

const ep = (init: Partial<EndpointInit> & Pick<EndpointInit, 'dnsName'>): Endpoint => newEndpoint({ recordType: 'A', targets: ['192.0.2.1'], ...init });
const value = (owner: string, resource: string): string => `"heritage=external-dns,external-dns/owner=${owner},external-dns/resource=${resource}"`;

async function withZone(fn: (provider: EmbeddedProvider) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'hostwarden-takeover-'));
  const provider = await EmbeddedProvider.open({ dataDir: dir, zones: [ZONE], logger: silentLogger() });
  try {
    await fn(provider);
  } finally {
    await provider.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function sync(registry: TXTRegistry, desired: Endpoint[]): Promise<boolean> {
  const current = await registry.records();
  const { changes } = calculatePlan({
    current,
    desired,
    ownerId: registry.ownerId,
    policy: 'sync',
    managedRecordTypes: ['A', 'AAAA', 'CNAME'],
    excludeRecordTypes: [],
    domainFilter: new DomainFilter({ include: [ZONE] }),
  });
  if (!hasChanges(changes)) return false;
  await registry.applyChanges(changes);
  return true;
}

/** Ownership as external-dns reads it: TXT name → (record, type), value → labels. */
function ownershipView(records: Endpoint[]): string[] {
  const mapper = new TXTNameMapper();
  return records
    .filter((r) => r.recordType === 'TXT')
    .map((r) => {
      const mapped = mapper.toEndpointName(r.dnsName);
      const labels = parseLabels(r.targets[0] ?? '');
      return `${mapped?.dnsName ?? '?'} ${mapped?.recordType ?? 'old'} owner=${labels?.owner ?? '-'} resource=${labels?.resource ?? '-'}`;
    })
    .sort();
}

describe('taking over an external-dns zone', () => {
  test('updates, creates and deletes through the embedded provider, then settles', () =>
    withZone(async (provider) => {
      await provider.applyChanges({
        create: [
          ep({ dnsName: 'www.example.org', targets: ['192.0.2.10'] }),
          ep({ dnsName: 'a-www.example.org', recordType: 'TXT', targets: [value('default', 'ingress/default/web')] }),
          ep({ dnsName: 'old.example.org', targets: ['192.0.2.20'] }),
          ep({ dnsName: 'old.example.org', recordType: 'TXT', targets: [value('default', 'service/default/old')] }),
          ep({ dnsName: 'theirs.example.org', targets: ['192.0.2.30'] }),
          ep({ dnsName: 'a-theirs.example.org', recordType: 'TXT', targets: [value('other', 'service/x/theirs')] }),
          ep({ dnsName: 'gone.example.org', recordType: 'CNAME', targets: ['lb.example.net'] }),
          ep({ dnsName: 'cname-gone.example.org', recordType: 'TXT', targets: [value('default', 'ingress/default/gone')] }),
        ],
        updateOld: [],
        updateNew: [],
        delete: [],
      });
      const registry = new TXTRegistry(provider, {
        ownerId: 'default',
        managedRecordTypes: ['A', 'AAAA', 'CNAME'],
        excludeRecordTypes: [],
        logger: silentLogger(),
      });
      const desired = [
        ep({ dnsName: 'www.example.org', targets: ['192.0.2.11'], labels: { resource: 'ingress/default/web' } }),
        ep({ dnsName: 'old.example.org', targets: ['192.0.2.21'], labels: { resource: 'service/default/old' } }),
        ep({ dnsName: 'theirs.example.org', targets: ['192.0.2.99'], labels: { resource: 'service/default/mine' } }),
        ep({ dnsName: 'api.example.org', targets: ['192.0.2.40'], labels: { resource: 'service/default/api' } }),
      ];

      assert.equal(await sync(registry, desired), true);
      const after = await provider.records();
      assert.deepEqual(ownershipView(after), [
        'api.example.org A owner=default resource=service/default/api',
        'old.example.org A owner=default resource=service/default/old',
        'theirs.example.org A owner=other resource=service/x/theirs',
        'www.example.org A owner=default resource=ingress/default/web',
      ]);
      const target = (name: string): string[] | undefined => after.find((r) => r.dnsName === name && r.recordType !== 'TXT')?.targets;
      assert.deepEqual(target('www.example.org'), ['192.0.2.11']);
      assert.deepEqual(target('old.example.org'), ['192.0.2.21']);
      assert.deepEqual(target('theirs.example.org'), ['192.0.2.30']);
      assert.equal(target('gone.example.org'), undefined);

      assert.equal(await sync(registry, desired), false, 'second sync has nothing to do');
    }));

  test("reads external-dns's encrypted TXT records and keeps their bytes", () =>
    withZone(async (provider) => {
      await provider.applyChanges({
        create: [
          ep({ dnsName: 'enc.example.org', targets: ['192.0.2.50'] }),
          ep({ dnsName: 'a-enc.example.org', recordType: 'TXT', targets: [`"${FOREIGN_ENCRYPTED}"`] }),
        ],
        updateOld: [],
        updateNew: [],
        delete: [],
      });
      const registry = new TXTRegistry(provider, {
        ownerId: 'foo-owner',
        managedRecordTypes: ['A'],
        excludeRecordTypes: [],
        aesKey: AES_KEY,
        logger: silentLogger(),
      });
      const desired = [ep({ dnsName: 'enc.example.org', targets: ['192.0.2.51'], labels: { resource: 'foo-resource' } })];
      assert.equal(await sync(registry, desired), true);
      const txt = (await provider.records()).find((r) => r.dnsName === 'a-enc.example.org');
      assert.equal(txt?.targets[0]?.replace(/"/g, ''), FOREIGN_ENCRYPTED);
      assert.equal(await sync(registry, desired), false);
    }));
});
