import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { freezeEndpoint, newEndpoint, sameProviderSpecific } from '../../endpoint/endpoint.ts';
import type { Endpoint, ProviderSpecificProperty } from '../../endpoint/endpoint.ts';
import { silentLogger } from '../../log.ts';
import { AzureProvider } from './azure.ts';
import type { AzureDnsApi, AzureZoneKind, AzureZoneRef } from './client.ts';
import { PRIVATE_TYPES, PUBLIC_TYPES, endpointToRecordSet, recordSetToEndpoint } from './convert.ts';
import type { AzureRecordSetModel } from './convert.ts';
import { expandAzureTags, metadataOfEndpoint, metadataOfRecordSet, parseAzureTags } from './metadata.ts';

const withProps = (providerSpecific: ProviderSpecificProperty[], dnsName = 'www.example.com'): Endpoint =>
  newEndpoint({ dnsName, recordType: 'A', targets: ['192.0.2.1'], providerSpecific });
const names = (ep: Endpoint): string[] => ep.providerSpecific.map((p) => `${p.name}=${p.value}`).sort();

/** Keeps what is PUT, as ARM does (the whole record set replaced), and lists it back. */
class StoringApi implements AzureDnsApi {
  readonly sets = new Map<string, AzureRecordSetModel>();
  puts = 0;
  constructor(readonly kind: AzureZoneKind) {}
  listZones(): Promise<AzureZoneRef[]> {
    return Promise.resolve([{ name: 'example.com', resourceGroup: 'rg' }]);
  }
  listRecordSets(): Promise<AzureRecordSetModel[]> {
    return Promise.resolve([...this.sets.values()]);
  }
  putRecordSet(_zone: AzureZoneRef, relative: string, type: string, set: AzureRecordSetModel): Promise<void> {
    this.puts++;
    this.sets.set(`${relative} ${type}`, { ...structuredClone(set), name: relative, type: `Microsoft.Network/dnszones/${type}` });
    return Promise.resolve();
  }
  deleteRecordSet(_zone: AzureZoneRef, relative: string, type: string): Promise<void> {
    this.sets.delete(`${relative} ${type}`);
    return Promise.resolve();
  }
}

describe('azure record-set metadata', () => {
  test('parseAzureTags: items trimmed, split at the first "=", empty keys, values and items skipped, last value wins', () => {
    assert.deepEqual(
      [...parseAzureTags('cost-center=12345,owner=backend-team')],
      [
        ['cost-center', '12345'],
        ['owner', 'backend-team'],
      ],
    );
    assert.deepEqual(
      [...parseAzureTags(' environment = production, app=myapp ')],
      [
        ['environment', 'production'],
        ['app', 'myapp'],
      ],
    );
    assert.deepEqual(
      [...parseAzureTags('key=value,,other=test')],
      [
        ['key', 'value'],
        ['other', 'test'],
      ],
    );
    assert.deepEqual([...parseAzureTags('url=https://x/?a=b,novalue=,=nokey,bare')], [['url', 'https://x/?a=b']]);
    assert.deepEqual([...parseAzureTags('a=1,a=2')], [['a', '2']]);
    assert.deepEqual([...parseAzureTags('')], []);
  });

  test('expandAzureTags: azure/tags replaced by sorted metadata properties and the key list; other properties kept', () => {
    const shared = freezeEndpoint(
      withProps([
        { name: 'azure/tags', value: 'owner=backend-team, cost-center=12345' },
        { name: 'alias', value: 'true' },
      ]),
    );
    const out = expandAzureTags(shared);
    assert.notEqual(out, shared, 'a frozen, shared endpoint is copied');
    assert.deepEqual(out.providerSpecific, [
      { name: 'alias', value: 'true' },
      { name: 'azure/metadata-cost-center', value: '12345' },
      { name: 'azure/metadata-owner', value: 'backend-team' },
      { name: 'azure/metadata-keys', value: 'cost-center,owner' },
    ]);
    const plain = withProps([{ name: 'alias', value: 'true' }]);
    assert.equal(expandAzureTags(plain), plain, 'nothing to expand: the same object');
    // Only azure/tags goes when nothing parses; no key list is made.
    assert.deepEqual(expandAzureTags(withProps([{ name: 'azure/tags', value: ' , novalue=' }])).providerSpecific, []);
  });

  test('endpoint ↔ record set: metadata written from the key list, read back into the same properties', () => {
    const desired = expandAzureTags(withProps([{ name: 'azure/tags', value: 'b=2,a=1' }]));
    assert.deepEqual(metadataOfEndpoint(desired), { a: '1', b: '2' });
    const set = endpointToRecordSet(desired, 300);
    assert.deepEqual(set.metadata, { a: '1', b: '2' });
    for (const [kind, types] of [
      ['dnszones', PUBLIC_TYPES],
      ['privateDnsZones', PRIVATE_TYPES],
    ] as const) {
      // ARM may list the keys in any order: the properties do not depend on it.
      const listed = recordSetToEndpoint({ ...set, metadata: { b: '2', a: '1' }, name: 'www', type: `Microsoft.Network/${kind}/A` }, 'example.com', types);
      assert.ok(listed !== undefined && sameProviderSpecific(listed.providerSpecific, desired.providerSpecific), kind);
    }
    // Without the key list nothing is written (external-dns reads metadata only through it).
    assert.equal(metadataOfEndpoint(withProps([{ name: 'azure/metadata-foo', value: 'bar' }])), undefined);
    assert.equal(endpointToRecordSet(withProps([]), 300).metadata, undefined);
    assert.deepEqual(metadataOfRecordSet(undefined), []);
    assert.deepEqual(metadataOfRecordSet({ a: 'x', n: 5 }), [
      { name: 'azure/metadata-a', value: 'x' },
      { name: 'azure/metadata-keys', value: 'a' },
    ]);
  });

  for (const kind of ['public', 'private'] as const) {
    test(`${kind}: tags written on create, read back equal, a changed value or a removed annotation rewrites the set`, async () => {
      const api = new StoringApi(kind);
      const provider = new AzureProvider({ api, logger: silentLogger() });
      const desired = async (tags: string | undefined): Promise<Endpoint> => {
        const [out] = await provider.adjustEndpoints([withProps(tags === undefined ? [] : [{ name: 'azure/tags', value: tags }])]);
        return out as Endpoint;
      };
      await provider.records();
      const first = await desired('team=dns, env=prod');
      await provider.applyChanges({ create: [first], updateOld: [], updateNew: [], delete: [] });
      assert.deepEqual(api.sets.get('www A')?.metadata, { env: 'prod', team: 'dns' });
      const [current] = await provider.records();
      assert.ok(current !== undefined);
      assert.deepEqual(names(current), names(first));
      assert.ok(sameProviderSpecific(current.providerSpecific, (await desired('env=prod,team=dns')).providerSpecific), 'same tags: no change');
      const changed = await desired('env=staging,team=dns');
      assert.ok(!sameProviderSpecific(current.providerSpecific, changed.providerSpecific), 'another value: an update');
      await provider.applyChanges({ create: [], updateOld: [current], updateNew: [changed], delete: [] });
      assert.deepEqual(api.sets.get('www A')?.metadata, { env: 'staging', team: 'dns' });
      const bare = await desired(undefined);
      await provider.applyChanges({ create: [], updateOld: [changed], updateNew: [bare], delete: [] });
      assert.equal(api.sets.get('www A')?.metadata, undefined, 'a PUT without metadata clears it');
      assert.deepEqual((await provider.records())[0]?.providerSpecific, []);
    });
  }
});
